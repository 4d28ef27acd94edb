// Verdicts and aggregates (stage 4): what reporters print.
//
// Filled by: the evaluator (harness/eval). Read by: reporters (reports/) and the CLI's exit code.
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/model/anomaly_matrix.h"
#include "harness/model/plan.h"
#include "harness/model/trial_result.h"

namespace racelab {

// A trial's verdict is pass, fail or error. A result's may also be kInterrupted: a stop request
// (SIGINT/SIGTERM) cut it short and every trial that ran passed — neither a pass (not all its
// trials ran) nor an error (nothing faulted). Precedence over a result's trials: error, fail,
// interrupted, pass.
enum class Verdict { kPass, kFail, kError, kInterrupted };
inline const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kPass:
      return "pass";
    case Verdict::kFail:
      return "fail";
    case Verdict::kError:
      return "error";
    case Verdict::kInterrupted:
      return "interrupted";
  }
  return "error";
}

// One expectation checked on one trial.
struct Check {
  std::string text;  // stable, human: "winners = 1", "SQLSTATE 40001 count = 1"
  bool passed = false;
  std::string detail;  // what was seen when it failed: "winners = 2"
  // Only for a `blocked` or `timing` check with max_ms: how far this trial's measured lateness
  // raised that upper bound, in ms (the largest over the role's instances;
  // harness/eval/lateness.h). Else 0.
  double widened_by_ms = 0;
};

struct TrialVerdict {
  TrialResult result;         // with SessionResult::won/claim filled
  std::vector<Check> checks;  // same order and texts in every trial of a PlanItem
  Verdict verdict = Verdict::kPass;
  // `one_of`: 0-based indexes (PlannedExpect::one_of) of the alternatives that held in this trial,
  // in order; the first is the one the reports name. Empty without one_of or when none held.
  std::vector<int> alternatives_held;
};

// p50/p95/max of a sample; all zero when the sample is empty (count says so).
struct Percentiles {
  double p50 = 0, p95 = 0, max = 0;
  size_t count = 0;
};

struct ExpectationTally {
  std::string text;
  int passed = 0;                // trials in which it held
  int failed = 0;                // trials in which it did not
  std::string first_failure;     // detail of the first failing trial, with its trial number
  double max_widened_by_ms = 0;  // largest Check::widened_by_ms over the trials
  // Set on a result-level tally (a one_of alternative's min_fraction,
  // harness/eval/outcome_checks.h): it holds when passed >= min_fraction × (passed + failed), so
  // some failed trials are allowed.
  std::optional<double> min_fraction;
  // Whether the expectation failed over the result: failed > 0, or too few passes for min_fraction.
  bool Failing() const {
    if (!min_fraction) return failed > 0;
    return static_cast<double>(passed) + 1e-9 <
           *min_fraction * static_cast<double>(passed + failed);
  }
};

// One PlanItem after all its trials: the "results" entries of the JSON report
// (docs/report-schema.md).
struct ResultSummary {
  const PlanItem* item = nullptr;  // REQUIRES: outlives the summary (owned by the Plan)
  int trials = 0;
  Verdict verdict = Verdict::kPass;
  std::map<int, int> winners;            // n winners -> trials
  std::map<std::string, int> sqlstates;  // SQLSTATE -> occurrences over all trials (every attempt)
  // The same errors by the name the summary tables show (harness/model/error_key.h): the SQLSTATE,
  // or the engine's code when the SQLSTATE is generic ("SQLITE_BUSY", MariaDB "1205" instead of
  // HY000).
  std::map<std::string, int> errors;
  int retries = 0;         // transaction retries (`retry`): sum of attempts - 1
  Percentiles blocked_ms;  // over statements seen in a lock wait
  Percentiles skew_us;     // over barrier releases
  int releases_not_simultaneous =
      0;  // barrier releases not simultaneous (harness/run/release_check.h)
  std::vector<ExpectationTally> expectations;
  // `one_of`: per alternative (PlannedExpect::one_of order), the trials in which it held.
  std::vector<int> alternative_trials;
  // The trials kept for the reports (harness/eval/result_accumulator.h, `--details`), by trial
  // number: every trial (all), the failing ones (at most kMaxFailedTrialsKept) plus the
  // representative (failed), or none. trial_details_omitted counts the trials run but not kept.
  std::vector<TrialVerdict> trial_details;
  int trial_details_omitted = 0;
  int representative_trial =
      0;  // index into trial_details: first failing, else first with a lock wait, else first
  int64_t duration_us = 0;  // sum of every trial's duration, µs (kept or not)
  std::string error;        // first harness error, when verdict is error
  // What cut the result short when a stop request (SIGINT/SIGTERM) ended it before its last trial:
  // "interrupted during trial 4 of 20; that trial is not evaluated". Set whatever the verdict (a
  // result with a failed trial stays `fail`); empty when every planned trial ran.
  std::string interrupted;
};

// Where the run went: filled by the engine (Engine::info; embedded server or --dsn).
struct TargetInfo {
  std::string engine;          // Engine::name(): "postgresql", …
  std::string server_version;  // server_version setting, e.g. "15.8 (Debian 15.8-0+deb12u1)"
  bool embedded = true;
  std::string dsn_redacted;                                   // never contains a password
  std::vector<std::pair<std::string, std::string>> settings;  // fsync, synchronous_commit, …
};

// A planned result that never ran (the run was interrupted first, or ended on an earlier error).
struct NotRunResult {
  const PlanItem* item = nullptr;  // REQUIRES: outlives the report (owned by the Plan)
  std::string reason;              // "interrupted (SIGINT)", …
};

// A scenario, or one level of it, that a run covering several engines left out on one of them
// (docs/report-schema.md "skipped"): the side-by-side reports show "—" and `reason` in its cell.
struct SkippedOnEngine {
  std::string scenario;
  std::string engine;     // Engine::name(): "postgresql", …
  std::string isolation;  // IsolationName() of the level left out; "" = the scenario at every level
  std::string reason;     // "not in its engines: list (postgresql, sqlite)"
};

struct RunReport {
  std::string racelab_version;
  std::string created_at;  // ISO 8601 UTC
  std::string command;     // argv joined, with any DSN password redacted
  uint64_t seed = 0;
  TargetInfo target;  // the first engine's (the only one's) server
  // A run covering several engines (`--engine postgresql,mariadb`): every engine's server, in run
  // order (targets[0] is `target`); empty or one entry on a one-engine run. Each result's engine is
  // its item's PlanItem::engine.
  std::vector<TargetInfo> targets;
  std::vector<ResultSummary> results;
  std::string details = "all";  // --details: "none" | "failed" | "all" (what trial_details keep)
  std::vector<NotRunResult> not_run;  // plan order
  // What ended the run before its results: a scenario-file error (exit 2) or the target could not
  // be reached (exit 3). Empty when the run went through (or was interrupted).
  std::string run_error;
  // Several engines: what the plan left out on an engine that other engines of the run do run.
  std::vector<SkippedOnEngine> skipped;
  // The isolation anomaly matrix of the run's anomaly-* results (harness/compare BuildMatrix, set
  // by the CLI before the reports are written: `run`, `merge`); empty when it has none. Only
  // racelab.html shows it (a section); racelab.json holds the results it is derived from.
  std::optional<AnomalyMatrix> anomaly_matrix;
};

}  // namespace racelab
