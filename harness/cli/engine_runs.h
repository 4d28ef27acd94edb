// The run part of `racelab run`: each engine of the plan in turn — open its server (embedded, or
// the
// --dsn that names it), run its items through the pipeline, close it — with the progress lines on
// stderr. One engine's items, and nothing of its server, reach the next (docs/architecture.md
// "Stages").
//
// - An engine with no item (a --shard part without it) is not started.
// - An engine that cannot be opened: in a run of several engines its items are not run ("MariaDB
//   could not start: …") and the next engine runs; with one engine, or for a usage error (a bad
//   DSN), the run ends there and the rest are not run ("the run ended before it"). `open_error`
//   holds the first such error (exit 3; 2 for a usage error).
// - A stop request (SIGINT/SIGTERM) ends the run before the next item; the rest are not run.
// Thread-safety: main thread.
#pragma once

#include <string>
#include <vector>

#include "harness/cli/app.h"
#include "harness/eval/result_accumulator.h"
#include "harness/model/plan.h"
#include "harness/model/status.h"
#include "harness/model/stop_flag.h"
#include "harness/model/summary.h"

namespace racelab::cli {

struct EngineRuns {
  std::vector<ResultSummary> results;  // in plan order; they point into the parts
  std::vector<NotRunResult> not_run;   // in plan order; they point into the parts
  std::vector<TargetInfo> targets;     // every engine opened, in run order
  bool scenario_error = false;         // a scenario's SQL could not run (exit 2)
  std::string scenario_hint;  // the engines' advice for that error (Engine::ScenarioErrorHint)
  Status open_error;          // not OK: the first engine that could not be opened
  bool close_failed = false;  // an engine's Close() failed (printed)
};

// `plan`'s items split by engine, in the order of `engines` (an engine without items gets an empty
// part). The parts own the items from here on.
std::vector<Plan> SplitByEngine(Plan plan, const std::vector<std::string>& engines);

// Runs `parts` (which must outlive the result) one engine after another; `engines[i]` is the engine
// of parts[i].
EngineRuns RunEngines(const std::vector<Plan>& parts, const std::vector<std::string>& engines,
                      const RunArgs& args, DetailsPolicy details, const StopFlag* stop);

}  // namespace racelab::cli
