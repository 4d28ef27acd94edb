// Tally: the accounting of one benchmark run (one repeat of one item at one client count), folded
// round by round from the runner's judged trials (docs/bench.md "Figures").
//
// Per round (a trial, workload_item.h) and per client in it, one transaction:
//  - attempted: its attempts (1 + retries, SessionResult::attempts); committed: its last attempt
//    committed; won: it met the scenario's outcome.win (the useful work of a claim);
//  - its latency: from its start — the first step's send (closed loop), or its intended start
//    (open loop: `intended_us`, µs from the trial's origin, may be negative when the round began
//    late) — to the completion of its last step, retries and their backoff included;
//  - each step's latency (completed − sent, every attempt, skipped steps not), by role and step;
//  - each failed statement by error key (ErrorKey: SQLSTATE, or the engine's code where the
//    SQLSTATE is generic), and those the role's `retry:` retried by key and by attempt number;
//  - lock waits (StepEvent::lock_wait: the server's log or the monitor's polls,
//  docs/lock-waits.md);
//  - the claims (CheckClaims), and the values its final queries read (TrialResult::finals). A round
//  with a harness error (TrialResult::error) counts in
//    `rounds_error` and adds nothing else.
// Rounds before the end of the warmup are passed with measured = false: they add nothing.
// The measured window runs from the first measured round's origin to the last one's end; the
// rates are counts over it.
// Thread-safety: none; the driver's (runner's) thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/metrics/latency_histogram.h"
#include "harness/model/plan.h"
#include "harness/model/summary.h"
#include "harness/model/trial_result.h"

namespace racelab::workload {

// The figures of one run.
struct RunFigures {
  int64_t rounds = 0;        // measured rounds
  int64_t rounds_error = 0;  // of them, with a harness error (not counted otherwise)
  int64_t warmup_rounds = 0;
  double window_s = 0;  // measured window
  int64_t transactions = 0;
  int64_t attempts = 0;
  int64_t committed = 0;
  int64_t won = 0;
  double attempted_per_s() const { return window_s > 0 ? attempts / window_s : 0; }
  double committed_per_s() const { return window_s > 0 ? committed / window_s : 0; }
  double won_per_s() const { return window_s > 0 ? won / window_s : 0; }
  metrics::LatencyHistogram transaction_us;
  std::map<std::string, metrics::LatencyHistogram> step_us;  // "role/step"
  std::map<std::string, int64_t> errors;                     // error key -> statements
  std::map<std::string, int64_t> retries;                    // error key -> retried attempts
  std::map<int, int64_t> retried_at_attempt;                 // attempt that failed and was retried
  std::map<int, int64_t> transactions_by_attempts;           // attempts used -> transactions
  int64_t lock_waits = 0;
  double lock_wait_ms = 0;
  // The claim invariant (workload_item.h): rounds with a double claim and how many.
  bool claims_checked = false;
  int64_t rounds_double_claimed = 0;
  int64_t double_claims = 0;
  int64_t rounds_expectations_held = 0;  // the scenario's own checks (written for its forcing)
  // The scenario's final queries after each round, as the server answered them: query -> value
  // ("NULL" for none, "error: …" when it failed) -> rounds. The database's own count of what a
  // round did (naive-select-then-update: attempts 2 in every double-claimed round).
  std::map<std::string, std::map<std::string, int64_t>> final_values;
  std::string first_error;  // the first round error's text, "" when none
};

class Tally {
 public:
  explicit Tally(const PlanItem* item) : item_(item) {}

  // One judged round. `origin_s` / `end_s`: the round's origin and end on a common clock (s);
  // `intended_us`: per session of the item, its intended start (open loop) µs from the origin;
  // empty in a closed loop.
  void AddRound(const TrialVerdict& round, bool measured, double origin_s, double end_s,
                const std::vector<int64_t>& intended_us);

  const RunFigures& figures() const { return f_; }

 private:
  const PlanItem* item_;
  RunFigures f_;
  std::optional<double> first_origin_s_;
  double last_end_s_ = 0;
};

}  // namespace racelab::workload
