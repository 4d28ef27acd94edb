// `sessions:` of a scenario file: roles with count, settings, retry and steps (steps:
// step_parser.cc).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>

#include "harness/loader/limits.h"
#include "harness/loader/loader_context.h"
#include "harness/model/engine_traits.h"

namespace racelab::internal {
namespace {

bool IsSettingName(const std::string& name) {
  if (name.empty() || !(std::islower(static_cast<unsigned char>(name[0])) || name[0] == '_')) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
  });
}

void ReadSettings(LoadContext& ctx, const Ref& ref, SessionSpec& session) {
  std::optional<Fields> fields = ctx.reader.Map(ref, {});
  if (!fields) return;
  for (const Fields::Entry& entry : fields->entries) {
    if (!IsSettingName(entry.key)) {
      ctx.reader.Error(entry.key_mark, entry.value.path,
                       fmt::format("'{}' is not a setting name (expected lower-case "
                                   "[a-z_][a-z0-9_.]*, e.g. lock_timeout)",
                                   entry.key));
      continue;
    }
    if (entry.key == "search_path" || entry.key == "role" || entry.key == "session_authorization") {
      // racelab points search_path at the scenario's own schema and runs it as its own role;
      // changing either would redirect unqualified names, or the whole session, outside that
      // schema.
      ctx.reader.Error(
          entry.key_mark, entry.value.path,
          fmt::format("'{}' may not be set: racelab sets search_path to the scenario's own schema "
                      "and runs it as its own role; qualify names instead",
                      entry.key));
      continue;
    }
    RememberLoc(ctx, entry.value);
    std::optional<std::string> value = ctx.reader.Text(entry.value);
    if (!value || !CheckReferences(ctx, entry.value, *value, nullptr)) continue;
    session.settings.emplace_back(entry.key, *value);
  }
}

// The key `key` of the mapping `map`, when it is written plain (not quoted): yaml-cpp tags a plain
// scalar "?" and a quoted one "!". Null when absent or quoted.
std::optional<YAML::Node> PlainKey(const YAML::Node& map, std::string_view key) {
  for (const auto& pair : map) {
    if (pair.first.IsScalar() && pair.first.Scalar() == key && pair.first.Tag() == "?")
      return pair.first;
  }
  return std::nullopt;
}

// `retry: { sqlstates: [...], attempts, initial_ms, factor, cap_ms }`. `sqlstates` was called `on`,
// which YAML 1.1 tools (PyYAML, and so a JSON Schema check from Python) read as the boolean true:
// the old name is accepted quoted ("on":), where every YAML reader sees the text "on".
void ReadRetry(LoadContext& ctx, const Ref& ref, SessionSpec& session) {
  std::optional<Fields> fields =
      ctx.reader.Map(ref, {"sqlstates", "attempts", "initial_ms", "factor", "cap_ms", "on"});
  if (!fields) return;
  RetrySpec retry;
  const Ref* list = fields->Get("sqlstates");
  if (const Ref* old = fields->Get("on")) {
    if (std::optional<YAML::Node> plain = PlainKey(ref.node, "on")) {
      ctx.reader.Error(
          plain->Mark(), old->path,
          "YAML 1.1 tools (PyYAML, a JSON Schema check from Python) read the key 'on' as the "
          "boolean true: write sqlstates: (its name now), or quote the old name: \"on\":");
    } else if (list != nullptr) {
      ctx.reader.Error(*old, "give sqlstates only (\"on\" is its old name)");
    } else {
      list = old;
    }
  } else if (list == nullptr) {
    ctx.reader.Error(ref.mark, JoinPath(ref.path, "sqlstates"), "missing required key 'sqlstates'");
  }
  if (const Ref* on = list) {
    auto codes = ctx.reader.TextItems(*on, limits::kMaxListItems, limits::kMaxNameBytes);
    if (codes && codes->empty())
      ctx.reader.Error(*on, "list at least one SQLSTATE, e.g. [\"40001\"]");
    for (const auto& [code, item] : codes.value_or(decltype(codes)::value_type{})) {
      if (!IsErrorKey(code, ctx.scenario.engines)) ctx.reader.Error(item, NotAnErrorKey(code));
      retry.on.push_back(code);
    }
  }
  struct Field {
    const char* key;
    Expr* target;
    NumberRule rule;
  };
  for (const Field& f : {Field{"attempts", &retry.attempts, NumberRule::kAttempts},
                         Field{"initial_ms", &retry.initial_ms, NumberRule::kDurationMs},
                         Field{"factor", &retry.factor, NumberRule::kFactor},
                         Field{"cap_ms", &retry.cap_ms, NumberRule::kDurationMs}}) {
    if (const Ref* r = fields->Get(f.key))
      *f.target = ReadExpr(ctx, *r, f.rule).value_or(*f.target);
  }
  session.retry = std::move(retry);
}

