#include <algorithm>
#include <cmath>

#include "harness/eval/evaluator.h"
#include "harness/eval/result_accumulator.h"

namespace racelab {

Percentiles ComputePercentiles(std::vector<double> values) {
  Percentiles p;
  p.count = values.size();
  if (values.empty()) return p;
  std::sort(values.begin(), values.end());
  auto rank = [&](double q) {
    size_t k = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size())));
    return values[std::min(values.size() - 1, k == 0 ? 0 : k - 1)];
  };
  p.p50 = rank(0.50);
  p.p95 = rank(0.95);
  p.max = values.back();
  return p;
}

ResultSummary Summarize(const PlanItem& item, std::vector<TrialVerdict> trials,
                        const std::string& item_error) {
  ResultAccumulator accumulator(item, DetailsPolicy::kAll);
  for (TrialVerdict& t : trials) accumulator.Add(std::move(t));
  return accumulator.Finish(item_error);
}

}  // namespace racelab
