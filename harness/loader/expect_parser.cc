// `outcome:` and `expect:` (with `expect.at.<level>` overrides). REQUIRES: sessions have been read,
// so step and session names can be checked.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_set>

#include "harness/loader/limits.h"
#include "harness/loader/loader_context.h"

namespace racelab::internal {

const SessionSpec* FindRole(const Scenario& s, const std::string& role) {
  for (const SessionSpec& session : s.sessions) {
    if (session.name == role) return &session;
  }
  return nullptr;
}

std::vector<std::string> RoleNames(const Scenario& s) {
  std::vector<std::string> names;
  for (const SessionSpec& session : s.sessions) names.push_back(session.name);
  return names;
}

namespace {

const Step* FindStep(const SessionSpec& session, const std::string& step) {
  for (const Step& candidate : session.steps) {
    if (candidate.name == step) return &candidate;
  }
  return nullptr;
}

}  // namespace

// Reads a step name that must exist in `role` (or, when role is null, in any session). An unknown
// name is reported and still returned, so that checks depending on it do not report it again.
std::optional<std::string> ReadStepRef(LoadContext& ctx, const Ref& ref, const SessionSpec* role) {
  std::optional<std::string> name = ctx.reader.Name(ref);
  if (!name) return std::nullopt;
  std::vector<std::string> known;
  std::unordered_set<std::string> seen;
  for (const SessionSpec& session : ctx.scenario.sessions) {
    if (role != nullptr && &session != role) continue;
    if (FindStep(session, *name) != nullptr) return name;
    for (const Step& step : session.steps) {
      if (seen.insert(step.name).second) known.push_back(step.name);
    }
  }
  std::string hint = Suggest(*name, known);
  ctx.reader.Error(ref, fmt::format("unknown step '{}'{} ({}steps: {})", *name,
                                    role ? fmt::format(" in session '{}'", role->name) : "",
                                    hint.empty() ? "" : fmt::format("did you mean '{}'? ", hint),
                                    JoinNames(known)));
  return name;
}

std::optional<std::string> ReadRoleRef(LoadContext& ctx, const Ref& ref) {
  std::optional<std::string> name = ctx.reader.Name(ref);
  if (name && FindRole(ctx.scenario, *name) == nullptr) {
    ctx.reader.Error(ref, fmt::format("unknown session '{}' (sessions: {})", *name,
                                      JoinNames(RoleNames(ctx.scenario))));
    return std::nullopt;
  }
  return name;
}

namespace {

template <typename Item, typename Fn>
std::optional<std::vector<Item>> ReadList(LoadContext& ctx, const Ref& ref, Fn read_item) {
  std::optional<std::vector<Ref>> items = ctx.reader.Seq(ref);
  if (!items) return std::nullopt;
  std::vector<Item> out;
  for (const Ref& item : *items) {
    Item value;
    value.loc = ctx.reader.Loc(item.mark);
    read_item(item, value);
    out.push_back(std::move(value));
  }
  return out;
}

void ReadStepRows(LoadContext& ctx, const Ref& item, StepRowsSpec& out) {
  std::optional<Fields> f =
      ctx.reader.Map(item, {"step", "rows", "sqlstate", "sessions"}, {"step", "sessions"});
  if (!f) return;
  if (const Ref* r = f->Get("step")) out.step = ReadStepRef(ctx, *r, nullptr).value_or("");
  if (const Ref* r = f->Get("rows")) out.rows = ReadExpr(ctx, *r, NumberRule::kCount).value_or("");
  if (const Ref* r = f->Get("sqlstate")) out.sqlstate = ReadErrorKey(ctx, *r);
  if ((f->Get("rows") != nullptr) == (f->Get("sqlstate") != nullptr)) {
    ctx.reader.Error(
        item,
        "a step_rows entry has rows (the step returned that many rows) or sqlstate (it failed "
        "with that code), exactly one of them");
  }
  if (const Ref* r = f->Get("sessions")) out.sessions = ReadCount(ctx, *r).value_or(CountExpr(""));
}

void ReadBlocked(LoadContext& ctx, const Ref& item, BlockedSpec& out) {
  std::optional<Fields> f =
      ctx.reader.Map(item, {"session", "step", "min_ms", "max_ms", "by", "instances", "wait_event"},
                     {"session", "step"});
  if (!f) return;
  const SessionSpec* role = nullptr;
  if (const Ref* r = f->Get("session")) {
    out.session = ReadRoleRef(ctx, *r).value_or("");
    role = FindRole(ctx.scenario, out.session);
  }
  if (const Ref* r = f->Get("step"); r && role) out.step = ReadStepRef(ctx, *r, role).value_or("");
  if (const Ref* r = f->Get("min_ms")) out.min_ms = ReadExpr(ctx, *r, NumberRule::kAnyMs);
  if (const Ref* r = f->Get("max_ms")) out.max_ms = ReadExpr(ctx, *r, NumberRule::kAnyMs);
  if (const Ref* r = f->Get("by")) out.by = ReadRoleRef(ctx, *r).value_or("");
  ReadBlockedCounts(ctx, *f, out);  // instances, wait_event (timing_parser.cc)
  // Without min_ms, max_ms or by, the check is that the step was seen in a lock wait (evaluator).
}

// reads: { session?, step, equals: "18" | [rows…] }: the rows a step read (docs "Expect").
void ReadRead(LoadContext& ctx, const Ref& item, ReadSpec& out) {
  std::optional<Fields> f = ctx.reader.Map(item, {"session", "step", "equals"}, {"step", "equals"});
  if (!f) return;
  const SessionSpec* role = nullptr;
  if (const Ref* r = f->Get("session")) {
    out.session = ReadRoleRef(ctx, *r).value_or("");
    role = FindRole(ctx.scenario, out.session);
    if (role == nullptr) return;
  }
  if (const Ref* r = f->Get("step")) {
    out.step = ReadStepRef(ctx, *r, role).value_or("");
    for (const SessionSpec& session : ctx.scenario.sessions) {
      if (role != nullptr && &session != role) continue;
      const Step* step = FindStep(session, out.step);
      if (step != nullptr && step->kind != StepKind::kSql) {
        ctx.reader.Error(
            *r, fmt::format("step '{}' of session '{}' is not an sql step: it reads nothing",
                            out.step, session.name));
        break;
      }
    }
  }
  if (const Ref* r = f->Get("equals")) {
    if (r->node.IsNull()) {
      out.equals = {"NULL"};  // `equals: null`: one row holding SQL NULL
    } else if (auto rows = ctx.reader.TextItems(*r, limits::kMaxListItems, limits::kMaxLineBytes)) {
      for (const auto& [text, ref] : *rows) {
        if (CheckReferences(ctx, ref, text, nullptr)) out.equals.push_back(text);
      }
    }
  }
}

void ReadFinal(LoadContext& ctx, const Ref& item, FinalCheck& out) {
  std::optional<Fields> f = ctx.reader.Map(item, {"sql", "equals", "any_of"}, {"sql"});
  if (!f) return;
  if ((f->Get("equals") != nullptr) == (f->Get("any_of") != nullptr)) {
    ctx.reader.Error(
        item,
        "a final entry has equals (one value) or any_of (a list of values, any of which "
        "passes), exactly one of them");
  }
  if (const Ref* r = f->Get("any_of")) ReadFinalAnyOf(ctx, *r, out);
  if (const Ref* r = f->Get("sql")) {
    RememberLoc(ctx, *r);
    std::optional<std::string> sql = ctx.reader.Text(*r, false, limits::kMaxTextBytes);
    if (sql && CheckReferences(ctx, *r, *sql, nullptr)) out.sql = *sql;
  }
  if (const Ref* r = f->Get("equals")) {
    if (r->node.IsNull()) {
      out.equals = "NULL";  // `equals: null` / `equals: ~` / `equals:` mean SQL NULL
    } else if (std::optional<std::string> text = ctx.reader.Text(*r, true, limits::kMaxTextBytes)) {
      if (CheckReferences(ctx, *r, *text, nullptr)) out.equals = *text;
    }
  }
}

void ReadSqlStates(LoadContext& ctx, const Ref& ref, ExpectSpec& spec) {
  std::optional<Fields> f = ctx.reader.Map(ref, {});
  if (!f) return;
  std::map<std::string, CountExpr> counts;
  for (const Fields::Entry& entry : f->entries) {
    if (!IsErrorKey(entry.key, ctx.scenario.engines)) {
      ctx.reader.Error(entry.key_mark, entry.value.path, NotAnErrorKey(entry.key));
      continue;
    }
    if (std::optional<CountExpr> n = ReadCount(ctx, entry.value)) counts[entry.key] = *n;
  }
  spec.sqlstates = std::move(counts);
}

}  // namespace

ExpectSpec ReadExpectFields(LoadContext& ctx, const Fields& f) {
  ExpectSpec spec;
  const OutcomeSpec& outcome = ctx.scenario.outcome;
  if (const Ref* r = f.Get("winners")) {
    spec.winners = ReadCount(ctx, *r);
    if (outcome.win_step.empty()) {
      ctx.reader.Error(*r, "counting winners needs outcome.win (what makes a session a winner)");
    }
  }
  if (const Ref* r = f.Get("sqlstates")) ReadSqlStates(ctx, *r, spec);
  if (const Ref* r = f.Get("distinct_claims")) {
    spec.distinct_claims = ctx.reader.Bool(*r);
    if (outcome.claim_step.empty() && spec.distinct_claims.value_or(false)) {
      ctx.reader.Error(*r, "distinct_claims needs outcome.claim (what a session claimed)");
    }
  }
  if (const Ref* r = f.Get("lock_waits")) spec.lock_waits = ReadCount(ctx, *r);
  if (const Ref* r = f.Get("step_rows")) {
    spec.step_rows = ReadList<StepRowsSpec>(
        ctx, *r, [&](const Ref& item, StepRowsSpec& out) { ReadStepRows(ctx, item, out); });
  }
  if (const Ref* r = f.Get("blocked")) {
    spec.blocked = ReadList<BlockedSpec>(
        ctx, *r, [&](const Ref& item, BlockedSpec& out) { ReadBlocked(ctx, item, out); });
  }
  if (const Ref* r = f.Get("reads")) {
    spec.reads = ReadList<ReadSpec>(
        ctx, *r, [&](const Ref& item, ReadSpec& out) { ReadRead(ctx, item, out); });
  }
  if (const Ref* r = f.Get("final")) {
    spec.final = ReadList<FinalCheck>(
        ctx, *r, [&](const Ref& item, FinalCheck& out) { ReadFinal(ctx, item, out); });
  }
  if (const Ref* r = f.Get("errors")) {
    spec.errors = ReadList<ErrorSpec>(
        ctx, *r, [&](const Ref& item, ErrorSpec& out) { ReadError(ctx, item, out); });
  }
  if (const Ref* r = f.Get("one_of")) spec.one_of = ReadOneOf(ctx, *r);
  if (const Ref* r = f.Get("timing")) spec.timing = ReadTiming(ctx, *r);
  return spec;
}

// The keys of `expect` and of each `expect.at.<level>`.
std::vector<std::string_view> ExpectKeys() {
  return {"winners", "sqlstates", "distinct_claims", "lock_waits", "step_rows", "blocked",
          "reads",   "final",     "errors",          "one_of",     "timing"};
}

void ReadOutcome(LoadContext& ctx, const Ref& ref) {
  std::optional<Fields> f = ctx.reader.Map(ref, {"win", "claim"});
  if (!f) return;
  OutcomeSpec& outcome = ctx.scenario.outcome;
  if (const Ref* win = f->Get("win")) {
    if (std::optional<Fields> w = ctx.reader.Map(*win, {"step", "rows", "committed"}, {"step"})) {
      if (const Ref* r = w->Get("step"))
        outcome.win_step = ReadStepRef(ctx, *r, nullptr).value_or("");
      if (const Ref* r = w->Get("rows")) {
        outcome.win_rows = ReadExpr(ctx, *r, NumberRule::kCount).value_or(outcome.win_rows);
      }
      if (const Ref* r = w->Get("committed")) {
        outcome.win_committed = ctx.reader.Bool(*r).value_or(true);
      }
    }
  }
  if (const Ref* claim = f->Get("claim")) {
    std::optional<Fields> c = ctx.reader.Map(*claim, {"step", "column"}, {"step", "column"});
    if (!c) return;
    if (const Ref* r = c->Get("step"))
      outcome.claim_step = ReadStepRef(ctx, *r, nullptr).value_or("");
    const Ref* column = c->Get("column");
    std::optional<std::string> name = column ? ctx.reader.Name(*column) : std::nullopt;
    if (!name || outcome.claim_step.empty()) return;
    outcome.claim_column = *name;
    bool exists = false;
    bool captured = false;
    for (const SessionSpec& session : ctx.scenario.sessions) {
      const Step* step = FindStep(session, outcome.claim_step);
      exists = exists || step != nullptr;
      captured = captured || (step && std::find(step->capture.begin(), step->capture.end(),
                                                *name) != step->capture.end());
    }
    if (exists && !captured) {
      ctx.reader.Error(*column, fmt::format("step '{}' does not capture '{}' (add capture: [{}] "
                                            "to that step)",
                                            outcome.claim_step, *name, *name));
    }
  }
}

// True when the evaluator checks something for `e` (harness/eval/evaluator.cc): an empty
// `sqlstates` still checks "no other SQLSTATE"; `distinct_claims: false` and empty lists check
// nothing.
bool HasCheck(const ExpectSpec& e) {
  return e.winners || e.sqlstates || e.distinct_claims.value_or(false) || e.lock_waits ||
         (e.step_rows && !e.step_rows->empty()) || (e.blocked && !e.blocked->empty()) ||
         (e.reads && !e.reads->empty()) || (e.final && !e.final->empty()) ||
         (e.errors && !e.errors->empty()) || (e.one_of && !e.one_of->empty()) ||
         (e.timing && !e.timing->empty());
}

namespace {

// The base with `over`'s fields replacing it where set — the planner's rule (planner.cc
// PlanExpect).
ExpectSpec Merged(ExpectSpec base, const ExpectSpec& over) {
  if (over.winners) base.winners = over.winners;
  if (over.sqlstates) base.sqlstates = over.sqlstates;
  if (over.distinct_claims) base.distinct_claims = over.distinct_claims;
  if (over.lock_waits) base.lock_waits = over.lock_waits;
  if (over.step_rows) base.step_rows = over.step_rows;
  if (over.blocked) base.blocked = over.blocked;
  if (over.reads) base.reads = over.reads;
  if (over.final) base.final = over.final;
  if (over.errors) base.errors = over.errors;
  if (over.one_of) base.one_of = over.one_of;
  if (over.timing) base.timing = over.timing;
  return base;
}

constexpr const char* kCheckKeys =
    "winners, sqlstates, distinct_claims: true, lock_waits, step_rows, blocked, reads, final, "
    "errors, one_of or "
    "timing";

// Every level the scenario runs checks something: a trial with no check would pass whatever
// happened. A probe step checks what it reads, at every level.
bool HasProbe(const Scenario& s) {
  for (const SessionSpec& session : s.sessions) {
    for (const Step& step : session.steps) {
      if (step.kind == StepKind::kProbe) return true;
    }
  }
  return false;
}

void CheckEveryLevel(LoadContext& ctx, const Ref& expect, const std::map<IsolationLevel, Ref>& at) {
  if (HasProbe(ctx.scenario)) return;
  for (IsolationLevel level : ctx.scenario.isolation) {
    auto it = ctx.scenario.expect_at.find(level);
    ExpectSpec spec = it == ctx.scenario.expect_at.end() ? ctx.scenario.expect
                                                         : Merged(ctx.scenario.expect, it->second);
    if (HasCheck(spec)) continue;
    auto ref = at.find(level);
    if (ref != at.end()) {
      ctx.reader.Error(ref->second,
                       fmt::format("leaves nothing to check at {}: a trial there would pass "
                                   "whatever happened (keep or set one of {})",
                                   IsolationName(level), kCheckKeys));
    } else {
      ctx.reader.Error(expect,
                       fmt::format("nothing to check at {}: a trial there would pass whatever "
                                   "happened (set one of {})",
                                   IsolationName(level), kCheckKeys));
    }
  }
}

}  // namespace

void ReportNoExpect(LoadContext& ctx, const Ref& top) {
  if (HasProbe(ctx.scenario)) return;
  ctx.reader.Error(
      top.mark, "expect",
      fmt::format("no expect: a trial would pass whatever happened (add expect: with one "
                  "of {})",
                  kCheckKeys));
}

bool ReadExpectAndAt(LoadContext& ctx, const Ref& ref, ExpectSpec* expect,
                     std::map<IsolationLevel, ExpectSpec>* expect_at,
                     std::map<IsolationLevel, Ref>* at_refs_out) {
  std::vector<std::string_view> keys = ExpectKeys();
  keys.push_back("at");
  std::optional<Fields> f = ctx.reader.Map(ref, keys);
  if (!f) return false;
  *expect = ReadExpectFields(ctx, *f);
  std::map<IsolationLevel, Ref>& at_refs = *at_refs_out;
  if (const Ref* at = f->Get("at")) {
    std::optional<Fields> levels = ctx.reader.Map(*at, {});
    for (size_t i = 0; levels && i < levels->entries.size(); ++i) {
      const Fields::Entry& entry = levels->entries[i];
      std::optional<IsolationLevel> level = ParseIsolation(entry.key);
      if (!level) {
        ctx.reader.Error(entry.key_mark, entry.value.path,
                         fmt::format("unknown isolation level '{}' (expected read committed, "
                                     "repeatable read, serializable, or rc, rr, ser)",
                                     entry.key));
        continue;
      }
      if (expect_at->count(*level) != 0) {
        ctx.reader.Error(
            entry.key_mark, entry.value.path,
            fmt::format("isolation level '{}' has two overrides", IsolationName(*level)));
        continue;
      }
      std::optional<Fields> override_fields = ctx.reader.Map(entry.value, ExpectKeys());
      if (override_fields) (*expect_at)[*level] = ReadExpectFields(ctx, *override_fields);
      at_refs.emplace(*level, Ref{entry.value.node, entry.key_mark, entry.value.path});
      // The planner names a level as IsolationName() does, whatever the file wrote (rc, RR, …).
      std::string written = entry.value.path + ".";
      std::string canonical = fmt::format("{}.at.{}.", ref.path, IsolationName(*level));
      std::map<std::string, SourceLoc>& locs = ctx.scenario.field_locs;
      for (auto it = locs.lower_bound(written); it != locs.end() && written != canonical &&
                                                it->first.compare(0, written.size(), written) == 0;
           ++it) {
        locs[canonical + it->first.substr(written.size())] = it->second;
      }
    }
  }
  return true;
}

void ReadExpect(LoadContext& ctx, const Ref& ref) {
  size_t errors_before = ctx.reader.error_count();
  std::map<IsolationLevel, Ref> at_refs;
  if (!ReadExpectAndAt(ctx, ref, &ctx.scenario.expect, &ctx.scenario.expect_at, &at_refs)) return;
  // Only on a well-formed expect: a field that failed to read would look like a missing check.
  if (ctx.reader.error_count() == errors_before) CheckEveryLevel(ctx, ref, at_refs);
}

}  // namespace racelab::internal
