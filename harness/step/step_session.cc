#include "harness/step/step_session.h"

#include <fmt/format.h>

#include <algorithm>

#include "harness/model/step_kind.h"
#include "harness/step/step_walk.h"

namespace racelab::step {

using Clock = std::chrono::steady_clock;

RunOptions StepOptions::DefaultRunOptions() {
  RunOptions o;
  o.statement_timeout_ms = 3600000;
  o.trial_timeout_ms = 3600000;
  o.gate_hold_timeout_ms = 3600000;
  o.monitor_poll = std::chrono::milliseconds(10);
  return o;
}

namespace {

PlanItem Prepared(PlanItem item) {
  item.trials = 1;
  for (PlannedSession& s : item.sessions) {
    for (PlannedStep& st : s.steps) {
      if (st.kind == StepKind::kSql && st.read_rows == 0) st.read_rows = 3;  // the values read
    }
  }
  return item;
}

std::vector<PlanItem> Items(const StepOptions& o) {
  std::vector<PlanItem> out;
  for (const PlanItem& item : o.levels) out.push_back(Prepared(item));
  if (out.empty()) out.push_back(Prepared(o.item));
  return out;
}

std::vector<std::vector<std::vector<std::string>>> Describe(const std::vector<PlanItem>& items,
                                                            const Engine& engine) {
  std::vector<std::vector<std::vector<std::string>>> out;
  for (const PlanItem& item : items) out.push_back(DescribeSteps(item, engine));
  return out;
}

}  // namespace

StepSession::StepSession(StepOptions options)
    : options_(std::move(options)),
      items_(Items(options_)),
      describe_(Describe(items_, *options_.engine)) {
  if (options_.teacher) OpenTeacher();
  size_t level = 0;
  for (size_t i = 0; i < items_.size(); ++i) {
    if (items_[i].isolation == options_.item.isolation) {
      level = i;
      break;
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  StartWalk(level);
}

StepSession::~StepSession() { Quit(); }

void StepSession::StartWalk(size_t level) {  // REQUIRES: mu_ is held
  level_ = level;
  walk_ = std::make_unique<Walk>(++walks_, level);
  walk_->model = std::make_unique<StepViewModel>(items_[level], options_.engine->name(),
                                                 describe_[level], walks_);
  Walk* w = walk_.get();
  w->thread = std::thread([this, w] { RunWalk(w); });
  w->snapshotter = std::thread([this, w] { SnapshotLoop(w); });
}

void StepSession::StopWalk() {  // REQUIRES: mu_ is not held; the controller's thread
  Walk* w = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!walk_) return;
    w = walk_.get();
  }
  StopTyped(w);
  {
    std::lock_guard<std::mutex> lock(mu_);
    w->stop.RequestStop();
    w->snap_quit = true;
    changed_.notify_all();
  }
  {
    std::lock_guard<std::mutex> g(w->gate_mu);
    if (w->gate != nullptr) w->gate->Abandon();
  }
  w->thread.join();
  w->snapshotter.join();
  std::lock_guard<std::mutex> lock(mu_);
  walk_.reset();
}

void StepSession::Notify() {
  changed_.notify_all();
  if (options_.on_change) options_.on_change();
}

std::unique_ptr<StepGate> StepSession::MakeGate(Walk* w, const GateSetup& setup) {
  std::map<ConnectionId, std::string> labels;
  for (const PlannedSession& s : setup.item->sessions) {
    const auto it = setup.role_pids->find(s.role);
    if (it != setup.role_pids->end() && static_cast<size_t>(s.index) <= it->second.size())
      labels[it->second[static_cast<size_t>(s.index) - 1]] = s.label;
  }
  if (teacher_) labels[teacher_->connection_id()] = "teacher";  // a session may wait for it
  const bool can = setup.monitor != nullptr && setup.monitor->CanSnapshotLocks();
  const std::string note =
      can ? ""
          : fmt::format("held locks: not available on this engine ({})", options_.engine->name());
  auto gate = std::make_unique<InstructorGate>(
      setup, options_.order.empty() ? InstructorGate::OrderOf(*setup.item) : options_.order);
  {
    std::lock_guard<std::mutex> g(w->gate_mu);
    w->gate = gate.get();
    w->monitor = can ? setup.monitor : nullptr;
    w->workspace = setup.workspace;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    w->labels = labels;
    w->model->SetConnections(
        std::move(labels),
        setup.monitor != nullptr ? setup.monitor->connection_id() : ConnectionId{}, note);
  }
  Notify();
  return gate;
}

void StepSession::OnEvent(Walk* w, const TrialEvent& e) {
  if (e.kind == TrialEvent::Kind::kTrialEnded) {
    std::lock_guard<std::mutex> g(w->gate_mu);  // waits for a look in progress
    w->gate = nullptr;
    w->monitor = nullptr;
  }
  bool changed = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto waiting = [&] {
      std::vector<std::string> out;
      for (const SessionView& v : w->model->view().sessions)
        if (v.state == SessionState::kWaiting) out.push_back(v.label);
      return out;
    };
    const std::vector<std::string> before = waiting();
    changed = w->model->Fold(e);
    if (e.kind == TrialEvent::Kind::kWaiting && e.wait && w->typed.running &&
        w->typed_session >= 0) {
      TypedWaiting(w, *e.wait);  // a session's typed statement waits (the trial's monitor saw it)
      changed = true;
    }
    if (e.kind == TrialEvent::Kind::kStepEnded && w->typed.running &&
        !w->typed.waiting_for.empty()) {
      // What the typed statement waits for may have ended with this step: it waits until the
      // monitor sees it again (a poll away) or it ends — so a quiet trial shows what it waits for
      // now.
      w->typed.waiting_for.clear();
      w->typed.wait_type.clear();
      changed = true;
    }
    if (e.kind == TrialEvent::Kind::kGateHeld) w->first_held = true;
    if (e.kind == TrialEvent::Kind::kWaiting && changed) {
      // A session began to wait: look at the locks while it waits (not on this thread: the
      // monitor's poll thread publishes it).
      for (const std::string& label : waiting()) {
        if (std::find(before.begin(), before.end(), label) != before.end()) continue;
        w->snap_for = "while " + label + " waits";
        w->snap_wanted = true;
      }
    }
  }
  if (changed) Notify();
}

