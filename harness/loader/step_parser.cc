// `steps:` of one session. A step is a bare keyword (begin, commit, rollback) or a mapping with
// exactly one kind key (sql, barrier, sleep_ms, await_blocked, await_ended, terminate, probe, or
// begin/commit/rollback with no value) plus the modifiers valid for that kind.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string_view>
#include <unordered_map>

#include "harness/loader/limits.h"
#include "harness/loader/loader_context.h"
#include "harness/model/condition.h"
#include "harness/model/engine_traits.h"
#include "harness/model/isolation.h"
#include "harness/model/step_kind.h"

namespace racelab::internal {
namespace {

// A step kind as the loader reads it: its row of the model's table and the modifiers it takes.
struct KindInfo {
  std::string_view key;
  StepKind kind;
  bool takes_value;
  std::vector<std::string> modifiers;
};

// The traits of the engine this reading is for (the file is read once per engine), or nullptr.
const EngineTraits* EngineOf(const LoadContext& ctx) {
  return FindEngineTraits(ctx.scenario.engine);
}
bool HasServer(const EngineTraits& t) { return t.has_server; }
bool CanTerminate(const EngineTraits& t) { return t.can_terminate; }

// The error for a step that needs a server to end a connection on engine `t`, which cannot:
// "<does>, and SQLite has no server (it runs inside racelab): list this step for postgresql and
// mariadb only (drop sqlite from engines, …)", the engines listed being those for which `can`
// holds.
std::string EndsConnectionError(std::string_view does, const EngineTraits& t,
                                bool (*can)(const EngineTraits&)) {
  const std::string lacks =
      t.has_server ? fmt::format("{} cannot end another connection", t.display)
                   : fmt::format("{} has no server (it runs inside racelab)", t.display);
  return fmt::format(
      "{}, and {}: list this step for {} only (drop {} from engines, or give {} its own sessions "
      "with an engine map)",
      does, lacks, EnginesWith(can), t.name, t.name);
}

// The modifiers a kind takes besides its own key (docs/scenario-format.md). No default: a new kind
// is a -Wswitch warning here.
std::vector<std::string> ModifiersOf(StepKind kind) {
  switch (kind) {
    case StepKind::kSql:
      return {"name", "capture", "when", "on_error", "timeout_ms", "ask"};
    case StepKind::kBegin:
      return {"name", "on_error", "isolation", "read_only", "deferrable", "timeout_ms", "ask"};
    case StepKind::kCommit:
    case StepKind::kRollback:
      return {"name", "on_error", "timeout_ms", "ask"};
    case StepKind::kAwaitBlocked:
    case StepKind::kAwaitEnded:
      return {"name", "timeout_ms"};
    case StepKind::kProbe:
      return {"name", "equals", "timeout_ms", "ask"};
    case StepKind::kTerminate:
      return {"name", "ask"};
    case StepKind::kBarrier:
    case StepKind::kSleep:
    case StepKind::kProgram:  // never written (no file key)
      return {"name"};
  }
  return {"name"};
}

const std::vector<KindInfo>& Kinds() {
  static const std::vector<KindInfo> kKinds = [] {
    std::vector<KindInfo> kinds;
    for (const StepKindInfo& k : kStepKinds) {
      if (k.file_key.empty()) continue;  // made by the loader, never written (kProgram)
      kinds.push_back({k.file_key, k.kind, k.takes_value, ModifiersOf(k.kind)});
    }
    return kinds;
  }();
  return kKinds;
}

const KindInfo* FindKind(std::string_view key) {
  for (const KindInfo& info : Kinds()) {
    if (info.key == key) return &info;
  }
  return nullptr;
}

std::vector<std::string> KindNames() {
  std::vector<std::string> names;
  for (const KindInfo& info : Kinds()) names.emplace_back(info.key);
  return names;
}

std::string UnknownStep(const std::string& word) {
  std::string hint = Suggest(word, KindNames());
  return fmt::format("unknown step '{}' ({}expected one of: {})", Clip(word),
                     hint.empty() ? "" : fmt::format("did you mean '{}'? ", hint),
                     JoinNames(KindNames()));
}

// `when` (harness/model/condition.h): the syntax after param substitution, then the names — a
// capture of an earlier step of this session, or (rows(STEP)) an earlier sql step of this session.
void ReadWhen(LoadContext& ctx, const Ref& ref, const std::vector<std::string>& captures,
              const std::vector<Step>& earlier, Step& step) {
  std::optional<std::string> when = ctx.reader.Text(ref);
  if (!when || !CheckReferences(ctx, ref, *when, &captures)) return;
  step.when = *when;
  std::string problem;
  std::optional<WhenCondition> c = ParseWhen(SubstituteParams(*when, ctx.defaults), &problem);
  if (!c) {
    ctx.reader.Error(
        ref, fmt::format("bad condition '{}': {} (expected NAME == 'text', NAME < number, "
                         "defined(NAME), !defined(NAME), rows(STEP) > number, "
                         "sqlstate(STEP) == '40001' or failed(STEP), e.g. status == 'queued')",
                         *when, problem));
    return;
  }
  if (c->kind == WhenCondition::Kind::kRows || c->kind == WhenCondition::Kind::kSqlstate ||
      c->kind == WhenCondition::Kind::kFailed) {
    // sqlstate() and failed() may name any earlier statement step (begin, commit, rollback too).
    bool any_statement = c->kind != WhenCondition::Kind::kRows;
    auto counts = [&](const Step& s) {
      return s.kind == StepKind::kSql ||
             (any_statement && (s.kind == StepKind::kBegin || s.kind == StepKind::kCommit ||
                                s.kind == StepKind::kRollback));
    };
    auto it = std::find_if(earlier.begin(), earlier.end(),
                           [&](const Step& s) { return counts(s) && s.name == c->name; });
    if (it == earlier.end()) {
      std::vector<std::string> names;
      for (const Step& s : earlier) {
        if (counts(s)) names.push_back(s.name);
      }
      const char* call = c->kind == WhenCondition::Kind::kRows       ? "rows"
                         : c->kind == WhenCondition::Kind::kSqlstate ? "sqlstate"
                                                                     : "failed";
      const char* kind = any_statement ? "statement" : "sql";
      ctx.reader.Error(
          ref, fmt::format("{}({}): not an earlier {} step of this session (earlier {} steps: {})",
                           call, c->name, kind, kind, JoinNames(names)));
    }
  } else if (std::find(captures.begin(), captures.end(), c->name) == captures.end()) {
    ctx.reader.Error(ref, fmt::format("'{}' is not captured by an earlier step of this session "
                                      "(captured so far: {})",
                                      c->name, JoinNames(captures)));
  }
}

// `ask:` (Step::ask): one line of text, ${param} references only (a capture's value is not known
// before the step runs).
void ReadAsk(LoadContext& ctx, const Ref& ref, Step& step) {
  std::optional<std::string> text = ctx.reader.Text(ref, false, limits::kMaxLineBytes);
  if (!text || !CheckReferences(ctx, ref, *text, nullptr)) return;
  step.ask = *text;
}

void ReadCapture(LoadContext& ctx, const Ref& ref, Step& step) {
  auto names = ctx.reader.TextItems(ref, limits::kMaxListItems, limits::kMaxNameBytes);
  if (!names) return;
  for (const auto& [name, item] : *names) {
    step.capture.push_back(name);
    if (!IsIdentifier(name)) {
      ctx.reader.Error(item, fmt::format("'{}' cannot be captured by name (expected a column name "
                                         "matching [A-Za-z_][A-Za-z0-9_]*; alias it with AS)",
                                         name));
    }
  }
}

// Reads the kind's value into `step`.
void ReadKindValue(LoadContext& ctx, const KindInfo& info, const Ref& ref,
                   const std::vector<std::string>& captures, size_t role, Step& step) {
  if (!info.takes_value) {
    if (!ref.node.IsNull() && !(ref.node.IsScalar() && ref.node.Scalar().empty())) {
      ctx.reader.Error(ref, fmt::format("'{}' takes no value (write '- {}')", info.key, info.key));
    }
    return;
  }
  if (info.kind == StepKind::kSleep) {
    step.sleep_ms = ReadExpr(ctx, ref, NumberRule::kDurationMs).value_or("");
    return;
  }
  if (info.kind == StepKind::kProbe) {
    ReadProbeValue(ctx, ref, captures, step);
    return;
  }
  std::optional<std::string> text = info.kind == StepKind::kSql
                                        ? ctx.reader.Text(ref, false, limits::kMaxTextBytes)
                                        : ctx.reader.Name(ref);
  if (!text) return;
  switch (info.kind) {
    case StepKind::kSql:
      CheckReferences(ctx, ref, *text, &captures);
      step.sql = *text;
      break;
    case StepKind::kBarrier: {
      if (!IsStepName(*text)) {
        ctx.reader.Error(ref, fmt::format("'{}' is not a barrier name (expected "
                                          "[A-Za-z][A-Za-z0-9_-]*, e.g. go)",
                                          *text));
      }
      step.barrier = *text;
      auto [it, added] = ctx.barrier_index.emplace(*text, ctx.barriers.size());
      if (added) {
        ctx.barriers.push_back({*text, ref.mark, ref.path, {role}});
      } else if (std::vector<size_t>& roles = ctx.barriers[it->second].roles;
                 roles.back() != role) {  // roles are read in order: a role is last if listed
        roles.push_back(role);
      }
      break;
    }
    case StepKind::kAwaitEnded:
      // An engine without a server (SQLite runs inside racelab): no server ends a connection, so
      // the wait could only time out.
      if (const EngineTraits* t = EngineOf(ctx); t != nullptr && !t->has_server) {
        ctx.reader.Error(ref, EndsConnectionError(
                                  "await_ended waits for the server to end a session's connection",
                                  *t, &HasServer));
      }
      [[fallthrough]];
    case StepKind::kTerminate:
      // The same for terminate: an engine that cannot end another connection
      // (Capabilities::terminate = false) could only fail the step when it runs.
      if (const EngineTraits* t = EngineOf(ctx);
          step.kind == StepKind::kTerminate && t != nullptr && !t->can_terminate) {
        ctx.reader.Error(
            ref, EndsConnectionError("terminate asks the server to end a session's connection", *t,
                                     &CanTerminate));
      }
      [[fallthrough]];
    case StepKind::kAwaitBlocked:  // a role name, checked once every role is known
      step.target = *text;
      ctx.targets.push_back({*text, ref.mark, ref.path, role});
      break;
    case StepKind::kSleep:  // read above (a number, not a name)
    case StepKind::kProbe:  // read above (SQL)
    case StepKind::kBegin:  // begin, commit and rollback take no value
    case StepKind::kCommit:
    case StepKind::kRollback:
    case StepKind::kProgram:  // no file key: never read here
      break;
  }
}

// `begin`'s own level and modes (issue 11 item 5): isolation, read_only, deferrable.
void ReadBeginModes(LoadContext& ctx, const Fields& fields, Step& step) {
  if (const Ref* r = fields.Get("isolation")) {
    std::optional<std::string> text = ctx.reader.Text(*r);
    std::optional<IsolationLevel> level = text ? ParseIsolation(*text) : std::nullopt;
    if (text && !level) {
      ctx.reader.Error(
          *r, fmt::format("unknown isolation level '{}' (expected read committed, repeatable read, "
                          "serializable, or rc, rr, ser)",
                          *text));
    }
    step.isolation = level;
    // SQLite runs every transaction serializable and has no other level (sqlite.org/isolation.html,
    // docs/sqlite.md "Levels and capabilities"): refused here, not after setup when the step runs.
    if (level && !EngineRunsLevel(ctx.scenario.engine, *level)) {
      ctx.reader.Error(*r,
                       fmt::format("{}: a begin cannot run at {} (drop the key, or give {} its own "
                                   "sessions with an engine map)",
                                   EngineLevelsSentence(ctx.scenario.engine), IsolationName(*level),
                                   ctx.scenario.engine));
    }
  }
  // Nor a READ ONLY or DEFERRABLE transaction where BEGIN takes neither (SQLite's takes DEFERRED,
  // IMMEDIATE or EXCLUSIVE only, sqlite.org/lang_transaction.html; PRAGMA query_only holds for the
  // connection, not one transaction).
  auto mode = [&](const char* key, bool* out) {
    const Ref* r = fields.Get(key);
    if (r == nullptr) return;
    *out = ctx.reader.Bool(*r).value_or(false);
    if (const EngineTraits* t = EngineOf(ctx); *out && t != nullptr && !t->begin_access_modes) {
      ctx.reader.Error(
          *r,
          fmt::format("{} has no {} transaction mode (its BEGIN is {} only): drop the key, or "
                      "give {} its own sessions with an engine map",
                      t->display, std::string_view(key) == "read_only" ? "READ ONLY" : "DEFERRABLE",
                      t->begin_forms, t->name));
    }
  };
  mode("read_only", &step.read_only);
  mode("deferrable", &step.deferrable);
}

// Reads one step written as a mapping.
void ReadStepMap(LoadContext& ctx, const Ref& item, const std::vector<std::string>& captures,
                 const std::vector<Step>& earlier, size_t role, Step& step, std::string* keyword,
                 std::optional<Ref>* name_ref) {
  std::optional<Fields> fields = ctx.reader.Map(item, {});
  if (!fields) return;
  if (const Ref* r = fields->Get("name")) *name_ref = *r;  // even for an unknown kind: no cascade
  const KindInfo* info = nullptr;
  for (const Fields::Entry& entry : fields->entries) {
    const KindInfo* found = FindKind(entry.key);
    if (found == nullptr) continue;
    if (info != nullptr) {
      ctx.reader.Error(
          entry.key_mark, item.path,
          fmt::format("a step does one thing: '{}' and '{}' are two steps", info->key, entry.key));
      continue;
    }
    info = found;
  }
  if (info == nullptr) {
    const std::vector<std::string> all = {"name",       "capture",   "when",      "on_error",
                                          "timeout_ms", "isolation", "read_only", "deferrable",
                                          "equals",     "ask"};
    for (const Fields::Entry& entry : fields->entries) {
      if (std::find(all.begin(), all.end(), entry.key) != all.end()) continue;
      ctx.reader.Error(entry.key_mark, item.path, UnknownStep(entry.key));
      return;
    }
    ctx.reader.Error(item,
                     fmt::format("step has no kind (expected one of: {})", JoinNames(KindNames())));
    return;
  }
  step.kind = info->kind;
  *keyword = std::string(info->key);
  for (const Fields::Entry& entry : fields->entries) {
    if (FindKind(entry.key) != nullptr) continue;
    if (std::find(info->modifiers.begin(), info->modifiers.end(), entry.key) ==
        info->modifiers.end()) {
      if (entry.key == "ask") {  // a wait of the scenario's own: step mode never holds it
        ctx.reader.Error(entry.key_mark, entry.value.path,
                         fmt::format("a {} step runs by itself in racelab step, so no question can "
                                     "come before it: put 'ask' on the next sql, begin, commit, "
                                     "rollback, probe or terminate step",
                                     info->key));
        continue;
      }
      ctx.reader.Error(entry.key_mark, entry.value.path,
                       fmt::format("unknown key '{}' for a {} step (expected one of: {}, {})",
                                   entry.key, info->key, info->key, JoinNames(info->modifiers)));
    }
  }
  ReadKindValue(ctx, *info, *fields->Get(info->key), captures, role, step);
  if (const Ref* r = fields->Get("when"); r && info->kind == StepKind::kSql) {
    ReadWhen(ctx, *r, captures, earlier, step);
  }
  if (const Ref* r = fields->Get("capture"); r && info->kind == StepKind::kSql) {
    ReadCapture(ctx, *r, step);
  }
  if (info->kind == StepKind::kBegin) ReadBeginModes(ctx, *fields, step);
  if (const Ref* r = fields->Get("ask");
      r &&
      std::find(info->modifiers.begin(), info->modifiers.end(), "ask") != info->modifiers.end()) {
    ReadAsk(ctx, *r, step);
  }
  if (info->kind == StepKind::kProbe) ReadProbeFields(ctx, item, *fields, step);  // equals
  if (const Ref* r = fields->Get("timeout_ms"); r && info->kind != StepKind::kBarrier &&
                                                info->kind != StepKind::kSleep &&
                                                info->kind != StepKind::kTerminate) {
    step.timeout_ms = ReadExpr(ctx, *r, NumberRule::kTimeoutMs).value_or("");
  }
  if (const Ref* r = fields->Get("on_error");
      r && std::find(info->modifiers.begin(), info->modifiers.end(), "on_error") !=
               info->modifiers.end()) {
    std::optional<std::string> text = ctx.reader.Text(*r);
    if (text == "abort" || text == "continue") {
      step.on_error = *text == "abort" ? OnError::kAbort : OnError::kContinue;
    } else if (text) {
      ctx.reader.Error(*r,
                       fmt::format("unknown on_error '{}' (expected abort or continue)", *text));
    }
  }
}

}  // namespace

std::vector<Step> ReadSteps(LoadContext& ctx, const Ref& ref, size_t role) {
  std::vector<Step> steps;
  std::optional<std::vector<Ref>> items = ctx.reader.Seq(ref, limits::kMaxStepsPerSession);
  if (!items) return steps;
  if (items->empty()) ctx.reader.Error(ref, "list at least one step");
  std::vector<std::string> captures;              // captured by the steps read so far
  std::unordered_map<std::string, size_t> names;  // step name -> index of its first step
  for (size_t i = 0; i < items->size() && !ctx.reader.full(); ++i) {
    const Ref& item = (*items)[i];
    Step step;
    step.loc = ctx.reader.Loc(item.mark);
    std::string keyword = "step";
    std::optional<Ref> name_ref;
    if (item.node.IsScalar()) {
      const KindInfo* info = FindKind(item.node.Scalar());
      if (info == nullptr) {
        ctx.reader.Error(item, UnknownStep(item.node.Scalar()));
      } else if (info->takes_value) {
        ctx.reader.Error(
            item, fmt::format("step '{}' needs a value (write '- {}: ...')", info->key, info->key));
      } else {
        step.kind = info->kind;
        keyword = std::string(info->key);
      }
    } else if (item.node.IsMap()) {
      ReadStepMap(ctx, item, captures, steps, role, step, &keyword, &name_ref);
    } else {
      ctx.reader.Error(item, fmt::format("expected a step such as 'begin' or 'sql: ...', found {}",
                                         Describe(item.node)));
    }
    step.name = fmt::format("{}{}", keyword, i + 1);
    if (name_ref) {
      std::optional<std::string> name = ctx.reader.Name(*name_ref);
      if (name && !IsStepName(*name)) {
        ctx.reader.Error(*name_ref, fmt::format("'{}' is not a step name (expected "
                                                "[A-Za-z][A-Za-z0-9_-]*, e.g. claim)",
                                                *name));
      }
      if (name) step.name = *name;
    }
    if (auto [it, added] = names.emplace(step.name, steps.size()); !added) {
      ctx.reader.Error(name_ref ? *name_ref : item,
                       fmt::format("duplicate step name '{}' in session '{}' (also steps[{}])",
                                   step.name, ctx.scenario.sessions[role].name, it->second));
    }
    for (const std::string& c : step.capture) {
      if (std::find(captures.begin(), captures.end(), c) != captures.end()) continue;
      if (captures.size() == limits::kMaxListItems) {
        ctx.reader.Error(item,
                         fmt::format("session '{}' captures more than {} names",
                                     ctx.scenario.sessions[role].name, limits::kMaxListItems));
        break;
      }
      captures.push_back(c);
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace racelab::internal
