// Factory functions of the built-in reporters, one per file (reports/*_reporter.cc).
//
// Internal: callers outside reports/ choose a reporter by name through MakeReporter (reporter.h);
// tests may call these directly. Each returns a fresh, stateless Reporter.
// Thread-safety: the factories are pure; see reporter.h for the Reporter itself.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "reports/reporter.h"

namespace racelab::internal {

// "console": summary table and failed expectations, to stdout (no file). `terminal`: the width the
// lines must fit (table columns dropped or cut, other lines folded; 0: unlimited) and whether
// verdicts are coloured.
std::unique_ptr<Reporter> MakeConsoleReporter(const TerminalStyle& terminal = {});
// "json": racelab.json, the contract format (docs/report-schema.md).
std::unique_ptr<Reporter> MakeJsonReporter();
// "md": racelab.md, summary table, lessons and one representative trial per result.
std::unique_ptr<Reporter> MakeMarkdownReporter();
// "md-summary": racelab-summary.md, failures first and the summary table, never more than
// kMaxSummaryBytes (a pull-request comment).
std::unique_ptr<Reporter> MakeMdSummaryReporter();
inline constexpr size_t kMaxSummaryBytes = 61440;
// `text` itself when it fits kMaxSummaryBytes; else its first whole lines, an open <details>
// closed, and a note saying how many lines were left out (the result fits kMaxSummaryBytes).
std::string FitToBudget(const std::string& text);
// "junit": racelab.junit.xml, one testcase per scenario × isolation level.
std::unique_ptr<Reporter> MakeJunitReporter();
// "html": racelab.html, one self-contained page: summary table, lessons and a swim-lane timeline
// (inline SVG) of one representative trial per result.
std::unique_ptr<Reporter> MakeHtmlReporter();

}  // namespace racelab::internal
