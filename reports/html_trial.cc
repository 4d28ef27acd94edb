#include "reports/html_trial.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "harness/model/step_label.h"
#include "reports/format_util.h"
#include "reports/html_util.h"
#include "reports/svg_timeline.h"

namespace racelab::internal {
namespace {

// The timeline keeps at least 640 px of width (12 px text stays ≥ 7.7 px) and scrolls sideways in
// its box below that; the SQL column wraps at its words, then anywhere.
constexpr std::string_view kCss = R"css(
div.timeline-box{overflow-x:auto}
div.timeline-box svg.timeline{min-width:640px}
table.steps td.sql{max-width:32em;white-space:pre-wrap;overflow-wrap:anywhere;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
)css";
static_assert(NeedsNoEscaping(kCss), "CSS inside <style> is not unescaped by the browser");

// Barrier releases, final values and failed checks of the representative trial.
void WriteTrialNotes(const TrialVerdict& t, XmlWriter& xml) {
  const TrialResult& trial = t.result;
  if (trial.barriers.empty() && trial.finals.empty() &&
      std::all_of(t.checks.begin(), t.checks.end(), [](const Check& c) { return c.passed; })) {
    return;
  }
  xml.StartElement("ul").Attribute("class", "notes");
  for (const BarrierRelease& b : trial.barriers) {
    Leaf(xml, "li",
         fmt::format("barrier {} #{} released at {} ms, skew {} µs", b.barrier, b.occurrence,
                     FormatUsAsMs(b.released_us), b.skew_us));
  }
  for (const FinalValue& f : trial.finals) {
    const std::string value = !f.error.empty()      ? "error: " + f.error
                              : f.value.has_value() ? *f.value
                                                    : "NULL";
    Leaf(xml, "li", fmt::format("final {} = {}", f.sql, value));
  }
  for (const Check& c : t.checks) {
    if (!c.passed) Leaf(xml, "li", fmt::format("failed: {}: {}", c.text, c.detail), "failed");
    if (c.widened_by_ms > 0) {
      Leaf(xml, "li",
           fmt::format("upper bound widened by {} ms of measured lateness: {}",
                       FormatMs(c.widened_by_ms), c.text));
    }
  }
  xml.EndElement();
}

// The step's label, and its name after it when the label is not the name ("UPDATE runs (sql3)":
// `order:` and expectations use the name).
std::string StepCellText(const StepEvent& e) {
  const std::string label = StepLabel(e);
  return IsGeneratedStepName(e.step, e.kind) ? fmt::format("{} ({})", label, e.step) : label;
}

void WriteStepTable(const TrialResult& trial, XmlWriter& xml) {
  xml.StartElement("details");
  Leaf(xml, "summary",
       fmt::format("The {} steps of this trial, with their SQL", trial.events.size()));
  xml.StartElement("table").Attribute("class", "steps");
  HeaderRow(xml, {"t ms", "session", "step", "SQL", "result", "blocked ms", "blocked by"});
  for (const StepEvent& e : trial.events) {
    xml.StartElement("tr");
    Leaf(xml, "td", FormatUsAsMs(e.sent_us), "num");
    Leaf(xml, "td", e.session);
    Leaf(xml, "td", StepCellText(e));
    Leaf(xml, "td", e.sql, "sql");
    Leaf(xml, "td", StepOutcomeText(e));
    Leaf(xml, "td", e.lock_wait ? FormatMs(e.blocked_ms()) : "", "num");
    Leaf(xml, "td", BlockedByText(e));
    xml.EndElement();
  }
  xml.EndElement();
  xml.EndElement();
}

}  // namespace

std::string_view HtmlTrialCss() { return kCss; }

void WriteHtmlTrial(const ResultSummary& r, XmlWriter& xml) {
  const TrialVerdict* t = RepresentativeTrial(r);
  if (t == nullptr) return;
  const TrialResult& trial = t->result;
  Leaf(xml, "p",
       fmt::format("Representative trial: {} of {} ({}, {} ms).", trial.index + 1, r.trials,
                   VerdictName(t->verdict), FormatUsAsMs(trial.duration_us)));
  if (!trial.error.empty()) Leaf(xml, "p", "Trial error: " + trial.error, "error");
  xml.StartElement("div").Attribute("class", "timeline-box");
  WriteSvgTimeline(trial, xml);
  xml.EndElement();
  WriteTimelineLegend(xml);
  WriteTrialNotes(*t, xml);
  WriteStepTable(trial, xml);
}

}  // namespace racelab::internal
