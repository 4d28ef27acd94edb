#include "harness/loader/planner.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>
#include <vector>

#include "harness/loader/expr.h"
#include "harness/loader/expr_rules.h"
#include "harness/loader/limits.h"
#include "harness/loader/order_planner.h"
#include "harness/loader/yaml_reader.h"

namespace racelab {
namespace {

using internal::NumberRule;

// Evaluates a scenario's Exprs with the resolved params; remembers every failure (the first
// limits::kMaxErrors of them, as the loader does: docs/scenario-format.md "All problems of a file
// are reported"). A check that compares evaluated values runs only when they evaluated: it takes
// failures() before evaluating them and compares after (a failed one reads 0).
class ParamResolver {
 public:
  ParamResolver(const Scenario& scenario, ParamMap params,
                std::map<std::string, std::string> from_set)
      : scenario_(scenario), params_(std::move(params)), from_set_(std::move(from_set)) {}

  const ParamMap& params() const { return params_; }
  bool ok() const { return failures_ == 0; }
  // Failures recorded so far (repeats of one message count once).
  size_t failures() const { return failures_; }
  // kUsage with one line per failure, then "FILE: … and more errors" past the limit; OK when none.
  Status status() const {
    if (ok()) return Status::Ok();
    std::string text = fmt::format("{}", fmt::join(errors_, "\n"));
    if (failures_ > errors_.size()) {
      text += fmt::format("\n{}: … and more errors (the loader stops after the first {})",
                          scenario_.loc.file, errors_.size());
    }
    return Status::Usage(text);
  }

  // Evaluates `text` (at field `path`) under `rule`; on failure records the error and returns 0.
  double Number(const Expr& text, const std::string& path, NumberRule rule) {
    Result<double> value = internal::EvalWithRule(text, params_, rule);
    if (value.ok()) return *value;
    Fail(text, path, value.status().message());
    return 0;
  }
  long Integer(const Expr& text, const std::string& path, NumberRule rule) {
    return std::lround(Number(text, path, rule));
  }
  // `text` with params substituted; a result over limits::kMaxSubstitutedBytes is an error at
  // `path` (`loc` when given, else where the loader saw `path`) and gives "".
  std::string Text(const std::string& text, const std::string& path,
                   const SourceLoc* loc = nullptr) {
    size_t size = SubstitutedSize(text, params_);
    if (size <= limits::kMaxSubstitutedBytes) return SubstituteParams(text, params_);
    Fail(text, path,
         fmt::format("has {} bytes once params are substituted; at most {}", size,
                     limits::kMaxSubstitutedBytes),
         loc);
    return "";
  }

  // "--set workers=abc: FILE:LINE:COL: PATH: message" (the --set part only when `text` uses an
  // overridden param; LINE:COL from `loc`, else from where the loader saw `path`, else none).
  void Fail(const std::string& text, const std::string& path, const std::string& message,
            const SourceLoc* loc = nullptr) {
    std::string prefix;
    for (const std::string& name : ReferencedNames(text)) {
      auto it = from_set_.find(name);
      if (it == from_set_.end()) continue;
      prefix += fmt::format("{}--set {}={}", prefix.empty() ? "" : " ", it->first,
                            internal::Clip(it->second));
    }
    if (!prefix.empty()) prefix += ": ";
    if (loc == nullptr) {
      auto it = scenario_.field_locs.find(path);
      if (it != scenario_.field_locs.end()) loc = &it->second;
    }
    std::string where = loc != nullptr && loc->line > 0
                            ? fmt::format("{}:{}:{}", scenario_.loc.file, loc->line, loc->column)
                            : scenario_.loc.file;
    std::string line = fmt::format("{}{}: {}: {}", prefix, where, path,
                                   internal::Clip(message, internal::kMaxMessageBytes));
    // Each level (and permutation) plans the same expectations: a problem is reported once.
    if (!seen_.insert(line).second) return;
    ++failures_;
    if (errors_.size() < limits::kMaxErrors) errors_.push_back(std::move(line));
  }

