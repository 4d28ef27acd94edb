// The figures of K repeats of one benchmark cell (one item × client count on one engine): each
// figure's mean with its Student-t 95 % interval over the repeats (harness/metrics/confidence.h),
// and the counts summed (docs/bench.md "Figures").
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "harness/workload/tally.h"

namespace racelab::workload {

// A figure over the repeats: mean ± half_width (0 with one repeat: no interval), n repeats.
struct Figure {
  double mean = 0;
  double half_width = 0;
  size_t n = 0;
};

struct CellFigures {
  size_t repeats = 0;
  Figure committed_per_s, attempted_per_s, won_per_s;
  Figure p50_us, p90_us, p99_us, p999_us, max_us;  // of the transaction latency
  // Per step ("role/step"): p50, p99, max over the repeats.
  struct StepFigures {
    Figure p50_us, p99_us, max_us;
    uint64_t count = 0;
  };
  std::map<std::string, StepFigures> steps;
  // Sums over the repeats.
  int64_t rounds = 0, rounds_error = 0, transactions = 0, attempts = 0, committed = 0, won = 0;
  std::map<std::string, int64_t> errors, retries;
  std::map<int, int64_t> retried_at_attempt, transactions_by_attempts;
  int64_t lock_waits = 0;
  double lock_wait_ms = 0;
  bool claims_checked = false;
  int64_t rounds_double_claimed = 0, double_claims = 0, rounds_expectations_held = 0;
  std::map<std::string, std::map<std::string, int64_t>> final_values;
  std::string first_error;
};

// A figure of `samples` (one per repeat).
Figure FigureOf(const std::vector<double>& samples);

CellFigures SummarizeRepeats(const std::vector<RunFigures>& repeats);

// "held" (claims checked, none doubled), "FAILED" (a double claim), "n/a" (no claim outcome).
std::string InvariantVerdict(const CellFigures& cell);

}  // namespace racelab::workload