void ReadSession(LoadContext& ctx, const Ref& ref, size_t role) {
  SessionSpec& session = ctx.scenario.sessions[role];
  session.loc = ctx.reader.Loc(ref.mark);
  size_t errors_before = ctx.reader.error_count();
  std::optional<Fields> fields = ctx.reader.Map(
      ref, {"name", "count", "node", "settings", "retry", "steps", "exec", "pauses", "timeout_ms"},
      {"name"});
  // A misspelt key (say `cont:`) hides the real count: do not judge barriers by the default.
  if (ctx.reader.error_count() != errors_before) ctx.role_counts[role] = std::nullopt;
  if (!fields) return;
  if (const Ref* r = fields->Get("name")) {
    std::optional<std::string> name = ctx.reader.Name(*r);
    if (name && !IsRoleName(*name)) {
      ctx.reader.Error(*r, fmt::format("'{}' is not a session name (expected [a-z][a-z0-9_]*, "
                                       "e.g. worker)",
                                       *name));
    }
    for (size_t i = 0; name && i < role; ++i) {
      if (ctx.scenario.sessions[i].name == *name) {
        ctx.reader.Error(*r,
                         fmt::format("duplicate session name '{}' (also sessions[{}])", *name, i));
      }
    }
    session.name = name.value_or("");
  }
  if (const Ref* r = fields->Get("count")) {
    std::optional<Expr> count = ReadExpr(ctx, *r, NumberRule::kSessionCount);
    if (count) {
      session.count = *count;
      ctx.role_counts[role] = EvalInteger(*count, ctx.defaults).value();
    } else {
      ctx.role_counts[role] = std::nullopt;
    }
  }
  if (const Ref* r = fields->Get("node")) {
    std::optional<std::string> node = ctx.reader.Name(*r);
    if (node && !IsRoleName(*node)) {
      ctx.reader.Error(*r, fmt::format("'{}' is not a node name (expected [a-z][a-z0-9_]*, e.g. "
                                       "server, primary, standby1)",
                                       *node));
    } else if (node) {
      session.node = *node;
      session.node_loc = ctx.reader.Loc(r->mark);
    }
  }
  if (fields->Get("steps") == nullptr && fields->Get("exec") == nullptr) {
    ctx.reader.Error(ref.mark, JoinPath(ref.path, "steps"),
                     "missing required key 'steps' (or exec: [program, args…] to run a program)");
  }
  ReadExec(ctx, *fields, session);  // exec: and pauses: (exec_parser.cc)
  if (const Ref* r = fields->Get("settings")) ReadSettings(ctx, *r, session);
  if (const Ref* r = fields->Get("retry")) ReadRetry(ctx, *r, session);
  if (const Ref* r = fields->Get("steps")) {
    size_t errors_before_steps = ctx.reader.error_count();
    session.steps = ReadSteps(ctx, *r, role);
    // Steps left unread may hide barriers: the barrier checks would only add false errors.
    if (ctx.reader.error_count() != errors_before_steps) ctx.barriers_incomplete = true;
    bool has_begin = std::any_of(session.steps.begin(), session.steps.end(),
                                 [](const Step& s) { return s.kind == StepKind::kBegin; });
    if (session.retry && !has_begin) {
      ctx.reader.Error(*fields->Get("retry"),
                       "retry restarts the transaction from its 'begin' step, and this session has "
                       "none (add '- begin')");
    }
  }
}

}  // namespace

bool IsSqlState(const std::string& code) {
  return code.size() == 5 && std::all_of(code.begin(), code.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z');
         });
}

bool IsErrorKey(const std::string& code, const std::vector<std::string>& engines) {
  return IsSqlState(code) || std::any_of(engines.begin(), engines.end(), [&](const auto& engine) {
           return IsOwnErrorCode(engine, code);
         });
}

std::string NotAnErrorKey(const std::string& code) {
  return fmt::format(
      "'{}' is not a SQLSTATE nor an engine error code (expected 5 characters from 0-9 and A-Z, "
      "e.g. 40001{})",
      code, OwnErrorExamples());
}

std::string ReadErrorKey(LoadContext& ctx, const Ref& ref) {
  std::string code = ctx.reader.Text(ref).value_or("");
  if (!code.empty() && !IsErrorKey(code, ctx.scenario.engines)) {
    ctx.reader.Error(
        ref, fmt::format("'{}' is not a SQLSTATE (5 characters from 0-9A-Z, e.g. \"40001\") or an "
                         "engine's error code",
                         code));
  }
  return code;
}

void ReadSessions(LoadContext& ctx, const Ref& ref) {
  std::optional<std::vector<Ref>> items = ctx.reader.Seq(ref, limits::kMaxRoles);
  if (!items) return;
  if (items->empty()) {
    ctx.reader.Error(ref, "list at least one session");
    return;
  }
  ctx.scenario.sessions.resize(items->size());
  ctx.role_counts.assign(items->size(), 1L);
  for (size_t i = 0; i < items->size() && !ctx.reader.full(); ++i) {
    ReadSession(ctx, (*items)[i], i);
  }
  // Every instance is a thread and a connection: the total is bounded (the planner checks it again
  // with the --set values).
  long total = 0;
  for (const std::optional<long>& count : ctx.role_counts) total += count.value_or(0);
  if (total > limits::kMaxSessionInstances) {
    ctx.reader.Error(ref, fmt::format("the sessions' counts add up to {} instances; at most {} "
                                      "(each is a thread and a connection)",
                                      total, limits::kMaxSessionInstances));
  }
}

}  // namespace racelab::internal