 private:
  const Scenario& scenario_;
  ParamMap params_;
  std::map<std::string, std::string> from_set_;
  std::vector<std::string> errors_;
  std::set<std::string> seen_;
  size_t failures_ = 0;
};

// A wait of `ms` at `path` must fit in the trial deadline, or every trial would end at it.
// `before`: ev.failures() before `ms` was evaluated (a failed evaluation is not checked again).
void CheckFitsTrial(ParamResolver& ev, size_t before, const Expr& text, const std::string& path,
                    long ms, long trial_timeout_ms, const SourceLoc* loc, const char* what) {
  if (ev.failures() != before || ms <= trial_timeout_ms) return;
  ev.Fail(text, path,
          fmt::format("{} of {} ms cannot end before the trial deadline (--trial-timeout-ms {}): "
                      "every trial would end at the deadline; shorten it or raise the deadline",
                      what, ms, trial_timeout_ms),
          loc);
}

// Bytes of text one instance of a planned role holds (for limits::kMaxPlanBytes).
size_t TextBytes(const PlannedSession& planned) {
  size_t bytes = planned.role.size();
  for (const auto& [name, value] : planned.settings) bytes += name.size() + value.size();
  for (const PlannedStep& step : planned.steps) {
    bytes += sizeof(PlannedStep) + step.name.size() + step.sql.size() + step.when.size() +
             step.barrier.size() + step.target.size() + step.ask.size();
    for (const std::string& c : step.capture) bytes += c.size();
  }
  return bytes;
}

PlannedSession PlanRole(ParamResolver& ev, const SessionSpec& role, const std::string& path,
                        long trial_timeout_ms) {
  PlannedSession planned;
  planned.role = role.name;
  for (size_t a = 0; a < role.exec.size(); ++a)
    planned.exec.push_back(ev.Text(role.exec[a], fmt::format("{}.exec[{}]", path, a)));
  planned.program = role.program;
  planned.exec_dir = role.exec_dir;
  planned.node = role.node;
  planned.node_loc = role.node_loc;
  if (!role.node.empty()) planned.node_field = path + ".node";
  for (const auto& [name, value] : role.settings) {
    std::string value_path = fmt::format("{}.settings.{}", path, name);
    planned.settings.emplace_back(name, ev.Text(value, value_path));
  }
  if (role.retry) {
    const RetrySpec& r = *role.retry;
    std::string retry_path = path + ".retry";
    PlannedRetry retry;
    retry.on = r.on;
    const size_t before = ev.failures();
    retry.attempts = ev.Integer(r.attempts, retry_path + ".attempts", NumberRule::kAttempts);
    retry.initial_ms =
        ev.Integer(r.initial_ms, retry_path + ".initial_ms", NumberRule::kDurationMs);
    retry.factor = ev.Number(r.factor, retry_path + ".factor", NumberRule::kFactor);
    retry.cap_ms = ev.Integer(r.cap_ms, retry_path + ".cap_ms", NumberRule::kDurationMs);
    CheckFitsTrial(ev, before, r.initial_ms, retry_path + ".initial_ms", retry.initial_ms,
                   trial_timeout_ms, nullptr, "a first retry backoff");
    planned.retry = retry;
  }
  for (size_t j = 0; j < role.steps.size(); ++j) {
    const Step& step = role.steps[j];
    std::string step_path = fmt::format("{}.steps[{}]", path, j);
    PlannedStep p;
    p.kind = step.kind;
    p.name = step.name;
    p.sql = ev.Text(step.sql, step_path + ".sql", &step.loc);
    p.capture = step.capture;
    p.when = ev.Text(step.when, step_path + ".when", &step.loc);
    p.on_error = step.on_error;
    p.barrier = step.barrier;
    p.target = step.target;
    p.isolation = step.isolation;
    p.read_only = step.read_only;
    p.deferrable = step.deferrable;
    p.ask = ev.Text(step.ask, step_path + ".ask", &step.loc);
    if (step.kind == StepKind::kSleep) {
      const size_t before = ev.failures();
      p.sleep_ms = ev.Integer(step.sleep_ms, step_path + ".sleep_ms", NumberRule::kDurationMs);
      CheckFitsTrial(ev, before, step.sleep_ms, step_path + ".sleep_ms", p.sleep_ms,
                     trial_timeout_ms, &step.loc, "a sleep");
    }
    if (step.kind == StepKind::kProbe) {
      for (const std::string& row : step.equals)
        p.equals.push_back(ev.Text(row, step_path + ".equals", &step.loc));
      p.read_rows = static_cast<int>(p.equals.size()) + 1;  // one more: a longer result shows
    }
    if (!step.timeout_ms.empty()) {  // await_blocked, and a statement's own deadline
      const size_t before = ev.failures();
      p.timeout_ms = ev.Integer(step.timeout_ms, step_path + ".timeout_ms", NumberRule::kTimeoutMs);
      CheckFitsTrial(ev, before, step.timeout_ms, step_path + ".timeout_ms", p.timeout_ms,
                     trial_timeout_ms, &step.loc, "a wait (timeout_ms)");
    }
    planned.steps.push_back(std::move(p));
  }
  return planned;
}

// Sets `field` from `over` when the override sets it; `path` names where the value came from.
template <typename T>
void Merge(std::optional<T>& field, const std::optional<T>& over, std::string& path,
           const std::string& over_path) {
  if (!over) return;
  field = over;
  path = over_path;
}

// Where each expectation field was written ("expect.winners", "expect.at.serializable.winners"):
// the planner's errors point there.
struct ExpectPaths {
  std::string winners = "expect.winners", sqlstates = "expect.sqlstates",
              lock_waits = "expect.lock_waits", step_rows = "expect.step_rows",
              blocked = "expect.blocked", reads = "expect.reads", final = "expect.final",
              errors = "expect.errors", one_of = "expect.one_of", timing = "expect.timing";
  // Every path under `prefix` (an alternative of one_of: "expect.one_of[1]").
  static ExpectPaths Under(const std::string& prefix) {
    return {prefix + ".winners",   prefix + ".sqlstates", prefix + ".lock_waits",
            prefix + ".step_rows", prefix + ".blocked",   prefix + ".reads",
            prefix + ".final",     prefix + ".errors",    prefix + ".one_of",
            prefix + ".timing"};
  }
};

// A min_ms above its max_ms can never hold: refused with both expressions and their values.
void CheckMinMax(ParamResolver& ev, size_t before, const std::optional<Expr>& min_text,
                 const std::optional<Expr>& max_text, std::optional<double> min,
                 std::optional<double> max, const std::string& path, const SourceLoc& loc) {
  if (ev.failures() != before || !min || !max || *min <= *max) return;
  ev.Fail(*min_text + " " + *max_text, path,
          fmt::format("min_ms '{}' = {} is greater than max_ms '{}' = {}", *min_text, *min,
                      *max_text, *max),
          &loc);
}

// The number of instances of `role` among the planned sessions.
long InstancesOf(const std::vector<PlannedSession>& sessions, const std::string& role) {
  return std::count_if(sessions.begin(), sessions.end(),
                       [&](const PlannedSession& s) { return s.role == role; });
}

// A count: exactly n, or {at_least, at_most} (written at `path`.at_least / .at_most).
CountRange PlanCount(ParamResolver& ev, const CountExpr& count, const std::string& path) {
  const size_t before = ev.failures();
  if (count.exact) return CountRange(ev.Integer(count.at_least, path, NumberRule::kCount));
  long low = count.at_least.empty()
                 ? 0
                 : ev.Integer(count.at_least, path + ".at_least", NumberRule::kCount);
  std::optional<long> high;
  if (!count.at_most.empty())
    high = ev.Integer(count.at_most, path + ".at_most", NumberRule::kCount);
  if (ev.failures() == before && high && low > *high) {
    ev.Fail(count.at_least + " " + count.at_most, path + ".at_least",
            fmt::format("at_least '{}' = {} is greater than at_most '{}' = {}: no count could pass",
                        count.at_least, low, count.at_most, *high));
  }
  return CountRange::Between(low, high);
}

// `spec` (already merged for the level) planned; `sessions` give each role's instance count (the
// default of errors[].sessions).
PlannedExpect PlanFields(ParamResolver& ev, const ExpectSpec& spec, const ExpectPaths& paths,
                         const std::vector<PlannedSession>& sessions) {
  PlannedExpect out;
  if (spec.winners) out.winners = PlanCount(ev, *spec.winners, paths.winners);
  if (spec.sqlstates) {
    out.sqlstates.emplace();
    for (const auto& [code, count] : *spec.sqlstates) {
      (*out.sqlstates)[code] = PlanCount(ev, count, fmt::format("{}.{}", paths.sqlstates, code));
    }
  }
  out.distinct_claims = spec.distinct_claims;
  if (spec.lock_waits) out.lock_waits = PlanCount(ev, *spec.lock_waits, paths.lock_waits);
  for (size_t i = 0; spec.step_rows && i < spec.step_rows->size(); ++i) {
    const StepRowsSpec& rows = (*spec.step_rows)[i];
    std::string path = fmt::format("{}[{}]", paths.step_rows, i);
    out.step_rows.push_back(
        {rows.step,
         rows.sqlstate.empty() ? ev.Integer(rows.rows, path + ".rows", NumberRule::kCount) : 0,
         PlanCount(ev, rows.sessions, path + ".sessions"), rows.sqlstate});
  }
  for (size_t i = 0; spec.blocked && i < spec.blocked->size(); ++i) {
    const BlockedSpec& b = (*spec.blocked)[i];
    std::string path = fmt::format("{}[{}]", paths.blocked, i);
    PlannedBlocked planned{b.session, b.step, std::nullopt, std::nullopt, b.by};
    const size_t before = ev.failures();
    if (b.min_ms) planned.min_ms = ev.Number(*b.min_ms, path + ".min_ms", NumberRule::kAnyMs);
    if (b.max_ms) planned.max_ms = ev.Number(*b.max_ms, path + ".max_ms", NumberRule::kAnyMs);
    CheckMinMax(ev, before, b.min_ms, b.max_ms, planned.min_ms, planned.max_ms, path, b.loc);
    if (b.instances) {
      const size_t evaluated = ev.failures();
      planned.instances = ev.Integer(*b.instances, path + ".instances", NumberRule::kCount);
      // More instances than the role has could never be met: refused, not a check that always
      // fails.
      const long count = InstancesOf(sessions, b.session);
      if (ev.failures() == evaluated && *planned.instances > count) {
        ev.Fail(*b.instances, path + ".instances",
                fmt::format("instances '{}' = {} is more than session '{}' has ({})", *b.instances,
                            *planned.instances, b.session, count),
                &b.loc);
      }
    }
    planned.wait_event = b.wait_event;
    out.blocked.push_back(std::move(planned));
  }
  for (size_t i = 0; spec.timing && i < spec.timing->size(); ++i) {
    const TimingSpec& t = (*spec.timing)[i];
    std::string path = fmt::format("{}[{}]", paths.timing, i);
    PlannedTiming planned{t.session,    t.step,       t.after_session, t.after_step,
                          std::nullopt, std::nullopt, t.waited};
    const size_t before = ev.failures();
    if (t.min_ms) planned.min_ms = ev.Number(*t.min_ms, path + ".min_ms", NumberRule::kAnyMs);
    if (t.max_ms) planned.max_ms = ev.Number(*t.max_ms, path + ".max_ms", NumberRule::kAnyMs);
    CheckMinMax(ev, before, t.min_ms, t.max_ms, planned.min_ms, planned.max_ms, path, t.loc);
    if (!t.after_session.empty()) {
      const long count = InstancesOf(sessions, t.after_session);
      if (count != 1) {
        ev.Fail("", path + ".after",
                fmt::format("after names {}.{}, but session '{}' has {} instances: the step to "
                            "time from must be "
                            "one session's",
                            t.after_session, t.after_step, t.after_session, count),
                &t.loc);
      }
    }
    out.timing.push_back(std::move(planned));
  }
  for (size_t i = 0; spec.reads && i < spec.reads->size(); ++i) {
    const ReadSpec& r = (*spec.reads)[i];
    std::string path = fmt::format("{}[{}].equals", paths.reads, i);
    PlannedRead planned{r.session, r.step, {}};
    for (const std::string& row : r.equals) planned.equals.push_back(ev.Text(row, path, &r.loc));
    out.reads.push_back(std::move(planned));
  }
  for (size_t i = 0; spec.final && i < spec.final->size(); ++i) {
    const FinalCheck& f = (*spec.final)[i];
    std::string path = fmt::format("{}[{}]", paths.final, i);
    PlannedFinal planned{
        ev.Text(f.sql, path + ".sql", &f.loc), ev.Text(f.equals, path + ".equals", &f.loc), {}};
    for (const std::string& value : f.any_of)
      planned.any_of.push_back(ev.Text(value, path + ".any_of", &f.loc));
    out.final.push_back(std::move(planned));
  }
  for (size_t i = 0; spec.errors && i < spec.errors->size(); ++i) {
    const ErrorSpec& e = (*spec.errors)[i];
    const long instances = InstancesOf(sessions, e.session);
    const std::string path = fmt::format("{}[{}].sessions", paths.errors, i);
    const size_t before = ev.failures();
    const CountRange count = e.sessions ? PlanCount(ev, *e.sessions, path) : CountRange(instances);
    // More sessions of a role than it has could never fail so: refused, as blocked.instances is.
    if (ev.failures() == before && e.sessions && !e.session.empty() && count.min > instances) {
      const std::string text = e.sessions->exact ? e.sessions->at_least
                                                 : e.sessions->at_least + " " + e.sessions->at_most;
      ev.Fail(text, e.sessions->exact ? path : path + ".at_least",
              fmt::format("{} '{}' = {} is more than session '{}' has ({})",
                          e.sessions->exact ? "sessions" : "at_least", e.sessions->at_least,
                          count.min, e.session, instances),
              &e.loc);
    }
    out.errors.push_back({e.session, e.step, e.sqlstate, e.message, e.detail, count});
  }
  for (size_t i = 0; spec.one_of && i < spec.one_of->size(); ++i) {
    const ExpectAlternative& alt = (*spec.one_of)[i];
    std::string path = fmt::format("{}[{}]", paths.one_of, i);
    PlannedAlternative planned{
        alt.name, PlanFields(ev, *alt.checks, ExpectPaths::Under(path), sessions), {}};
    if (alt.min_fraction)
      planned.min_fraction =
          ev.Number(*alt.min_fraction, path + ".min_fraction", NumberRule::kFraction);
    out.one_of.push_back(std::move(planned));
  }
  return out;
}

// The expectations at `level`: the file's, its `at:` for the level, then (an ordered scenario) the
// permutation's `expect` and its `at:` (written at `perm_path`, e.g. "order[1]").
PlannedExpect PlanExpect(ParamResolver& ev, const Scenario& s, IsolationLevel level,
                         const std::vector<PlannedSession>& sessions,
                         const Permutation* perm = nullptr, const std::string& perm_path = "") {
  ExpectSpec spec = s.expect;
  ExpectPaths paths;
  std::vector<std::pair<const ExpectSpec*, std::string>> overrides;  // in the order they apply
  if (auto it = s.expect_at.find(level); it != s.expect_at.end()) {
    overrides.emplace_back(&it->second, fmt::format("expect.at.{}.", IsolationName(level)));
  }
  if (perm != nullptr && perm->expect)
    overrides.emplace_back(&*perm->expect, perm_path + ".expect.");
  if (perm != nullptr) {
    if (auto it = perm->expect_at.find(level); it != perm->expect_at.end()) {
      overrides.emplace_back(&it->second,
                             fmt::format("{}.expect.at.{}.", perm_path, IsolationName(level)));
    }
  }
  for (const auto& [over_ptr, at] : overrides) {
    const ExpectSpec& over = *over_ptr;
    Merge(spec.winners, over.winners, paths.winners, at + "winners");
    Merge(spec.sqlstates, over.sqlstates, paths.sqlstates, at + "sqlstates");
    if (over.distinct_claims) spec.distinct_claims = over.distinct_claims;
    Merge(spec.lock_waits, over.lock_waits, paths.lock_waits, at + "lock_waits");
    Merge(spec.step_rows, over.step_rows, paths.step_rows, at + "step_rows");
    Merge(spec.blocked, over.blocked, paths.blocked, at + "blocked");
    Merge(spec.reads, over.reads, paths.reads, at + "reads");
    Merge(spec.final, over.final, paths.final, at + "final");
    Merge(spec.errors, over.errors, paths.errors, at + "errors");
    Merge(spec.one_of, over.one_of, paths.one_of, at + "one_of");
    Merge(spec.timing, over.timing, paths.timing, at + "timing");
  }
  return PlanFields(ev, spec, paths, sessions);
}

// True when a session of `item` has a probe step: it checks what it reads, at every level.
bool HasProbe(const PlanItem& item) {
  for (const PlannedSession& session : item.sessions) {
    for (const PlannedStep& step : session.steps) {
      if (step.kind == StepKind::kProbe) return true;
    }
  }
  return false;
}

}  // namespace

Result<std::vector<PlanItem>> ExpandScenario(const Scenario& any_engine,
                                             const PlanOptions& options) {
  const Scenario* chosen =
      options.engine.empty() ? &any_engine : any_engine.ForEngine(options.engine);
  if (chosen == nullptr) {
    return Status::Usage(fmt::format("{}: scenario '{}' does not run on {} (its engines: {})",
                                     any_engine.loc.file, any_engine.name, options.engine,
                                     fmt::join(any_engine.engines, ", ")));
  }
  const Scenario& scenario = *chosen;
  const std::string& file = scenario.loc.file;
  if (options.trials < 1) {
    return Status::Usage(fmt::format("--trials {}: must be >= 1", options.trials));
  }
  if (options.trial_timeout_ms < 1) {
    return Status::Usage(
        fmt::format("--trial-timeout-ms {}: must be >= 1", options.trial_timeout_ms));
  }
  ParamMap params;
  std::map<std::string, std::string> from_set;
  for (const auto& [name, value] : scenario.params) params[name] = value;
  for (const auto& [name, value] : options.set) {
    if (params.count(name) == 0) continue;  // not declared by this scenario: ignored
    // Where the param is declared: "FILE:LINE:COL: params.NAME".
    std::string where = fmt::format("{}: params.{}", file, name);
    if (auto it = scenario.field_locs.find("params." + name); it != scenario.field_locs.end()) {
      where = fmt::format("{}:{}:{}: params.{}", file, it->second.line, it->second.column, name);
    }
    if (value.size() > limits::kMaxLineBytes) {
      return Status::Usage(fmt::format("--set {}={}: {}: the value has {} bytes; at most {}", name,
                                       internal::Clip(value), where, value.size(),
                                       limits::kMaxLineBytes));
    }
    if (value.find("${") != std::string::npos) {
      return Status::Usage(
          fmt::format("--set {}={}: {}: a value may not contain '${{'", name, value, where));
    }
    params[name] = value;
    from_set[name] = value;
  }
  ParamResolver ev(scenario, params, from_set);

  PlanItem base;
  base.scenario = scenario.name;
  base.title = scenario.title;
  base.teaches = scenario.teaches;
  base.file = file;
  base.tags = scenario.tags;
  base.engine = scenario.engine;
  for (const auto& [name, unused] : scenario.params) base.params.emplace_back(name, params[name]);
  base.trials = options.trials;
  base.setup = ev.Text(scenario.setup, "setup");
  base.teardown = ev.Text(scenario.teardown, "teardown");
  base.reset = ev.Text(scenario.reset, "reset");
  size_t plan_bytes = 0;
  for (size_t i = 0; i < scenario.sessions.size(); ++i) {
    const SessionSpec& role = scenario.sessions[i];
    std::string path = fmt::format("sessions[{}]", i);
    long count = ev.Integer(role.count, path + ".count", NumberRule::kSessionCount);
    if (ev.ok() && base.sessions.size() + static_cast<size_t>(count) >
                       static_cast<size_t>(limits::kMaxSessionInstances)) {
      ev.Fail(role.count, path + ".count",
              fmt::format("'{}' = {} makes more than {} sessions in total (each is a thread and "
                          "a connection)",
                          role.count, count, limits::kMaxSessionInstances),
              &role.loc);
    }
    PlannedSession planned = PlanRole(ev, role, path, options.trial_timeout_ms);
    plan_bytes += TextBytes(planned) * static_cast<size_t>(ev.ok() ? count : 0);
    if (ev.ok() && plan_bytes > limits::kMaxPlanBytes) {
      ev.Fail(role.count, path + ".count",
              fmt::format("'{}' = {} instances of this session make the plan hold more than {} "
                          "bytes of text",
                          role.count, count, limits::kMaxPlanBytes),
              &role.loc);
    }
    for (long n = 1; ev.ok() && n <= count; ++n) {
      PlannedSession instance = planned;
      instance.index = static_cast<int>(n);
      instance.label = count == 1 ? role.name : fmt::format("{}.{}", role.name, n);
      base.sessions.push_back(std::move(instance));
    }
  }
  const OutcomeSpec& outcome = scenario.outcome;
  base.outcome.win_step = outcome.win_step;
  if (!outcome.win_step.empty()) {
    base.outcome.win_rows = ev.Integer(outcome.win_rows, "outcome.win.rows", NumberRule::kCount);
  }
  base.outcome.win_committed = outcome.win_committed;
  base.outcome.claim_step = outcome.claim_step;
  base.outcome.claim_column = outcome.claim_column;
  if (!ev.ok()) return ev.status();

  const std::vector<IsolationLevel>& levels = !options.isolation.empty()    ? options.isolation
                                              : !scenario.isolation.empty() ? scenario.isolation
                                                                            : AllIsolationLevels();
  std::vector<PlanItem> items;
  // An ordered scenario: one item per level and permutation (harness/loader/order_planner.h).
  const size_t perms = scenario.order ? scenario.order->permutations.size() : 1;
  for (size_t k = 0; k < perms * levels.size(); ++k) {
    const IsolationLevel level = levels[k / perms];
    const Permutation* perm = scenario.order ? &scenario.order->permutations[k % perms] : nullptr;
    PlanItem item = base;
    item.isolation = level;
    item.expect =
        PlanExpect(ev, scenario, level, item.sessions, perm, fmt::format("order[{}]", k % perms));
    if (perm != nullptr) {
      if (Status s = ApplyPermutation(*perm, &item); !s.ok()) return s;
      item.permutation = static_cast<int>(k % perms) + 1;
      item.permutation_loc = perm->loc;
    }
    // A step an `expect.reads` names keeps its rows (one more than expected: a longer result
    // shows).
    std::vector<PlannedRead> all_reads = item.expect.reads;
    for (const PlannedAlternative& alt : item.expect.one_of) {
      all_reads.insert(all_reads.end(), alt.checks.reads.begin(), alt.checks.reads.end());
    }
    for (const PlannedRead& read : all_reads) {
      for (PlannedSession& session : item.sessions) {
        if (!read.session.empty() && session.role != read.session) continue;
        for (PlannedStep& step : session.steps) {
          if (step.name == read.step) {
            step.read_rows = std::max(step.read_rows, static_cast<int>(read.equals.size()) + 1);
          }
        }
      }
    }
    const PlannedExpect& e = item.expect;
    if (ev.ok() && !e.winners && !e.sqlstates && !e.distinct_claims.value_or(false) &&
        !e.lock_waits && e.step_rows.empty() && e.blocked.empty() && e.reads.empty() &&
        e.final.empty() && e.errors.empty() && e.one_of.empty() && e.timing.empty() &&
        !HasProbe(item)) {
      // The loader refuses this for the file's own levels; --isolation can ask for another one.
      ev.Fail("", "expect",
              fmt::format("nothing to check at {}: a trial there would pass whatever happened",
                          IsolationName(level)));
    }
    if (!ev.ok()) return ev.status();
    items.push_back(std::move(item));
  }
  return items;
}

}  // namespace racelab
