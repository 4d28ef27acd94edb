#include "harness/run/instructor_gate.h"

#include <algorithm>

#include "harness/model/step_kind.h"

namespace racelab {

InstructorGate::InstructorGate(const GateSetup& setup, std::vector<InstructorStep> order)
    : item_(*setup.item),
      trial_(setup.trial),
      events_(setup.events),
      clock_(setup.clock),
      order_(std::move(order)),
      in_order_(order_.begin(), order_.end()),
      session_grants_(setup.item->sessions.size(), 0) {}

std::vector<InstructorStep> InstructorGate::OrderOf(const PlanItem& item) {
  std::vector<InstructorStep> order(item.order_entries.size());
  for (size_t s = 0; s < item.sessions.size(); ++s) {
    const auto& steps = item.sessions[s].steps;
    for (size_t k = 0; k < steps.size(); ++k) {
      const int e = steps[k].order_entry;
      if (e >= 0 && static_cast<size_t>(e) < order.size())
        order[static_cast<size_t>(e)] = {static_cast<int>(s), k};
    }
  }
  return order;
}

bool InstructorGate::Holds(const PlannedStep& step) {
  for (const StepKindInfo& info : kStepKinds) {
    if (info.kind == step.kind) return !info.is_wait;
  }
  return true;
}

TrialEvent InstructorGate::EventOf(TrialEvent::Kind kind, const GateTurn& turn) const {
  TrialEvent e;
  e.kind = kind;
  e.at_us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                                  clock_->origin())
                .count();
  e.trial = trial_;
  e.session_index = turn.session_index;
  e.session = turn.session->label;
  e.step = turn.step->name;
  e.attempt = turn.attempt;
  return e;
}

GateAnswer InstructorGate::AwaitTurn(const GateTurn& turn, const GateLimits& limits) {
  if (turn.session_failed || !Holds(*turn.step)) return {};
  const InstructorStep me{turn.session_index, turn.step_index};
  if (!order_.empty() && in_order_.count(me) == 0) return {};
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (abandoned_) return {GateAnswer::Result::kStopped};
    held_.insert(me);
    if (turn.connection != nullptr) held_conns_[me.session_index] = turn.connection;
  }
  TrialClock::PauseScope pause(clock_);
  events_->Publish(EventOf(TrialEvent::Kind::kGateHeld, turn));
  GateAnswer answer;
  {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      if (abandoned_ || (limits.stop != nullptr && limits.stop->stop_requested())) {
        answer.result = GateAnswer::Result::kStopped;
        break;
      }
      if (auto typed = typed_.find(me.session_index); typed != typed_.end()) {
        RunTypedLocked(me.session_index, turn.connection, &lock);
        continue;
      }
      if (ReleasedLocked(me)) break;
      const auto now = std::chrono::steady_clock::now();
      if (now >= limits.hold_deadline) {
        answer.result = GateAnswer::Result::kTimedOut;
        answer.deadline_exceeded = true;
        answer.ends_trial = true;
        answer.message =
            "step mode: held at the gate for longer than the hold deadline (no key pressed)";
        break;
      }
      cv_.wait_until(lock, std::min(limits.hold_deadline, now + kStopPollSlice));
    }
    held_.erase(me);
    held_conns_.erase(me.session_index);
    if (auto typed = typed_.find(me.session_index); typed != typed_.end()) {
      TypedStatement t = std::move(typed->second);
      typed_.erase(typed);
      lock.unlock();
      QueryResult r;
      r.refused = true;
      r.message = "not run: the walk was stopped first";
      t.done(r);
    }
  }
  events_->Publish(EventOf(TrialEvent::Kind::kGateReleased, turn));
  return answer;
}

void InstructorGate::RunTypedLocked(int session, Session* conn,
                                    std::unique_lock<std::mutex>* lock) {
  auto it = typed_.find(session);
  TypedStatement t = std::move(it->second);
  typed_.erase(it);
  typed_running_[session] = conn;
  lock->unlock();
  const QueryResult r = conn->Exec(t.sql, t.deadline, t.max_rows);
  t.done(r);
  lock->lock();
  typed_running_.erase(session);
}

Status InstructorGate::RunOnHeld(int session_index, TypedStatement statement) {
  std::lock_guard<std::mutex> lock(mu_);
  auto conn = held_conns_.find(session_index);
  if (abandoned_ || conn == held_conns_.end() || conn->second == nullptr)
    return Status::Usage("it is not waiting at the gate");
  if (typed_.count(session_index) > 0 || typed_running_.count(session_index) > 0)
    return Status::Usage("it runs a typed statement already");
  typed_[session_index] = std::move(statement);
  cv_.notify_all();
  return Status::Ok();
}

bool InstructorGate::CancelTyped(int session_index) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = typed_running_.find(session_index);
  if (it == typed_running_.end()) return false;
  it->second->Cancel();  // safe from any thread (session.h)
  return true;
}

bool InstructorGate::ReleasedLocked(const InstructorStep& s) {
  if (granted_.erase(s) > 0) return true;
  int& mine = session_grants_.at(static_cast<size_t>(s.session_index));
  if (mine > 0) {
    --mine;
    return true;
  }
  if (any_grants_ > 0) {
    --any_grants_;
    return true;
  }
  return false;
}

void InstructorGate::Started(const GateTurn& turn) {
  std::lock_guard<std::mutex> lock(mu_);
  started_.insert({turn.session_index, turn.step_index});
}

void InstructorGate::Abandon() {
  std::lock_guard<std::mutex> lock(mu_);
  abandoned_ = true;
  cv_.notify_all();
}

std::optional<InstructorStep> InstructorGate::NextEntryLocked() const {
  for (size_t i = cursor_; i < order_.size(); ++i) {
    if (started_.count(order_[i]) == 0 && granted_.count(order_[i]) == 0) return order_[i];
  }
  return std::nullopt;
}

std::optional<int> InstructorGate::FirstHeldLocked() const {
  if (held_.empty()) return std::nullopt;
  return held_.begin()->session_index;  // the set is ordered by session index: file order
}

std::optional<int> InstructorGate::Next() {
  std::lock_guard<std::mutex> lock(mu_);
  std::optional<int> released;
  if (std::optional<InstructorStep> entry = NextEntryLocked()) {
    while (cursor_ < order_.size() && !(order_[cursor_] == *entry)) ++cursor_;
    ++cursor_;
    granted_.insert(*entry);
    released = entry->session_index;
  } else if (std::optional<int> first = FirstHeldLocked()) {
    ++session_grants_.at(static_cast<size_t>(*first));
    released = first;
  } else {
    ++any_grants_;
  }
  cv_.notify_all();
  return released;
}

void InstructorGate::NextOf(int session_index) {
  std::lock_guard<std::mutex> lock(mu_);
  if (session_index < 0 || static_cast<size_t>(session_index) >= session_grants_.size()) return;
  ++session_grants_[static_cast<size_t>(session_index)];
  cv_.notify_all();
}

std::optional<int> InstructorGate::NextInOrder() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (std::optional<InstructorStep> entry = NextEntryLocked()) return entry->session_index;
  return FirstHeldLocked();
}

std::vector<InstructorStep> InstructorGate::held() const {
  std::lock_guard<std::mutex> lock(mu_);
  return {held_.begin(), held_.end()};
}

}  // namespace racelab
