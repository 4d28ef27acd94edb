#include "harness/run/ordered_gate.h"

#include <fmt/format.h>

namespace racelab {

std::unique_ptr<StepGate> MakeDefaultGate(const GateSetup& setup) {
  if (setup.item != nullptr && !setup.item->order_entries.empty())
    return std::make_unique<OrderedGate>(setup);
  return std::make_unique<FreeGate>();
}

OrderedGate::OrderedGate(const GateSetup& setup)
    : item_(*setup.item),
      role_pids_(*setup.role_pids),
      monitor_(setup.monitor),
      order_(setup.item->order_entries.size()) {}

void OrderedGate::Started(const GateTurn& turn) {
  if (turn.step->order_entry >= 0) order_.Started(turn.step->order_entry);
}

void OrderedGate::Ended(const GateTurn& turn) {
  if (turn.step->order_entry >= 0) order_.Done(turn.step->order_entry);
}

std::string OrderedGate::WithinText(const GateLimits& limits) {
  return limits.clock->passed()
             ? fmt::format("before the trial deadline ({} ms)", limits.trial_timeout_ms)
             : fmt::format("within {} ms", limits.race_ms);
}

GateAnswer OrderedGate::AwaitTurn(const GateTurn& turn, const GateLimits& limits) {
  const PlannedStep& step = *turn.step;
  if (step.order_entry < 0) return {};
  OrderGates::Result r = OrderGates::Result::kDone;
  const PlannedOrderEntry* late = nullptr;
  const char* why = "";
  if (!step.await_ended.empty()) {  // markers (other) of this session's previous entry
    int e = -1;
    r = order_.AwaitEnded(step.await_ended, limits.race_deadline, limits.stop, &e);
    if (e >= 0) late = &item_.order_entries.at(static_cast<size_t>(e));
    why = "did not end";
  }
  if (r == OrderGates::Result::kDone && step.await_entry >= 0) {
    late = &item_.order_entries.at(static_cast<size_t>(step.await_entry));
    const ConnectionId waiter = role_pids_.at(late->session).at(0);
    r = order_.AwaitHandover(step.await_entry, late->once, waiter, monitor_, limits.race_deadline,
                             limits.stop);
    why = "neither ended nor was seen waiting";
  }
  if (r == OrderGates::Result::kDone || r == OrderGates::Result::kWaiting) return {};
  GateAnswer a;
  a.result = r == OrderGates::Result::kAbandoned  ? GateAnswer::Result::kStopped
             : r == OrderGates::Result::kTimedOut ? GateAnswer::Result::kTimedOut
                                                  : GateAnswer::Result::kFailed;
  if (turn.session_failed || a.result == GateAnswer::Result::kStopped) return a;
  return Refuse(r, late, why, limits);
}

GateAnswer OrderedGate::Refuse(OrderGates::Result r, const PlannedOrderEntry* late,
                               const std::string& why, const GateLimits& limits) {
  GateAnswer a;
  a.result = r == OrderGates::Result::kTimedOut ? GateAnswer::Result::kTimedOut
                                                : GateAnswer::Result::kFailed;
  a.deadline_exceeded = r == OrderGates::Result::kTimedOut;
  // The order cannot go on: the trial ends now, not at the late step's own deadline.
  a.ends_trial = true;
  const std::string who = late != nullptr ? late->session + "/" + late->step : "?";
  const std::string when = WithinText(limits);
  // The step waited for may never have started: its session is still in an earlier step, blocked on
  // something no entry before it in the order released (an order that cannot go on).
  const auto& entries = item_.order_entries;
  const int running =
      late != nullptr ? order_.StillRunningBefore(static_cast<int>(late - entries.data()), entries)
                      : -1;
  if (why == "did not end") {
    a.message = fmt::format(
        "order: {} did not end {} (a marker of this session's previous step waits for it)", who,
        when);
  } else {
    a.message = fmt::format("order: {} neither ended nor was seen waiting {}", who, when);
  }
  if (r == OrderGates::Result::kMonitorFailed) {
    a.message =
        fmt::format("order: the wait monitor failed before {} ended or was seen waiting ({})", who,
                    monitor_->error());
  } else if (running >= 0) {
    const PlannedOrderEntry& blocked = entries.at(static_cast<size_t>(running));
    const SteadyTime look = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
    const bool waiting =
        monitor_ != nullptr &&
        monitor_->AwaitBlocked({role_pids_.at(blocked.session).at(0)}, look, nullptr);
    a.message = fmt::format(
        "order: {} never started {}: {}/{} before it in session {} {}, so the order could "
        "not go on",
        who, when, blocked.session, blocked.step, blocked.session,
        waiting ? fmt::format("is still waiting (seen waiting on a lock) — no step before {} "
                              "in the order ended that wait",
                              who)
                : std::string("is still running (not seen waiting on a lock)"));
  }
  return a;
}

}  // namespace racelab
