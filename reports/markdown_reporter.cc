// "md" reporter: racelab.md, for a person (a reviewer reading a CI artifact, a teacher).
//
// Layout: title; target lines (one per engine) and run line; verdict counts; **failures first**
// (markdown_blocks.h Failures: each failed or errored result with its failed expectations, the
// run's error, what did not run); for a run of several engines the side-by-side table (one column
// per engine, reports/engine_table.h); the summary table (scenario × isolation level); then one
// section per scenario — scenarios with a failing result first, then the others, each group in
// order of first appearance — with its title, the `teaches` lesson, file and params, and per result
// (isolation level) its expectations with passed/failed counts and the representative trial
// (ResultSummary::representative_trial) as a step timeline folded in <details> (open when that
// trial failed). The lesson of a passing scenario is folded too. Escaping by construction
// (markdown_text.h): no value can end its span or paragraph; <summary> text is HTML-escaped. Trials
// are numbered from 1 ("trial 2 of 20" is TrialResult::index 1).

#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "harness/model/isolation.h"
#include "reports/engine_table.h"
#include "reports/format_util.h"
#include "reports/markdown_blocks.h"
#include "reports/markdown_text.h"
#include "reports/reporters.h"

namespace racelab::internal {
namespace {

using md::Code;
using md::Html;
using md::Row;
using md::Text;

void WriteTimeline(const ResultSummary& r, std::ostream& out) {
  const TrialVerdict* t = RepresentativeTrial(r);
  if (t == nullptr) {
    if (r.trials > 0) out << "No trial kept (--details none).\n\n";
    return;
  }
  const TrialResult& trial = t->result;
  out << (t->verdict == Verdict::kPass ? "<details>" : "<details open>") << "<summary>"
      << Html(fmt::format("Representative trial: {} of {} ({}, {} ms)", trial.index + 1, r.trials,
                          VerdictName(t->verdict), FormatUsAsMs(trial.duration_us)))
      << "</summary>\n\n";
  if (!trial.error.empty()) out << "Trial error: " << Text(trial.error) << "\n\n";
  out << "| t ms | session | step | result | blocked ms | blocked by |\n"
      << "|---:|---|---|---|---:|---|\n";
  for (const StepEvent& e : trial.events) {
    std::string step = e.attempt > 1 ? fmt::format("{} (attempt {})", e.step, e.attempt) : e.step;
    out << Row({FormatUsAsMs(e.sent_us), e.session, step, StepOutcomeText(e),
                e.lock_wait ? FormatMs(e.blocked_ms()) : "", BlockedByText(e)});
  }
  out << '\n';
  for (const BarrierRelease& b : trial.barriers) {
    out << fmt::format("- barrier {} #{} released at {} ms, skew {} µs\n", Code(b.barrier),
                       b.occurrence, FormatUsAsMs(b.released_us), b.skew_us);
  }
  for (const FinalValue& f : trial.finals) {
    const std::string value = !f.error.empty()      ? "error: " + Text(f.error)
                              : f.value.has_value() ? Code(*f.value)
                                                    : "NULL";
    out << fmt::format("- final {} = {}\n", Code(f.sql), value);
  }
  for (const Check& c : t->checks) {
    if (!c.passed) out << fmt::format("- failed: {}: {}\n", Text(c.text), Text(c.detail));
    if (c.widened_by_ms > 0) {
      out << fmt::format("- upper bound widened by {} ms of measured lateness: {}\n",
                         FormatMs(c.widened_by_ms), Text(c.text));
    }
  }
  if (!trial.barriers.empty() || !trial.finals.empty() ||
      std::any_of(t->checks.begin(), t->checks.end(),
                  [](const Check& c) { return !c.passed || c.widened_by_ms > 0; })) {
    out << '\n';
  }
  const int other_kept = static_cast<int>(r.trial_details.size()) - 1;
  if (other_kept > 0 || r.trial_details_omitted > 0) {
    out << fmt::format("{} more trial{} in racelab.json; {} not kept (--details).\n\n", other_kept,
                       other_kept == 1 ? "" : "s", r.trial_details_omitted);
  }
  out << "</details>\n\n";
}

void WriteResultSection(const ResultSummary& r, bool show_params, bool several_engines,
                        std::ostream& out) {
  const PlanItem& item = ItemOf(r);
  out << fmt::format(
      "### {}{}: {} ({} trial{})\n\n", several_engines ? Text(item.engine) + " · " : "",
      IsolationName(item.isolation), VerdictName(r.verdict), r.trials, r.trials == 1 ? "" : "s");
  if (show_params) out << "Params: " << Code(FormatParams(item.params)) << "\n\n";
  if (!r.error.empty()) out << "Error: " << Text(r.error) << "\n\n";
  if (!r.interrupted.empty()) out << "Interrupted: " << Text(InterruptedText(r)) << "\n\n";
  if (!r.expectations.empty()) {
    out << "| expectation | passed | failed | first failure |\n|---|---:|---:|---|\n";
    for (const ExpectationTally& e : r.expectations) {
      std::string text = e.max_widened_by_ms > 0
                             ? fmt::format("{} (widened by at most {} ms in these trials)", e.text,
                                           FormatMs(e.max_widened_by_ms))
                             : e.text;
      out << Row({text, std::to_string(e.passed), std::to_string(e.failed),
                  e.Failing() ? e.first_failure : ""});
    }
    out << '\n';
  }
  WriteTimeline(r, out);
}

void WriteScenarioSection(const ScenarioGroup& group, bool several_engines, std::ostream& out) {
  const PlanItem& first = ItemOf(*group.results.front());
  const bool failing = AnyFailing(group);
  out << "## " << Text(group.scenario);
  if (!first.title.empty()) out << ": " << Text(first.title);
  out << "\n\n";
  std::string_view teaches = first.teaches;
  while (!teaches.empty() && (teaches.back() == '\n' || teaches.back() == ' ')) {
    teaches.remove_suffix(1);
  }
  if (!teaches.empty()) {
    out << (failing ? "<details open>" : "<details>") << "<summary>Lesson</summary>\n\n"
        << md::Lesson(teaches) << "\n\n</details>\n\n";
  }
  const bool same_params =
      std::all_of(group.results.begin(), group.results.end(),
                  [&](const ResultSummary* r) { return ItemOf(*r).params == first.params; });
  std::vector<std::string> facts;
  if (!first.file.empty()) facts.push_back("File: " + Code(first.file));
  if (same_params) facts.push_back("Params: " + Code(FormatParams(first.params)));
  if (!facts.empty()) out << fmt::format("{}\n\n", fmt::join(facts, " · "));
  for (const ResultSummary* r : group.results)
    WriteResultSection(*r, !same_params, several_engines, out);
}

class MarkdownReporter : public Reporter {
 public:
  std::string_view name() const override { return "md"; }
  std::string_view file_name() const override { return "racelab.md"; }
  void Write(const RunReport& report, std::ostream& out) const override {
    out << md::Header(report, "racelab report") << md::Failures(report, 0) << md::SideBySide(report)
        << md::SummaryTable(report);
    const std::vector<ScenarioGroup> groups = GroupByScenario(report.results);
    const bool several = SeveralEngines(report);
    for (const bool failing : {true, false}) {
      for (const ScenarioGroup& group : groups) {
        if (AnyFailing(group) == failing) WriteScenarioSection(group, several, out);
      }
    }
  }
};

}  // namespace

std::unique_ptr<Reporter> MakeMarkdownReporter() { return std::make_unique<MarkdownReporter>(); }

}  // namespace racelab::internal
