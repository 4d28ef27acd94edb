#include "harness/engines/sqlite/sqlite_waits.h"

#include <fmt/format.h>

#include <algorithm>

#include "harness/engines/sqlite/sqlite_locks.h"

namespace racelab::sqlite {

namespace {

// The ids of `sessions` on SQLite's one node (kServerNode).
std::vector<int64_t> IdsOnServer(const std::vector<ConnectionId>& sessions) {
  std::vector<int64_t> ids;
  for (const ConnectionId& c : sessions) {
    if (c.node == kServerNode) ids.push_back(c.id);
  }
  return ids;
}

}  // namespace

SqliteWaitMonitor::~SqliteWaitMonitor() { log_->RemoveSink(this); }

void SqliteWaitMonitor::Begin(std::vector<ConnectionId> sessions, SteadyTime origin) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    sessions_ = IdsOnServer(sessions);
    origin_ = origin;
    live_ = true;
  }
  log_->ClearSightings();
  log_->AddSink(this, [this](const BusySighting& s) { OnSighting(s); });
}

WaitObservation SqliteWaitMonitor::ToObservation(const BusySighting& s) const {
  WaitObservation o;
  o.poll_sent_us = std::chrono::duration_cast<std::chrono::microseconds>(s.at - origin_).count();
  o.poll_received_us = o.poll_sent_us;
  o.node = kServerNode;
  o.session_id = s.session_id;
  o.wait_event = "busy";
  o.blocking = s.holders;
  o.query = s.statement;
  return o;
}

void SqliteWaitMonitor::OnSighting(const BusySighting& s) {
  std::function<void(const WaitObservation&)> listener;
  WaitObservation o;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!live_ || !listener_ || s.at < origin_) return;
    if (!sessions_.empty() &&
        std::find(sessions_.begin(), sessions_.end(), s.session_id) == sessions_.end()) {
      return;
    }
    o = ToObservation(s);
    listener = listener_;
  }
  listener(o);
}

void SqliteWaitMonitor::SetWaitListener(std::function<void(const WaitObservation&)> listener) {
  std::lock_guard<std::mutex> lock(mu_);
  listener_ = std::move(listener);
}

std::vector<WaitObservation> SqliteWaitMonitor::End() {
  log_->RemoveSink(this);  // returns once no listener call is in progress
  std::lock_guard<std::mutex> lock(mu_);
  live_ = false;
  std::vector<WaitObservation> out;
  for (const BusySighting& s : log_->SightingsSince(origin_)) {
    if (!sessions_.empty() &&
        std::find(sessions_.begin(), sessions_.end(), s.session_id) == sessions_.end()) {
      continue;
    }
    out.push_back(ToObservation(s));
  }
  return out;
}

Result<LockSnapshot> SqliteWaitMonitor::SnapshotLocks(SteadyTime /*deadline*/) {
  std::vector<int64_t> ids;
  SteadyTime origin;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ids = sessions_;
    origin = origin_;
  }
  auto us = [origin] {
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                                 origin)
        .count();
  };
  LockSnapshot snap;
  snap.method = "sqlite3_txn_state";
  snap.node = kServerNode;
  snap.sent_us = us();
  for (const SessionLockState& st : log_->LockStates(ids)) {
    for (SessionLock& l : LocksOf(st, JournalOf(st.file))) snap.locks.push_back(std::move(l));
  }
  snap.received_us = us();
  return snap;
}

bool SqliteWaitMonitor::AwaitBlocked(const std::vector<ConnectionId>& sessions, SteadyTime deadline,
                                     const StopFlag* stop) {
  const std::vector<int64_t> ids = IdsOnServer(sessions);
  if (ids.size() != sessions.size()) return false;  // a connection of no node of SQLite's
  return log_->AwaitSightings(ids, std::chrono::steady_clock::now(), deadline,
                              [stop] { return stop != nullptr && stop->stop_requested(); });
}

std::string SqliteWaitMonitor::Terminate(const std::vector<ConnectionId>& sessions,
                                         SteadyTime deadline) {
  return "terminate is not supported on SQLite: there is no server to end a connection from "
         "(the engine runs inside racelab)";
}

EndWait SqliteWaitMonitor::AwaitEnded(const std::vector<ConnectionId>& /*sessions*/,
                                      SteadyTime /*deadline*/, const StopFlag* /*stop*/) {
  EndWait out;
  out.error =
      "await_ended is not supported on SQLite: no server ends a connection (the engine runs inside "
      "racelab)";
  return out;
}

ServerLockWait ToServerLockWait(const BusyWait& w) {
  ServerLockWait out;
  out.session_id = w.session_id;
  out.mode = w.need;
  out.object = "database main";
  // The busy handler's record, in the field reports and the timeline show.
  out.wait_event = fmt::format("busy: {} {}, {}", w.retries, w.retries == 1 ? "retry" : "retries",
                               WaitEndName(w.how));
  out.statement = w.statement;
  out.start_lo_us = w.start_wall_us;
  out.start_hi_us = w.start_wall_us;
  out.duration_us = std::chrono::duration_cast<std::chrono::microseconds>(w.end - w.start).count();
  out.holders = w.holders;
  return out;
}

Result<ServerWaitBatch> SqliteWaitLog::Collect(Session* control, SteadyTime deadline) {
  ServerWaitBatch batch;
  batch.node = kServerNode;
  for (const BusyWait& w : log_->TakeEnded()) batch.waits.push_back(ToServerLockWait(w));
  return batch;
}

}  // namespace racelab::sqlite
