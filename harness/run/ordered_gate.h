// OrderedGate: the step gate of an ordered item (`order:`, docs/scenario-format.md "Ordered steps
// and permutations") — its permutation's hand-overs, over the entries' latches (OrderGates,
// order_gate.h). A step that is an entry waits first for the markers `(other)` of its session's
// previous entry (PlannedStep::await_ended), then for the entry before it in the permutation to end
// or be seen waiting (await_entry). Both are waits on the race: they end by
// GateLimits::race_deadline and never pause the trial. A wait that fails ends the trial
// (GateAnswer::ends_trial): an order that cannot go on would otherwise hold every other session
// until its statement deadline; the answer's message names the entry waited for and, when it never
// started, the step of its session still running before it. Steps that are no entry go at once.
// Thread-safety: as StepGate.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/run/order_gate.h"
#include "harness/run/step_gate.h"

namespace racelab {

class OrderedGate final : public StepGate {
 public:
  // REQUIRES: setup.item has order_entries; the item, role_pids and monitor outlive the gate.
  explicit OrderedGate(const GateSetup& setup);

  std::string name() const override { return "ordered"; }
  GateAnswer AwaitTurn(const GateTurn& turn, const GateLimits& limits) override;
  void Started(const GateTurn& turn) override;
  void Ended(const GateTurn& turn) override;
  void Abandon() override { order_.Abandon(); }

 private:
  // Not kDone/kWaiting: the answer, with the message the worker records.
  GateAnswer Refuse(OrderGates::Result r, const PlannedOrderEntry* late, const std::string& why,
                    const GateLimits& limits);
  // "within 100 ms", or "before the trial deadline (… ms)" once the trial's deadline has passed.
  static std::string WithinText(const GateLimits& limits);

  const PlanItem& item_;
  const std::map<std::string, std::vector<ConnectionId>>& role_pids_;
  WaitMonitor* const monitor_;
  OrderGates order_;
};

}  // namespace racelab
