#include "harness/pipeline/pipeline.h"

#include "harness/eval/evaluator.h"

namespace racelab {

PipelineResult RunItems(const std::vector<PlanItem>& items, const RunOptions& options,
                        const PipelineHooks& hooks, DetailsPolicy details) {
  PipelineResult out;
  Runner runner(options);
  for (size_t i = 0; i < items.size(); ++i) {
    const PlanItem& item = items[i];
    if (options.stop != nullptr && options.stop->stop_requested()) break;
    if (hooks.on_item_start) hooks.on_item_start(i, item);
    // Each trial is evaluated as it ends and folded in; the runner keeps none (nullptr).
    ResultAccumulator accumulator(item, details);
    auto on_trial = [&](const PlanItem& it, const TrialResult& t) {
      out.scenario_error = out.scenario_error || t.scenario_error;
      accumulator.Add(EvaluateTrial(it, t));
      if (hooks.on_trial) hooks.on_trial(it, t);
    };
    Status s = runner.RunItem(item, nullptr, on_trial);
    if (s.code() == StatusCode::kUsage) out.scenario_error = true;
    // An item that ended early while a stop was requested was ended by it (the runner says so, and
    // a statement cancelled by the stop fails as a database error): interrupted, not a database
    // fault.
    const bool interrupted = s.code() == StatusCode::kDatabase && options.stop != nullptr &&
                             options.stop->stop_requested();
    out.results.push_back(interrupted ? accumulator.FinishInterrupted(s.message())
                                      : accumulator.Finish(s.ok() ? "" : s.message()));
    if (hooks.on_item_done) hooks.on_item_done(i, out.results.back(), s);
  }
  return out;
}

PipelineResult RunPlan(const Plan& plan, const RunOptions& options, const PipelineHooks& hooks,
                       DetailsPolicy details) {
  return RunItems(plan.items, options, hooks, details);
}

}  // namespace racelab
