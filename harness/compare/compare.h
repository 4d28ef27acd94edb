// Compare: what changed between two racelab reports, result by result (scenario × engine ×
// isolation level × params), judged against chance and against the noise both runs measured. The
// rules are documented in docs/compare.md ("How a change is judged"); in short:
// - counts (expectation failures, winners, per-trial row counts and final values: trials; SQLSTATE
//   occurrences, lock waits: events per trial) are tested with exact tests (stats.h); all tests of
//   one comparison form one family, Holm-corrected, and a change is significant when its adjusted p
//   < alpha;
// - a significant rise of an expectation's failures, or a significant shift of an outcome's
//   frequency, is a regression; so is a result whose new verdict is `error` (its behaviour is
//   unknown);
// - each result's failing trials as a whole (trials in which any expectation failed, whatever the
//   expectations' texts) are one more Fisher test in the same family: a significant rise is a
//   regression, so a result that passes in BASE and fails in NEW is one unless the counts are
//   within chance, even when its expectations were edited;
// - an expectation only in NEW (added, or its text changed) that fails is a regression: it has no
//   baseline to be within chance of; so is a result only in NEW whose verdict is `fail` or `error`;
//   every changed, added or removed expectation is named (ResultComparison::expectation_changes);
// - a NEW result an interrupt cut short (verdict `interrupted`, or results[].interrupted) is
// compared
//   on the trials it ran and judged "interrupted": not a regression of the scenario, a warning for
//   the comparison, and a regression with fail_on_missing (NEW did not cover BASE);
// - the lock-wait count (statements seen in a lock wait per trial) is tested with the others but
// gates
//   only with TimingPolicy::kFail: where a scenario does not force the waits, how many sessions
//   arrive while a lock is held depends on the machine's load (docs/compare.md);
// - blocked time (median) is flagged when it moved by more than the larger p50→p95 spread of the
// two
//   runs plus a floor (1 ms or 10 % of the larger median); a regression only with
//   TimingPolicy::kFail. Barrier skew, racelab's own precision, is flagged the same way (floor 100
//   µs or 50 %) but never a regression.
// Results present in one report only, and reports from another racelab version, engine or server,
// are compared with a note or warning, never refused.
// Thread-safety: pure function over plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/compare/report_view.h"

namespace racelab::compare {

enum class TimingPolicy { kWarn, kFail };

struct CompareOptions {
  double alpha = 0.01;  // family-wise error rate of the whole comparison
  TimingPolicy timing = TimingPolicy::kWarn;
  // A result of BASE that NEW lacks (not run, lost to a crashed shard) is a regression, not a note
  // (`--fail-on-missing`). Without it a missing result is a note plus one warning for the
  // comparison.
  bool fail_on_missing = false;
};

// One exact test of a count.
struct CountTest {
  std::string
      kind;  // "failing trials" | "expectation" | "winners" | "sqlstate" | "lock waits" | "outcome"
  std::string subject;  // "expectation failed: winners = 1", "2 winners", "SQLSTATE 40001",
                        // "worker/claim rows 0,1"
  bool per_trial =
      true;  // true: count of trials (Fisher 2×2); false: events over trials (Poisson rates)
  int64_t base_count = 0, base_trials = 0, new_count = 0, new_trials = 0;
  double p = 1;            // two-sided
  double p_adjusted = 1;   // Holm over the comparison's family
  bool in_family = false;  // testable (Testable2x2 / a non-zero count): counted in the correction
  bool significant = false;
  bool regression = false;
  // Proportions (or rates) differ at all.
  bool differs() const { return base_count * new_trials != new_count * base_trials; }
  bool rose() const { return new_count * base_trials > base_count * new_trials; }
};

// An expectation whose text is in one report only. Texts found in both are matched; the k-th
// unmatched text of BASE is paired with the k-th unmatched text of NEW (an edited expectation keeps
// its place in the scenario's order), and what is left is added (only NEW) or removed (only BASE).
struct ExpectationChange {
  std::string base_text;                   // "" when added in NEW
  std::string new_text;                    // "" when removed in NEW
  int64_t new_failed = 0, new_trials = 0;  // NEW's counts (trials), when new_text is set
  bool new_failing = false;                // it failed in NEW (ExpectationView::Failing)
};

struct TimingShift {
  std::string what;  // "blocked ms" | "skew µs"
  PercentileView base, now;
  double shift = 0;    // now.p50 - base.p50
  double allowed = 0;  // |shift| beyond this is flagged
  bool flagged = false;
  bool regression = false;
};

struct ResultComparison {
  std::string key;  // ResultView::Key()
  std::string scenario, isolation, engine;
  std::optional<std::string> base_verdict, new_verdict;  // nullopt: absent from that report
  int64_t base_trials = 0, new_trials = 0;
  // NEW's result was cut short by SIGINT/SIGTERM (results[].interrupted): compared on the trials it
  // ran; not a regression of the scenario, but not a complete run (--fail-on-missing: a
  // regression).
  bool new_interrupted = false;
  std::vector<CountTest> tests;
  std::vector<ExpectationChange> expectation_changes;
  std::vector<TimingShift> timing;
  std::vector<std::string>
      notes;  // not regressions: verdict changes within chance, missing results, …
  std::vector<std::string> reasons;  // why it is a regression, one line each
  bool regression = false;
};

struct Comparison {
  std::string base_name, new_name;
  CompareOptions options;
  size_t family_size = 0;                 // tests counted in the Holm correction
  std::vector<std::string> warnings;      // other version, engine or server, schema
  std::vector<ResultComparison> results;  // base order, then results only in NEW
  int regressions() const;
  bool regression() const { return regressions() > 0; }
};

Comparison Compare(const ReportView& base, const ReportView& now, const CompareOptions& options);

// The rule line printed with every comparison: "Fisher's exact test (two-sided) … alpha = 0.01 …".
std::string MethodLine(const Comparison& c);

}  // namespace racelab::compare
