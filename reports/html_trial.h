// The representative trial of one result on the HTML page (racelab.html): a line saying which trial
// it is, its error, the swim-lane timeline (reports/svg_timeline.h) in a box that scrolls
// sideways on a narrow screen instead of shrinking its text, the legend, barrier releases, final
// values and failed checks, and the trial's steps as a table — each step's label
// (harness/model/step_label.h), the SQL as sent, its result and lock wait — inside a closed
// <details>. Trials are numbered from 1 ("trial 2 of 20" is TrialResult::index 1). Thread-safety:
// as XmlWriter (one writer per thread).
#pragma once

#include <string_view>

#include "harness/model/summary.h"
#include "reports/xml_writer.h"

namespace racelab::internal {

// Nothing when the result kept no trial (--details none).
void WriteHtmlTrial(const ResultSummary& r, XmlWriter& xml);

// The page CSS of these parts (appended to the page's own).
std::string_view HtmlTrialCss();

}  // namespace racelab::internal
