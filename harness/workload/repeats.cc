// The figures of a cell's repeats (repeats.h).
#include "harness/workload/repeats.h"

#include <functional>

#include "harness/metrics/confidence.h"

namespace racelab::workload {
namespace {

Figure Over(const std::vector<RunFigures>& runs,
            const std::function<double(const RunFigures&)>& f) {
  std::vector<double> samples;
  for (const RunFigures& r : runs) samples.push_back(f(r));
  return FigureOf(samples);
}

template <typename K>
void AddAll(const std::map<K, int64_t>& from, std::map<K, int64_t>* to) {
  for (const auto& [k, n] : from) (*to)[k] += n;
}

}  // namespace

Figure FigureOf(const std::vector<double>& samples) {
  Figure f;
  f.n = samples.size();
  if (samples.empty()) return f;
  if (auto ci = metrics::MeanConfidenceInterval(samples)) {
    f.mean = ci->mean;
    f.half_width = ci->half_width;
    return f;
  }
  double sum = 0;
  for (double x : samples) sum += x;
  f.mean = sum / static_cast<double>(samples.size());
  return f;
}

CellFigures SummarizeRepeats(const std::vector<RunFigures>& runs) {
  CellFigures c;
  c.repeats = runs.size();
  c.committed_per_s = Over(runs, [](const RunFigures& r) { return r.committed_per_s(); });
  c.attempted_per_s = Over(runs, [](const RunFigures& r) { return r.attempted_per_s(); });
  c.won_per_s = Over(runs, [](const RunFigures& r) { return r.won_per_s(); });
  c.p50_us = Over(runs, [](const RunFigures& r) { return r.transaction_us.ValueAtPercentile(50); });
  c.p90_us = Over(runs, [](const RunFigures& r) { return r.transaction_us.ValueAtPercentile(90); });
  c.p99_us = Over(runs, [](const RunFigures& r) { return r.transaction_us.ValueAtPercentile(99); });
  c.p999_us =
      Over(runs, [](const RunFigures& r) { return r.transaction_us.ValueAtPercentile(99.9); });
  c.max_us = Over(runs, [](const RunFigures& r) { return r.transaction_us.max_us(); });
  std::map<std::string, std::vector<const metrics::LatencyHistogram*>> steps;
  for (const RunFigures& r : runs) {
    for (const auto& [name, h] : r.step_us) steps[name].push_back(&h);
  }
  for (const auto& [name, hs] : steps) {
    std::vector<double> p50, p99, max;
    CellFigures::StepFigures& s = c.steps[name];
    for (const metrics::LatencyHistogram* h : hs) {
      p50.push_back(h->ValueAtPercentile(50));
      p99.push_back(h->ValueAtPercentile(99));
      max.push_back(h->max_us());
      s.count += h->count();
    }
    s.p50_us = FigureOf(p50);
    s.p99_us = FigureOf(p99);
    s.max_us = FigureOf(max);
  }
  for (const RunFigures& r : runs) {
    c.rounds += r.rounds;
    c.rounds_error += r.rounds_error;
    c.transactions += r.transactions;
    c.attempts += r.attempts;
    c.committed += r.committed;
    c.won += r.won;
    AddAll(r.errors, &c.errors);
    AddAll(r.retries, &c.retries);
    AddAll(r.retried_at_attempt, &c.retried_at_attempt);
    AddAll(r.transactions_by_attempts, &c.transactions_by_attempts);
    c.lock_waits += r.lock_waits;
    c.lock_wait_ms += r.lock_wait_ms;
    c.claims_checked = c.claims_checked || r.claims_checked;
    c.rounds_double_claimed += r.rounds_double_claimed;
    c.double_claims += r.double_claims;
    c.rounds_expectations_held += r.rounds_expectations_held;
    for (const auto& [sql, values] : r.final_values) AddAll(values, &c.final_values[sql]);
    if (c.first_error.empty()) c.first_error = r.first_error;
  }
  return c;
}

std::string InvariantVerdict(const CellFigures& cell) {
  if (!cell.claims_checked) return "n/a";
  return cell.double_claims > 0 ? "FAILED" : "held";
}

}  // namespace racelab::workload
