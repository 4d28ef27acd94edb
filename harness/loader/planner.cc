#include "harness/loader/planner.h"

#include <fmt/format.h>

#include <cmath>
#include <utility>

#include "harness/loader/expr.h"
#include "harness/loader/expr_rules.h"

namespace racelab {
namespace {

using internal::NumberRule;

// Each session instance is a thread and a connection: a typo such as --set workers=10000 must not
// try to open them all.
constexpr size_t kMaxSessions = 1000;

// Evaluates a scenario's Exprs with the resolved params; remembers the first failure.
class Evaluator {
 public:
  Evaluator(const Scenario& scenario, ParamMap params, std::map<std::string, std::string> from_set)
      : scenario_(scenario), params_(std::move(params)), from_set_(std::move(from_set)) {}

  const ParamMap& params() const { return params_; }
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  // Evaluates `text` (at field `path`) under `rule`; on failure records the error and returns 0.
  double Number(const Expr& text, const std::string& path, NumberRule rule) {
    if (!ok()) return 0;
    Result<double> value = internal::EvalWithRule(text, params_, rule);
    if (value.ok()) return *value;
    Fail(text, path, value.status().message());
    return 0;
  }
  long Integer(const Expr& text, const std::string& path, NumberRule rule) {
    return std::lround(Number(text, path, rule));
  }
  std::string Text(const std::string& text) const { return SubstituteParams(text, params_); }

  // "--set workers=abc: FILE: PATH: message" (the --set part only when `text` uses an overridden
  // param).
  void Fail(const std::string& text, const std::string& path, const std::string& message) {
    if (!ok()) return;
    std::string prefix;
    for (const std::string& name : ReferencedNames(text)) {
      auto it = from_set_.find(name);
      if (it == from_set_.end()) continue;
      prefix += fmt::format("{}--set {}={}", prefix.empty() ? "" : " ", it->first, it->second);
    }
    if (!prefix.empty()) prefix += ": ";
    status_ = Status::Usage(fmt::format("{}{}: {}: {}", prefix, scenario_.loc.file, path, message));
  }

