// Side by side: the results of a run that covered several engines (`racelab run --engine
// postgresql,mariadb`), one row per scenario × isolation level × params and one column per engine,
// so a reader sees at a glance that, say, the naive claim at repeatable read ends in 40001 on
// PostgreSQL and in a lost update (two winners) on MariaDB. Used by the console, Markdown and HTML
// reporters.
//
// Internal to reports/. Deterministic (report order kept). Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "harness/model/summary.h"

namespace racelab::internal {

// The engines a report covers, in run order. A run of several engines (it has `targets` or
// `skipped`): its targets, then any other engine a result, a not-run result or a skipped entry
// names. Else the one engine of its target (of its first result when the target names none).
std::vector<std::string> ReportEngines(const RunReport& report);

// Whether the report covers more than one engine (then results are labelled with their engine).
bool SeveralEngines(const RunReport& report);

// The server of `engine` in the report (targets, else target); nullptr when it never opened.
const TargetInfo* TargetOf(const RunReport& report, const std::string& engine);

// "<scenario> [<isolation>]", with " on <engine>" when the report covers several engines.
std::string EngineResultLabel(const RunReport& report, const PlanItem& item);

// One cell: a result, or why there is none ("not in its engines: list (postgresql, sqlite)").
struct EngineCell {
  const ResultSummary* result = nullptr;
  std::string missing;  // when result is null
};

struct EngineRow {
  std::string scenario;
  std::string isolation;          // IsolationName
  std::string params;             // FormatParams of the row's params ("-" when none)
  std::vector<EngineCell> cells;  // one per EngineTable::engines
};

struct EngineTable {
  std::vector<std::string> engines;
  std::vector<EngineRow>
      rows;  // scenarios in order of first appearance; levels weakest first, then params
};

// The side-by-side table of `report` (rows only of scenarios with at least one result or not-run
// entry).
EngineTable BuildEngineTable(const RunReport& report);

// What a cell says of its result, compact: "pass · winners 2×20 · 40001×20 · 20 lock waits".
// Parts: verdict; winners histogram; the most frequent error with its count, "+N more" when there
// are others — named as the summary tables name it (ResultSummary::errors,
// harness/model/error_key.h: the SQLSTATE, or the engine's code where the SQLSTATE is generic:
// SQLITE_BUSY_SNAPSHOT, not HY000); lock waits (statements seen in one). A part with nothing to say
// is left out.
std::string EngineCellText(const ResultSummary& result);

// The most frequent error of a result and its count ("40001", 20), from ResultSummary::errors (from
// sqlstates when a report read back has no errors); {"", 0} when no statement failed.
std::pair<std::string, int> TopErrorCode(const ResultSummary& result);

}  // namespace racelab::internal
