// Formatting shared by the reporters: numbers with fixed units, histograms, labels and counts.
//
// Internal to reports/. Every function is pure and deterministic: the same input gives the same
// bytes (fixed decimals, no locale, map order kept), so reporters built on them are
// golden-testable.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "harness/model/scenario.h"
#include "harness/model/summary.h"

namespace racelab::internal {

// Placeholder for an empty cell (no SQLSTATE, no lock wait, …) in tables.
inline constexpr std::string_view kNone = "-";

// `value` with exactly three decimals: 1.5 -> "1.500". Used for every *_ms figure printed as text.
std::string FormatMs(double value);

// µs as ms with three decimals, exact integer arithmetic: 1234567 -> "1234.567", -5 -> "-0.005".
std::string FormatUsAsMs(int64_t us);

// µs as seconds with three decimals (rounded to the nearest ms): 1234567 -> "1.235".
std::string FormatUsAsSeconds(int64_t us);

// `value` rounded to three decimals, as a number (JSON *_ms fields).
double RoundMs(double value);

// `value` rounded to the nearest integer, half away from zero (JSON and text *_us fields).
int64_t RoundUs(double value);

// "p50 / p95 / max" in ms with three decimals, or kNone when the sample is empty.
std::string FormatBlockedMs(const Percentiles& p);

// One percentile of a µs sample as an integer ("40"), or kNone when the sample is empty.
std::string FormatSkewUs(const Percentiles& p, double value);

// Histograms "key×count" joined by ", " in map order: {1: 18, 2: 2} -> "1×18, 2×2";
// kNone when empty.
std::string Histogram(const std::map<int, int>& counts);
std::string Histogram(const std::map<std::string, int>& counts);
// The errors histogram with each code's condition name on `engine` (harness/model/error_names.h):
// {"40001": 2} on postgresql -> "40001 serialization_failure×2"; for the HTML page, read by people.
std::string NamedErrorHistogram(std::string_view engine, const std::map<std::string, int>& counts);

// What a step returned, on one line: "ok", "1 row (id=1)", "40001 could not serialize …",
// "skipped". Used by the Markdown timeline, the SVG tooltips and the HTML step table.
std::string StepOutcomeText(const StepEvent& e);

// "worker.1 (transactionid)": who held the lock a step waited on; empty without a lock wait.
std::string BlockedByText(const StepEvent& e);

// The step kind's name in the reports (harness/model/step_kind.h report_name): "begin", "sql",
// "sleep" (written sleep_ms in scenario files), "await_blocked", …
std::string_view StepKindName(StepKind kind);

// The summary's PlanItem, or an empty one when `item` is null (reporters never dereference null).
const PlanItem& ItemOf(const ResultSummary& summary);
const PlanItem& ItemOf(const NotRunResult& not_run);

// "<scenario> [<isolation>]": how one result is named in JUnit, the console and Markdown headings.
std::string ResultLabel(const ResultSummary& summary);
std::string ResultLabel(const PlanItem& item);

// Sum of the trials' durations, µs (every trial run, kept in trial_details or not).
int64_t TotalDurationUs(const ResultSummary& summary);

// The representative trial; nullptr when there are no trial details or the index is out of range.
const TrialVerdict* RepresentativeTrial(const ResultSummary& summary);

// How a stop request cut the result short, for people: "interrupted during trial 4 of 20; that
// trial is not evaluated — 3 trials ran before it, all passed" (", all passed" only with verdict
// interrupted); "" when the result ran every planned trial (ResultSummary::interrupted empty).
std::string InterruptedText(const ResultSummary& summary);

struct VerdictCounts {
  int results = 0;
  int pass = 0;
  int fail = 0;
  int error = 0;
  int interrupted = 0;  // Verdict::kInterrupted
};

VerdictCounts CountVerdicts(const std::vector<ResultSummary>& results);
VerdictCounts CountVerdicts(const std::vector<const ResultSummary*>& results);

// "12 results: 11 pass, 1 fail, 0 error" (singular "1 result"), then ", 1 interrupted" when some
// are.
std::string CountsLine(const VerdictCounts& counts);

// How to read the summary table, one paragraph (Markdown and HTML print it under the table).
inline constexpr const char* kSummaryLegend =
    "pass = every trial behaved as the scenario predicts for that level — a reproduced bug "
    "included "
    "(the lesson says which); fail = an expectation did not hold (a regression); error = racelab "
    "or the "
    "server failed; interrupted = Ctrl-C or SIGTERM stopped it before its last trial and every "
    "trial that ran "
    "passed. winners 1×20 = 20 trials had 1 winner. errors = failed statements summed over all "
    "trials, "
    "by SQLSTATE, or by the engine's own code where the SQLSTATE is generic (SQLITE_BUSY, MariaDB "
    "1205, not "
    "HY000). "
    "blocked = time of the statements the monitor saw in a lock wait. skew = first-to-last send "
    "after "
    "a barrier release, racelab's own precision.";

// Results grouped by scenario name: groups in order of first appearance, report order inside.
struct ScenarioGroup {
  std::string scenario;
  std::vector<const ResultSummary*> results;
};
std::vector<ScenarioGroup> GroupByScenario(const std::vector<ResultSummary>& results);
// A result of the group did not pass (fail, error, interrupted): the reports put such groups first.
bool AnyFailing(const ScenarioGroup& group);

// "k=v, k2=v2" in the given order; kNone when empty.
std::string FormatParams(const std::vector<std::pair<std::string, std::string>>& params);

}  // namespace racelab::internal
