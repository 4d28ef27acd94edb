#include "harness/pipeline/pipeline.h"

#include "harness/eval/evaluator.h"

namespace racelab {

PipelineResult RunItems(const std::vector<PlanItem>& items, const RunOptions& options,
                        const PipelineHooks& hooks) {
  PipelineResult out;
  Runner runner(options);
  for (size_t i = 0; i < items.size(); ++i) {
    const PlanItem& item = items[i];
    if (options.stop != nullptr && options.stop->stop_requested()) break;
    if (hooks.on_item_start) hooks.on_item_start(i, item);
    std::vector<TrialResult> trials;
    Status s = runner.RunItem(item, &trials, hooks.on_trial);
    if (s.code() == StatusCode::kUsage) out.scenario_error = true;
    std::vector<TrialVerdict> verdicts;
    for (auto& t : trials) verdicts.push_back(EvaluateTrial(item, std::move(t)));
    for (const auto& v : verdicts) out.scenario_error = out.scenario_error || v.result.scenario_error;
    out.results.push_back(Summarize(item, std::move(verdicts), s.ok() ? "" : s.message()));
    if (hooks.on_item_done) hooks.on_item_done(i, out.results.back(), s);
  }
  return out;
}

PipelineResult RunPlan(const Plan& plan, const RunOptions& options, const PipelineHooks& hooks) {
  return RunItems(plan.items, options, hooks);
}

}  // namespace racelab
