// The workload driver of `racelab bench` (docs/bench.md): runs a workload item (workload_item.h) as
// rounds through the runner — the same Runner, engine seam, deadlines and stop handling as `racelab
// run` — for a warmup and then a duration, in a closed loop or an open one at a fixed arrival rate
// (arrival.h), and folds each judged round into a Tally (tally.h). It never prints; `on_round`
// tells the caller (the CLI's progress line) after each round.
//
// Each client is one session of the item on its own connection (Engine::OpenSession, opened once
// and started clean before every round). The item's `trials` is ignored: rounds go on while the
// warmup + duration lasts (closed loop: rounds that start before it ends; open loop: rounds whose
// first transaction is due before it ends). A round that starts — or, open loop, is due — within
// the warmup is run and not counted.
// Errors: Run returns the runner's status (kUsage: the scenario's SQL or setup cannot run;
// kDatabase: the server went away, or a stop request — then `figures` hold what was measured before
// it). Thread-safety: the caller's thread; the runner's workers run inside.
#pragma once

#include <functional>

#include "harness/model/plan.h"
#include "harness/model/status.h"
#include "harness/run/runner.h"
#include "harness/workload/tally.h"

namespace racelab::workload {

struct WorkloadOptions {
  // Engine, deadlines, stop flag, seed; the driver sets its gate, subscriber and more_trials.
  RunOptions run;
  double rate_per_s = 0;  // ≤ 0: closed loop
  double warmup_s = 1;
  double duration_s = 5;
  // After each round (measured or not), on the caller's thread: the figures so far.
  std::function<void(const RunFigures&)> on_round;
};

struct WorkloadRun {
  RunFigures figures;
  Status status;  // OK, or why the run ended early (the figures are then partial)
};

// REQUIRES: `item` is a WorkloadItem; options.run.engine is open.
WorkloadRun RunWorkload(const PlanItem& item, WorkloadOptions options);

}  // namespace racelab::workload