void StepSession::SnapshotLoop(Walk* w) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    changed_.wait(lock, [w] { return w->snap_wanted || w->snap_quit; });
    if (w->snap_quit) return;
    const std::string when = w->snap_for;
    lock.unlock();
    std::optional<LockSnapshot> snap;
    {
      std::lock_guard<std::mutex> g(w->gate_mu);
      if (w->monitor != nullptr) {
        Result<LockSnapshot> r = w->monitor->SnapshotLocks(Clock::now() + std::chrono::seconds(2));
        if (r.ok()) snap = std::move(r.value());
      }
    }
    lock.lock();
    w->snap_wanted = false;
    if (snap) w->model->FoldLocks(*snap, when);
    lock.unlock();
    Notify();
    lock.lock();
  }
}

void StepSession::RunWalk(Walk* w) {
  RunOptions ro = options_.run;
  ro.engine = options_.engine;
  ro.stop = &w->stop;
  ro.lock_snapshots = true;
  ro.gate = [this, w](const GateSetup& setup) { return MakeGate(w, setup); };
  ro.subscriber = [this, w](const TrialEvent& e) { OnEvent(w, e); };
  std::vector<TrialResult> trials;
  Status st = Status::Ok();
  {
    Runner runner(ro);
    st = runner.RunItem(items_[w->level], &trials);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (w->stop.stop_requested()) {
      w->model->Finish(StepView::Phase::kFinished, "stopped");
    } else if (!st.ok()) {
      w->model->Finish(StepView::Phase::kFailed, st.message());
    } else if (!trials.empty() && !trials.front().error.empty()) {
      w->model->Finish(StepView::Phase::kFailed, trials.front().error);
    } else {
      w->model->Finish(StepView::Phase::kFinished, "every step ran");
    }
  }
  Notify();
}

StepView StepSession::view() const {
  std::optional<int> next;
  Walk* w = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    w = walk_.get();
    if (w == nullptr) return {};
  }
  {
    std::lock_guard<std::mutex> g(w->gate_mu);
    if (w->gate != nullptr) next = w->gate->NextInOrder();
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (walk_.get() != w) return {};
  StepView v = w->model->view();
  v.reset_ms = reset_ms_;
  v.typed = w->typed;
  v.levels = level_names();
  if (next && static_cast<size_t>(*next) < v.sessions.size()) {
    const SessionView& n = v.sessions[static_cast<size_t>(*next)];
    v.next_session = n.label;
    if (n.at_gate && !n.next_ask.empty()) {  // the step Next() runs has a question
      v.ask_next = {.session = n.label,
                    .step = n.next_step,
                    .step_label = n.next_label,
                    .question = n.next_ask,
                    .answer = {}};
    }
  }
  return v;
}

