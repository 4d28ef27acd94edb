// Pipeline: plan → run → summary, the one way a plan is run (docs/architecture.md "Stages"). The
// CLI (`racelab run`), the integration tests and the benchmarks all call RunPlan; none wires the
// runner and the evaluator itself.
//
// For each PlanItem in order: the Runner runs its trials on the engine (harness/run/runner.h), each
// trial is evaluated as it ends (harness/eval/evaluator.h) and folded into one ResultSummary
// (harness/eval/result_accumulator.h), which keeps only the trials `details` asks for — so memory
// stays flat with the number of trials. An item the runner could not finish is summarized with what
// ran and its error; one a stop request (SIGINT/SIGTERM) cut short, with what ran and
// ResultSummary::interrupted (verdict `interrupted` when every trial that ran passed). A stop
// request ends the loop before the next item. Thread-safety: one thread; the callbacks run on it.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "harness/eval/result_accumulator.h"
#include "harness/model/plan.h"
#include "harness/model/status.h"
#include "harness/model/summary.h"
#include "harness/run/runner.h"

namespace racelab {

struct PipelineHooks {
  // Before an item runs: its index in the plan.
  std::function<void(size_t index, const PlanItem& item)> on_item_start;
  // After each trial (progress).
  TrialCallback on_trial;
  // After an item: its summary and the runner's status (not OK: the item could not go on).
  std::function<void(size_t index, const ResultSummary& summary, const Status& status)>
      on_item_done;
};

struct PipelineResult {
  std::vector<ResultSummary> results;  // one per item run, in plan order; they point into the plan
  // A scenario's SQL could not run (setup refused as a usage error, or a trial's scenario_error):
  // `racelab run` exits 2 for it.
  bool scenario_error = false;
};

// Runs `plan` (which must outlive the result) with `options` (options.engine set). Never prints.
// `details`: the trials each summary keeps (default: every trial, as tests read them).
PipelineResult RunPlan(const Plan& plan, const RunOptions& options, const PipelineHooks& hooks = {},
                       DetailsPolicy details = DetailsPolicy::kAll);

// The same for items that are not in a Plan (the tests expand one scenario at a time).
PipelineResult RunItems(const std::vector<PlanItem>& items, const RunOptions& options,
                        const PipelineHooks& hooks = {},
                        DetailsPolicy details = DetailsPolicy::kAll);

}  // namespace racelab
