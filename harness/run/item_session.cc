#include "harness/run/item_session.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <thread>

#include "harness/run/workspace_reset.h"

namespace racelab::internal {
namespace {

constexpr long kDropDeadlineMs = 15000;
// After a stop request only cleanup runs, and a server that cannot answer it within this never
// will: the cap on every control-connection deadline then (connect, statement), in ms.
constexpr long kAfterStopDeadlineMs = 3000;
constexpr const char* kControl = "control";
// racelab's session that reads a workspace's state for `reset:` (workspace_reset.h).
constexpr const char* kChecker = "racelab:check";

}  // namespace

ItemSession::ItemSession(const RunOptions& options, const PlanItem& item,
                         std::vector<std::string> workspaces)
    : options_(options), item_(item), engine_(*options.engine), slots_(workspaces.size()) {
  for (size_t i = 0; i < workspaces.size(); ++i) slots_[i].workspace = std::move(workspaces[i]);
  sessions_.resize(item.sessions.size());
  sent_.assign(item.sessions.size(), -1);
}

ItemSession::~ItemSession() {
  JoinHelpers();
  monitor_.reset();
  sessions_.clear();  // closing worker sessions ends them on the server and releases their locks
  DropSchema();
  for (auto& slot : slots_) slot.checker.reset();
  for (auto& slot : slots_)
    slot.control.reset();  // before the engine drops what it made (Engine::Close)
}

int ItemSession::WorkspaceSlots(const Engine& engine) {
  return engine.capabilities().workspace_reset_in_background ? 2 : 1;
}

SteadyTime ItemSession::Deadline() const { return In(options_.statement_timeout_ms); }

SteadyTime ItemSession::In(long ms) const {
  if (options_.stop != nullptr && options_.stop->stop_requested())
    ms = std::min(ms, kAfterStopDeadlineMs);
  return std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
}

Result<std::unique_ptr<Session>> ItemSession::Open(const std::string& node,
                                                   const std::string& label) {
  // A role without `node:`, and racelab's own connections, are on the engine's default node.
  return engine_.OpenSession(node.empty() ? engine_.nodes().front() : node, label,
                             In(options_.connect_timeout_ms),
                             // The control connection must finish its cleanup after a stop
                             // request: only its deadlines bound it.
                             label == kControl || label == kChecker ? nullptr : options_.stop);
}

Status ItemSession::EnsureConnections() {
  if (!monitor_ || !monitor_->healthy()) {
    auto m =
        engine_.OpenMonitor(options_.monitor_poll, In(options_.connect_timeout_ms), options_.stop);
    if (!m.ok()) return m.status();
    monitor_ = std::move(m.value());
  }
  for (size_t i = 0; i < sessions_.size(); ++i) {
    auto& conn = sessions_[i];
    if (sent_[i] >= 0)
      continue;  // its clean start is in flight: FinishSessionsClean sees if it is lost
    if (conn && conn->healthy()) continue;
    auto c = Open(item_.sessions[i].node, item_.sessions[i].label);
    if (!c.ok()) return c.status();
    conn = std::move(c.value());
  }
  return Status::Ok();
}

SessionStart ItemSession::StartOf(size_t i, const std::string& workspace) const {
  const PlannedSession& s = item_.sessions[i];
  return SessionStart{s.label, workspace, s.settings};
}

Status ItemSession::StartOne(size_t i, const std::string& workspace, bool* lost) {
  return sessions_[i]->StartClean(StartOf(i, workspace), Deadline(), item_.file, lost);
}

Status ItemSession::ReopenAndStart(size_t i, const std::string& workspace, bool* lost) {
  // Ended while idle (e.g. terminated from outside after its last step): reopened once.
  auto c = Open(item_.sessions[i].node, item_.sessions[i].label);
  if (!c.ok()) return c.status();
  sessions_[i] = std::move(c.value());
  return StartOne(i, workspace, lost);
}

void ItemSession::SendSessionsClean(int trial) {
  const std::string& workspace = SlotOf(trial).workspace;
  for (size_t i = 0; i < sessions_.size(); ++i) {
    if (sent_[i] >= 0 || !sessions_[i]) continue;
    if (sessions_[i]->SendStartClean(StartOf(i, workspace), Deadline())) sent_[i] = trial;
  }
  // The control of the trial just over: its workspace's next trial is `trial - 1 + slots`, prepared
  // by the helper (two slots) or by AwaitWorkspace (one). Not when no later trial uses that
  // workspace.
  if (trial == 0 || trial - 1 + static_cast<int>(slots_.size()) >= item_.trials) return;
  Slot& done = SlotOf(trial - 1);
  if (done.control_sent || !done.control || done.helper.joinable()) return;
  done.control_sent = done.control->SendStartClean(ControlStart(done), Deadline());
}

Status ItemSession::StartSessionsClean(int trial) {
  SendSessionsClean(trial);
  // The sessions that could not be sent a clean start (a transaction still open, or an engine that
  // sends none ahead): one round trip or more each, all at once (Session::StartClean may run on
  // several threads for different sessions), so the trial waits for the slowest, not for their sum;
  // before the workspace is prepared, since an open transaction may hold its locks.
  const std::string& workspace = SlotOf(trial).workspace;
  std::vector<size_t> now;
  for (size_t i = 0; i < sessions_.size(); ++i) {
    if (sent_[i] < 0) now.push_back(i);
  }
  const size_t n = now.size();
  std::vector<Status> status(n, Status::Ok());
  std::unique_ptr<bool[]> lost(new bool[n]());
  std::vector<std::thread> threads;
  for (size_t k = 1; k < n; ++k) {
    threads.emplace_back([this, k, &now, &workspace, &status, &lost] {
      status[k] = StartOne(now[k], workspace, &lost[k]);
    });
  }
  if (n > 0) status[0] = StartOne(now[0], workspace, &lost[0]);
  for (auto& t : threads) t.join();
  for (size_t k = 0; k < n; ++k) {
    const size_t i = now[k];
    if (lost[k]) status[k] = ReopenAndStart(i, workspace, &lost[k]);
    if (!status[k].ok()) return status[k];
  }
  return Status::Ok();
}

Status ItemSession::FinishSessionsClean(int trial) {
  const std::string& workspace = SlotOf(trial).workspace;
  Status first = Status::Ok();
  for (size_t i = 0; i < sessions_.size(); ++i) {
    if (sent_[i] < 0) continue;
    const int sent_for = sent_[i];
    sent_[i] = -1;
    bool lost = false;
    Status s = sessions_[i]->FinishStartClean(StartOf(i, SlotOf(sent_for).workspace), Deadline(),
                                              item_.file, &lost);
    if (s.ok() && sent_for != trial)
      s = StartOne(i, workspace, &lost);  // sent for another workspace
    if (lost) s = ReopenAndStart(i, workspace, &lost);
    if (first.ok() && !s.ok()) first = s;  // every one is collected, the first error reported
  }
  return first;
}

SessionStart ItemSession::ControlStart(const Slot& slot) {
  return SessionStart{kControl, slot.workspace, {}};
}

Status ItemSession::CleanControl(Slot* slot) {
  // The control session runs `setup`, `final` and `teardown`: it starts each trial clean too (a
  // temporary table or session lock of the last trial's setup is gone), in the trial's workspace.
  bool lost = false;
  if (slot->control_sent) {  // sent when its last trial was over: collected here
    slot->control_sent = false;
    Status s = slot->control->FinishStartClean(ControlStart(*slot), Deadline(), item_.file, &lost);
    if (!lost) return s;
  }
  if (!slot->control || !slot->control->healthy()) {
    auto c = Open("", kControl);
    if (!c.ok()) return c.status();
    slot->control = std::move(c.value());
  }
  return slot->control->StartClean(ControlStart(*slot), Deadline(), item_.file, &lost);
}

Status ItemSession::TryReset(Slot* slot, bool* done) {
  *done = false;
  if (!slot->baseline || slot->dirty || slot->resets >= kFreshWorkspaceEvery) return Status::Ok();
  const auto after = [&] { return fmt::format("after trial {}", slot->used_by + 1); };
  QueryResult r = slot->control->Exec(item_.reset, Deadline());
  if (!r.ok()) {
    if (!engine_.IsScenarioError(r) && !r.refused)
      return Status::Ok();  // lost, deadline: set up fresh
    return Status::Usage(
        fmt::format("{}: reset: {} (SQLSTATE {}), {}", item_.file, r.message, r.sqlstate, after()));
  }
  auto version = engine_.ReadWorkspaceState(slot->checker.get(),
                                            Engine::WorkspaceStateKind::kVersion, Deadline());
  if (version.ok() && slot->version && StateDifference(*slot->version, *version).empty()) {
    ++slot->resets;
    *done = true;
    return Status::Ok();
  }
  // The catalogue rows or contents moved, or the version could not be read — DDL dropped or changed
  // a table it reads (a difference too), or the checker is gone: compare the state itself.
  if (!slot->checker->healthy()) return Status::Ok();  // set up fresh
  auto state = engine_.ReadWorkspaceState(slot->checker.get(), Engine::WorkspaceStateKind::kFull,
                                          Deadline());
  if (!state.ok()) return Status::Ok();
  if (std::string diff = StateDifference(*slot->baseline, *state); !diff.empty()) {
    return Status::Usage(
        fmt::format("{}: reset: {} the workspace is not as setup left it: {} (a reset must restore "
                    "every row, sequence "
                    "and object setup made; docs/scenario-format.md \"reset\")",
                    item_.file, after(), diff));
  }
  // The state is setup's: the next reset compares its version with this one (none when it could not
  // be read: then every reset here reads the state).
  if (version.ok()) {
    slot->version = std::move(version.value());
  } else {
    slot->version.reset();
  }
  ++slot->resets;
  *done = true;
  return Status::Ok();
}

// After a fresh setup: the checker (re)opened and prepared, the baseline's state and version read.
// Any failure leaves no baseline, so the workspace is set up fresh again next time.
void ItemSession::ReadBaseline(Slot* slot) {
  if (!slot->checker || !slot->checker->healthy()) {
    auto c = Open("", kChecker);
    if (!c.ok()) return;
    slot->checker = std::move(c.value());
  }
  if (!engine_.PrepareWorkspaceChecks(slot->checker.get(), slot->workspace, Deadline()).ok())
    return;
  auto state = engine_.ReadWorkspaceState(slot->checker.get(), Engine::WorkspaceStateKind::kFull,
                                          Deadline());
  if (!state.ok()) return;
  auto version = engine_.ReadWorkspaceState(slot->checker.get(),
                                            Engine::WorkspaceStateKind::kVersion, Deadline());
  if (!version.ok()) return;
  slot->baseline = std::move(state.value());
  slot->version = std::move(version.value());
}

Status ItemSession::Prepare(Slot* slot) {
  Status clean = CleanControl(slot);
  if (!clean.ok()) return clean;
  const bool checked = !item_.reset.empty() && engine_.CanCheckWorkspace();
  if (checked) {
    bool done = false;
    Status reset = TryReset(slot, &done);
    if (!reset.ok() || done) return reset;
    if (!slot->control->healthy()) {
      if (Status again = CleanControl(slot); !again.ok()) return again;
    }
  }
  slot->baseline.reset();
  slot->version.reset();
  slot->resets = 0;
  slot->dirty = false;
  Status reset = engine_.ResetWorkspace(slot->workspace, Deadline(), options_.stop);
  if (!reset.ok()) return reset;
  slot->created = true;
  if (!item_.setup.empty()) {
    QueryResult r = slot->control->Exec(item_.setup, Deadline());
    if (!r.ok()) {
      std::string msg =
          fmt::format("{}: setup: {} (SQLSTATE {})", item_.file, r.message, r.sqlstate);
      // A setup that cannot run is a scenario-file error (exit 2), unless the server failed.
      return engine_.IsScenarioError(r) || r.refused ? Status::Usage(msg) : Status::Database(msg);
    }
  }
  if (checked) ReadBaseline(slot);
  return Status::Ok();
}

void ItemSession::PrepareAhead(int trial) {
  if (slots_.size() < 2 || trial >= item_.trials) return;
  Slot& slot = SlotOf(trial);
  if (slot.helper.joinable() || slot.prepared_for == trial) return;
  slot.prepared_for = trial;
  slot.helper_status = Status::Ok();
  slot.helper = std::thread([this, &slot] {
    try {
      slot.helper_status = Prepare(&slot);
    } catch (
        const std::exception& e) {  // a broken invariant: reported when the trial needs the slot
      slot.helper_status =
          Status::Internal(fmt::format("preparing workspace {}: {}", slot.workspace, e.what()));
    }
  });
}

Status ItemSession::AwaitWorkspace(int trial) {
  Slot& slot = SlotOf(trial);
  current_ = static_cast<size_t>(trial) % slots_.size();
  if (slot.helper.joinable()) {
    slot.helper.join();
    if (slot.prepared_for == trial) {
      slot.used_by = trial;
      return slot.helper_status;
    }
  }
  slot.prepared_for = trial;
  slot.used_by = trial;
  return Prepare(&slot);
}

void ItemSession::TrialEnded(int trial, bool clean) {
  Slot& slot = SlotOf(trial);
  if (!clean && slot.used_by == trial) slot.dirty = true;
}

void ItemSession::JoinHelpers() {
  for (auto& slot : slots_) {
    if (slot.helper.joinable()) slot.helper.join();
  }
}

std::vector<FinalValue> ItemSession::RunFinals() {
  std::vector<FinalValue> out;
  for (const PlannedFinal* f : AllFinalQueries(item_.expect)) {  // expect.final, then one_of's
    FinalValue v;
    v.sql = f->sql;
    if (!control() || !control()->healthy()) {
      v.error = "control connection lost";
    } else {
      QueryResult r = control()->Exec(f->sql, Deadline());
      if (!r.ok()) {
        v.error = r.sqlstate + ": " + r.message;
      } else if (!r.values.empty() && !r.values[0].empty()) {
        v.value = r.values[0][0];
      }
    }
    out.push_back(std::move(v));
  }
  return out;
}

std::string ItemSession::RunTeardown(bool* scenario_error) {
  if (item_.teardown.empty() || !control() || !control()->healthy()) return "";
  QueryResult r = control()->Exec(item_.teardown, Deadline());
  if (engine_.IsScenarioError(r)) *scenario_error = true;
  return r.ok() ? "" : fmt::format("teardown failed: {} (SQLSTATE {})", r.message, r.sqlstate);
}

Status ItemSession::DropSchema() {
  JoinHelpers();
  Status first = Status::Ok();
  for (auto& slot : slots_) {
    if (!slot.created) continue;
    // On failure the workspace is not tried again (the destructor would only wait again): it stays
    // until `racelab clean` finds its run gone.
    slot.created = false;
    Status dropped = engine_.DropWorkspace(slot.workspace, In(kDropDeadlineMs + 2000));
    if (first.ok() && !dropped.ok()) first = dropped;
  }
  return first;
}

}  // namespace racelab::internal