uint64_t StepSession::version() const {
  std::lock_guard<std::mutex> lock(mu_);
  return walk_ ? walk_->model->view().version + static_cast<uint64_t>(walk_->number) * 1000000000u
               : 0;
}

uint64_t StepSession::AwaitChange(uint64_t seen, SteadyTime deadline) const {
  std::unique_lock<std::mutex> lock(mu_);
  auto now = [this] {
    return walk_ ? walk_->model->view().version + static_cast<uint64_t>(walk_->number) * 1000000000u
                 : 0;
  };
  changed_.wait_until(lock, deadline, [&] { return now() != seen; });
  return now();
}

Result<std::optional<std::string>> StepSession::Next() {
  Walk* w = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    w = walk_.get();
  }
  if (w == nullptr) return Status::Usage("step mode has ended");
  std::optional<int> released;
  {
    std::lock_guard<std::mutex> g(w->gate_mu);
    if (w->gate == nullptr) return Status::Usage("the walk is over: b starts it again, q quits");
    released = w->gate->Next();
  }
  if (!released) return std::optional<std::string>();
  return std::optional<std::string>(items_[0].sessions.at(static_cast<size_t>(*released)).label);
}

Status StepSession::Next(const std::string& label) {
  int index = -1;
  for (size_t s = 0; s < items_[0].sessions.size(); ++s) {
    if (items_[0].sessions[s].label == label) index = static_cast<int>(s);
  }
  if (index < 0) return Status::Usage(fmt::format("no session '{}' in this scenario", label));
  Walk* w = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    w = walk_.get();
  }
  if (w == nullptr) return Status::Usage("step mode has ended");
  std::lock_guard<std::mutex> g(w->gate_mu);
  if (w->gate == nullptr) return Status::Usage("the walk is over: b starts it again, q quits");
  w->gate->NextOf(index);
  return Status::Ok();
}

int StepSession::releases() const {
  std::lock_guard<std::mutex> lock(mu_);
  return walk_ ? walk_->model->Releases(-1) : 0;
}

bool StepSession::AwaitQuiet(int releases_before, SteadyTime deadline, const std::string& pending,
                             bool* stuck) const {
  std::unique_lock<std::mutex> lock(mu_);
  if (stuck != nullptr) *stuck = false;
  return changed_.wait_until(lock, deadline, [&] {
    if (!walk_) return true;
    const StepView& v = walk_->model->view();
    if (v.phase == StepView::Phase::kFinished || v.phase == StepView::Phase::kFailed)
      return TypedQuietLocked();  // a typed statement the last step let go ends too
    if (walk_->snap_wanted || !walk_->model->Quiet() || !TypedQuietLocked()) return false;
    if (walk_->model->Releases(-1) > releases_before) return true;
    const bool waits = std::any_of(v.sessions.begin(), v.sessions.end(), [&](const SessionView& s) {
      return !pending.empty() && s.label == pending && s.state == SessionState::kWaiting;
    });
    if (waits && stuck != nullptr) *stuck = true;
    return waits;
  });
}

Status StepSession::Reset() {
  size_t level = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    level = level_;
  }
  return Restart(level);
}

std::vector<std::string> StepSession::level_names() const {
  std::vector<std::string> out;
  for (const PlanItem& item : items_) out.emplace_back(IsolationName(item.isolation));
  return out;
}

Status StepSession::SwitchLevel(const std::string& level) {
  size_t now = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    now = level_;
  }
  if (level.empty()) return Restart((now + 1) % items_.size());
  const std::optional<IsolationLevel> wanted = ParseIsolation(level);
  for (size_t i = 0; wanted && i < items_.size(); ++i) {
    if (items_[i].isolation == *wanted) return Restart(i);
  }
  return Status::Usage(fmt::format("{} runs at {} on {} here, not at '{}' (l alone: the next one)",
                                   items_[0].scenario, fmt::join(level_names(), ", "),
                                   options_.engine->name(), level));
}

Status StepSession::Restart(size_t level) {
  const auto t0 = Clock::now();
  StopWalk();
  std::unique_lock<std::mutex> lock(mu_);
  StartWalk(level);
  Walk* w = walk_.get();
  const bool ready = changed_.wait_until(lock, Clock::now() + std::chrono::seconds(30), [w] {
    const StepView& v = w->model->view();
    return w->first_held || v.phase == StepView::Phase::kFinished ||
           v.phase == StepView::Phase::kFailed;
  });
  reset_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  w->model->mutable_view().version++;
  lock.unlock();
  Notify();
  return ready ? Status::Ok() : Status::Database("the new walk did not start within 30 s");
}

void StepSession::Quit() { StopWalk(); }

}  // namespace racelab::step
