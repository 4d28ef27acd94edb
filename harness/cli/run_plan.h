// The plan of `racelab run`: the selected scenarios × the engines of --engine × their levels ×
// params.
//
// - `--engine` is one name, a comma list (`postgresql,mariadb`) or `all` (every engine built in);
// the
//   items are in engine order, each engine's in the plan's usual order (scenario, level, params),
//   so a run can start one engine's server after the other (harness/cli/engine_runs.h).
// - A scenario whose `engines:` list lacks an engine is left out on it, as is a level its file does
// not
//   list for that engine; both are noted on stderr and, on a run of several engines, recorded in
//   PlannedRun::skipped for the side-by-side reports (docs/report-schema.md "skipped").
// Errors: kUsage (exit 2) for an unknown engine, a --dsn of an engine not in the list, a bad level
// or
// --set, a scenario-file error, or a selection that runs nowhere. A value that is a connection
// string is shown redacted. Thread-safety: main thread; reads scenario files, writes notes to
// stderr.
#pragma once

#include <string>
#include <vector>

#include "harness/cli/app.h"
#include "harness/model/plan.h"
#include "harness/model/status.h"
#include "harness/model/stop_flag.h"
#include "harness/model/summary.h"

namespace racelab::cli {

struct PlannedRun {
  std::vector<std::string> engines;      // the engines the run covers, in --engine order
  Plan plan;                             // items grouped by engine, in `engines` order
  std::vector<SkippedOnEngine> skipped;  // only when engines.size() > 1
};

// `--engine` text (with the `--dsn`s, each naming its engine) -> the engines, each once, in the
// order given; "all" = every engine built in (EngineNames()). "" = the DSNs' engines in their
// order, else postgresql. kUsage: an unknown name (the message lists the known ones); a DSN whose
// engine is not in the list; two DSNs of one engine.
Result<std::vector<std::string>> ParseEngineList(const std::string& engine_arg,
                                                 const std::vector<std::string>& dsns);

// The --dsn of `engine` among `dsns` ("" when none names it: that engine starts embedded). With one
// engine in the run and one DSN, that DSN (whatever engine it names: OpenEngine judges the pair).
std::string DsnOfEngine(const std::vector<std::string>& dsns, const std::string& engine,
                        bool several_engines);

// Loads, selects and expands; loading stops early once `stop` is requested.
Result<PlannedRun> BuildRunPlan(const RunArgs& args, const StopFlag* stop);

}  // namespace racelab::cli
