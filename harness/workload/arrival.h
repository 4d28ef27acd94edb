// The arrival schedule of `racelab bench` and the step gate that keeps it (docs/bench.md "Open and
// closed loop").
//
// Closed loop (rate 0): each round's clients start as soon as the round is ready; a transaction's
// latency is measured from its first step. Open loop (rate R transactions/s over all clients): the
// k-th transaction of the run is *intended* to start at origin + k/R, whatever happened before it;
// transaction i of round r is k = r·clients + i. Its latency is measured from that intended start,
// so time a stalled server makes the later transactions wait counts against them (coordinated
// omission avoided: Gil Tene, "How NOT to Measure Latency"). A round that is ready before its
// transactions are due waits for them in the gate; one that is late starts them at once.
//
// ArrivalGate is the runner's step gate for the open loop (harness/run/step_gate.h): it holds a
// session's first step (first attempt) until its intended start, by the step's race deadline at the
// latest (a rate so low that a transaction is due later than that is refused by the CLI). It is not
// a pause: the trial's clock runs.
// Thread-safety: ArrivalSchedule: Start() on the runner's thread before any trial; Intended() from
// any thread after it. ArrivalGate: as every StepGate, safe from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "harness/run/step_gate.h"

namespace racelab::workload {

class ArrivalSchedule {
 public:
  // `rate_per_s` ≤ 0: closed loop. REQUIRES: clients ≥ 1.
  ArrivalSchedule(int clients, double rate_per_s) : clients_(clients), rate_(rate_per_s) {}

  bool open() const { return rate_ > 0; }
  int clients() const { return clients_; }
  double rate_per_s() const { return rate_; }
  // The run's origin: the first round's start (the open loop's first arrival).
  void Start(SteadyTime origin) { origin_ = origin; }
  SteadyTime origin() const { return origin_; }
  // Open loop: when transaction `session` of round `round` is due (see above). Closed loop: origin.
  SteadyTime Intended(int round, int session) const;

 private:
  int clients_;
  double rate_;
  SteadyTime origin_{};
};

class ArrivalGate final : public StepGate {
 public:
  // REQUIRES: `schedule` outlives the gate and is open().
  ArrivalGate(const ArrivalSchedule* schedule, int round) : schedule_(schedule), round_(round) {}

  std::string name() const override { return "arrival"; }
  GateAnswer AwaitTurn(const GateTurn& turn, const GateLimits& limits) override;
  void Started(const GateTurn&) override {}
  void Ended(const GateTurn&) override {}
  void Abandon() override;

 private:
  const ArrivalSchedule* schedule_;
  int round_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool abandoned_ = false;  // guarded by mu_
};

// The runner's gate factory of an open-loop run: an ArrivalGate per round (trial).
GateFactory ArrivalGates(const ArrivalSchedule* schedule);

}  // namespace racelab::workload
