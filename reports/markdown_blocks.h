// Blocks shared by the Markdown reporters ("md": racelab.md, "md-summary": racelab-summary.md).
//
// Each returns whole lines ending in '\n', every value escaped through markdown_text.h.
// - Header: "# <title>", the target line (one per engine of a run of several), the run line and the
//   verdict counts.
// - Failures: "## Failures" then one bullet per result that failed or is in error (its failed
//   expectations with "failed in K of N trials" and the first failing trial's detail, or its
//   error), the run's own error (RunReport::run_error) and the results that did not run; empty when
//   there is none. Every value is clipped to `max_value_bytes` (0: no clipping).
// - SideBySide: for a run of several engines, "## Side by side": one row per scenario × level (×
// params),
//   one column per engine (reports/engine_table.h); empty for a one-engine run.
// - SummaryTable: the scenario × isolation level table (with an engine column for several engines)
//   and its legend.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "harness/model/summary.h"

namespace racelab::internal::md {

std::string Header(const RunReport& report, std::string_view title);
std::string Failures(const RunReport& report, size_t max_value_bytes);
std::string SideBySide(const RunReport& report);
std::string SummaryTable(const RunReport& report);
// One table row: "| a | b |" with every cell escaped.
std::string Row(std::initializer_list<std::string> cells);

}  // namespace racelab::internal::md