 private:
  const Scenario& scenario_;
  ParamMap params_;
  std::map<std::string, std::string> from_set_;
  Status status_;
};

PlannedSession PlanRole(Evaluator& ev, const SessionSpec& role, const std::string& path) {
  PlannedSession planned;
  planned.role = role.name;
  for (const auto& [name, value] : role.settings)
    planned.settings.emplace_back(name, ev.Text(value));
  if (role.retry) {
    const RetrySpec& r = *role.retry;
    std::string retry_path = path + ".retry";
    PlannedRetry retry;
    retry.on = r.on;
    retry.attempts = ev.Integer(r.attempts, retry_path + ".attempts", NumberRule::kPositiveCount);
    retry.initial_ms =
        ev.Integer(r.initial_ms, retry_path + ".initial_ms", NumberRule::kNonNegative);
    retry.factor = ev.Number(r.factor, retry_path + ".factor", NumberRule::kAtLeastOne);
    retry.cap_ms = ev.Integer(r.cap_ms, retry_path + ".cap_ms", NumberRule::kNonNegative);
    planned.retry = retry;
  }
  for (size_t j = 0; j < role.steps.size(); ++j) {
    const Step& step = role.steps[j];
    std::string step_path = fmt::format("{}.steps[{}]", path, j);
    PlannedStep p;
    p.kind = step.kind;
    p.name = step.name;
    p.sql = ev.Text(step.sql);
    p.capture = step.capture;
    p.when = ev.Text(step.when);
    p.on_error = step.on_error;
    p.barrier = step.barrier;
    p.target = step.target;
    if (step.kind == StepKind::kSleep) {
      p.sleep_ms = ev.Integer(step.sleep_ms, step_path + ".sleep_ms", NumberRule::kNonNegative);
    }
    if (step.kind == StepKind::kAwaitBlocked && !step.timeout_ms.empty()) {
      p.timeout_ms =
          ev.Integer(step.timeout_ms, step_path + ".timeout_ms", NumberRule::kAtLeastOne);
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

PlannedExpect PlanExpect(Evaluator& ev, const Scenario& s, IsolationLevel level) {
  ExpectSpec spec = s.expect;
  struct Paths {
    std::string winners = "expect.winners", sqlstates = "expect.sqlstates",
                lock_waits = "expect.lock_waits", step_rows = "expect.step_rows",
                blocked = "expect.blocked", final = "expect.final";
  } paths;
  if (auto it = s.expect_at.find(level); it != s.expect_at.end()) {
    const ExpectSpec& over = it->second;
    std::string at = fmt::format("expect.at.{}.", IsolationName(level));
    Merge(spec.winners, over.winners, paths.winners, at + "winners");
    Merge(spec.sqlstates, over.sqlstates, paths.sqlstates, at + "sqlstates");
    if (over.distinct_claims) spec.distinct_claims = over.distinct_claims;
    Merge(spec.lock_waits, over.lock_waits, paths.lock_waits, at + "lock_waits");
    Merge(spec.step_rows, over.step_rows, paths.step_rows, at + "step_rows");
    Merge(spec.blocked, over.blocked, paths.blocked, at + "blocked");
    Merge(spec.final, over.final, paths.final, at + "final");
  }
  PlannedExpect out;
  if (spec.winners) out.winners = ev.Integer(*spec.winners, paths.winners, NumberRule::kCount);
  if (spec.sqlstates) {
    out.sqlstates.emplace();
    for (const auto& [code, count] : *spec.sqlstates) {
      (*out.sqlstates)[code] =
          ev.Integer(count, fmt::format("{}.{}", paths.sqlstates, code), NumberRule::kCount);
    }
  }
  out.distinct_claims = spec.distinct_claims;
  if (spec.lock_waits) {
    out.lock_waits = ev.Integer(*spec.lock_waits, paths.lock_waits, NumberRule::kCount);
  }
  for (size_t i = 0; spec.step_rows && i < spec.step_rows->size(); ++i) {
    const StepRowsSpec& rows = (*spec.step_rows)[i];
    std::string path = fmt::format("{}[{}]", paths.step_rows, i);
    out.step_rows.push_back({rows.step, ev.Integer(rows.rows, path + ".rows", NumberRule::kCount),
                             ev.Integer(rows.sessions, path + ".sessions", NumberRule::kCount)});
  }
  for (size_t i = 0; spec.blocked && i < spec.blocked->size(); ++i) {
    const BlockedSpec& b = (*spec.blocked)[i];
    std::string path = fmt::format("{}[{}]", paths.blocked, i);
    PlannedBlocked planned{b.session, b.step, std::nullopt, std::nullopt, b.by};
    if (b.min_ms) planned.min_ms = ev.Number(*b.min_ms, path + ".min_ms", NumberRule::kAny);
    if (b.max_ms) planned.max_ms = ev.Number(*b.max_ms, path + ".max_ms", NumberRule::kAny);
    if (ev.ok() && planned.min_ms && planned.max_ms && *planned.min_ms > *planned.max_ms) {
      ev.Fail(*b.min_ms + " " + *b.max_ms, path,
              fmt::format("min_ms '{}' = {} is greater than max_ms '{}' = {}", *b.min_ms,
                          *planned.min_ms, *b.max_ms, *planned.max_ms));
    }
    out.blocked.push_back(std::move(planned));
  }
  for (size_t i = 0; spec.final && i < spec.final->size(); ++i) {
    const FinalCheck& f = (*spec.final)[i];
    out.final.push_back({ev.Text(f.sql), ev.Text(f.equals)});
  }
  return out;
}

}  // namespace

Result<std::vector<PlanItem>> ExpandScenario(const Scenario& scenario, const PlanOptions& options) {
  const std::string& file = scenario.loc.file;
  if (options.trials < 1) {
    return Status::Usage(fmt::format("--trials {}: must be >= 1", options.trials));
  }
  ParamMap params;
  std::map<std::string, std::string> from_set;
  for (const auto& [name, value] : scenario.params) params[name] = value;
  for (const auto& [name, value] : options.set) {
    if (params.count(name) == 0) continue;  // not declared by this scenario: ignored
    if (value.find("${") != std::string::npos) {
      return Status::Usage(
          fmt::format("--set {}={}: {}: a value may not contain '${{'", name, value, file));
    }
    params[name] = value;
    from_set[name] = value;
  }
  Evaluator ev(scenario, params, from_set);

  PlanItem base;
  base.scenario = scenario.name;
  base.title = scenario.title;
  base.teaches = scenario.teaches;
  base.file = file;
  base.tags = scenario.tags;
  for (const auto& [name, unused] : scenario.params) base.params.emplace_back(name, params[name]);
  base.trials = options.trials;
  base.setup = ev.Text(scenario.setup);
  base.teardown = ev.Text(scenario.teardown);
  for (size_t i = 0; i < scenario.sessions.size(); ++i) {
    const SessionSpec& role = scenario.sessions[i];
    std::string path = fmt::format("sessions[{}]", i);
    long count = ev.Integer(role.count, path + ".count", NumberRule::kPositiveCount);
    if (ev.ok() && base.sessions.size() + static_cast<size_t>(count) > kMaxSessions) {
      ev.Fail(role.count, path + ".count",
              fmt::format("'{}' = {} makes more than {} sessions in total", role.count, count,
                          kMaxSessions));
    }
    PlannedSession planned = PlanRole(ev, role, path);
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
  for (IsolationLevel level : levels) {
    PlanItem item = base;
    item.isolation = level;
    item.expect = PlanExpect(ev, scenario, level);
    const PlannedExpect& e = item.expect;
    if (ev.ok() && !e.winners && !e.sqlstates && !e.distinct_claims.value_or(false) && !e.lock_waits &&
        e.step_rows.empty() && e.blocked.empty() && e.final.empty()) {
      // The loader refuses this for the file's own levels; --isolation can ask for another one.
      ev.Fail("", "expect", fmt::format("nothing to check at {}: a trial there would pass whatever happened",
                                        IsolationName(level)));
    }
    if (!ev.ok()) return ev.status();
    items.push_back(std::move(item));
  }
  return items;
}

}  // namespace racelab
