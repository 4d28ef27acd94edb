#include "harness/engines/sqlite/busy_log.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <iterator>

namespace racelab::sqlite {

const char* WaitEndName(WaitEnd end) {
  switch (end) {
    case WaitEnd::kAcquired:
      return "acquired";
    case WaitEnd::kBusyTimeout:
      return "busy_timeout";
    case WaitEnd::kDeadline:
      return "deadline";
    case WaitEnd::kCancelled:
      return "cancelled";
  }
  return "?";
}

void BusyLog::SetFile(int64_t session, const std::string& file) {
  std::lock_guard<std::mutex> lock(mu_);
  sessions_[session] = SessionState{file, SQLITE_TXN_NONE};
}

void BusyLog::SetTxnState(int64_t session, int state) {
  std::lock_guard<std::mutex> lock(mu_);
  sessions_[session].txn_state = state;
}

int BusyLog::TxnState(int64_t session) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(session);
  return it == sessions_.end() ? SQLITE_TXN_NONE : it->second.txn_state;
}

void BusyLog::Forget(int64_t session) {
  std::lock_guard<std::mutex> lock(mu_);
  sessions_.erase(session);
}

std::vector<int64_t> BusyLog::HoldersLocked(int64_t session, int own_state) const {
  auto self = sessions_.find(session);
  if (self == sessions_.end() || self->second.file.empty()) return {};
  // A writer (own state WRITE) waits for readers to leave (rollback journal: EXCLUSIVE needs every
  // SHARED lock gone); anyone else waits for the writer.
  const int at_least = own_state == SQLITE_TXN_WRITE ? SQLITE_TXN_READ : SQLITE_TXN_WRITE;
  std::vector<int64_t> out;
  for (const auto& [id, st] : sessions_) {
    if (id != session && st.file == self->second.file && st.txn_state >= at_least)
      out.push_back(id);
  }
  return out;  // std::map order: sorted
}

size_t BusyLog::WaitStarted(int64_t session, const std::string& statement, const std::string& need,
                            int own_state) {
  BusyWait w;
  w.session_id = session;
  w.statement = statement;
  w.need = need;
  w.start = std::chrono::steady_clock::now();
  w.start_wall_us = std::chrono::duration_cast<std::chrono::microseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
  std::lock_guard<std::mutex> delivery(delivery_mu_);
  std::vector<Sink> sinks;
  BusySighting sighting;
  size_t handle = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    w.holders = HoldersLocked(session, own_state);
    sighting = BusySighting{w.start, session, statement, w.holders};
    waits_.push_back(std::move(w));
    taken_.push_back(false);
    handle = waits_.size() - 1;
    for (const auto& [key, sink] : sinks_) sinks.push_back(sink);
  }
  Deliver(sinks, std::move(sighting));
  return handle;
}

void BusyLog::Retried(size_t handle, int retries, int own_state) {
  auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> delivery(delivery_mu_);
  std::vector<Sink> sinks;
  BusySighting sighting;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (handle >= waits_.size()) return;  // cleared meanwhile
    BusyWait& w = waits_[handle];
    w.retries = retries;
    // The holder may have published its state after the first call (a statement takes its lock a
    // few instructions before its progress handler first runs), or the lock changed hands
    // meanwhile.
    std::vector<int64_t> now_holders = HoldersLocked(w.session_id, own_state);
    std::vector<int64_t> merged;
    std::set_union(w.holders.begin(), w.holders.end(), now_holders.begin(), now_holders.end(),
                   std::back_inserter(merged));
    w.holders = std::move(merged);
    sighting = BusySighting{now, w.session_id, w.statement, std::move(now_holders)};
    for (const auto& [key, sink] : sinks_) sinks.push_back(sink);
  }
  Deliver(sinks, std::move(sighting));
}

void BusyLog::Deliver(const std::vector<Sink>& sinks, BusySighting sighting) {
  // The sinks first, then the waiters of AwaitSightings: a session's wait reaches the listener
  // (the trial's event stream) before a partner's await_blocked, woken by it, acts on it — as the
  // polling monitors publish a poll before they wake its waiters.
  for (const Sink& sink : sinks) sink(sighting);
  std::lock_guard<std::mutex> lock(mu_);
  sightings_.push_back(std::move(sighting));
  cv_.notify_all();
}

void BusyLog::WaitEnded(size_t handle, SteadyTime at, WaitEnd how) {
  std::lock_guard<std::mutex> lock(mu_);
  if (handle >= waits_.size() || waits_[handle].ended) return;
  waits_[handle].ended = true;
  waits_[handle].end = at;
  waits_[handle].how = how;
}

std::vector<BusyWait> BusyLog::TakeEnded() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<BusyWait> out;
  for (size_t i = 0; i < waits_.size(); ++i) {
    if (waits_[i].ended && !taken_[i]) {
      taken_[i] = true;
      out.push_back(waits_[i]);
    }
  }
  // Handles index waits_: forget them only when none is open (then no handle is in use).
  if (std::all_of(waits_.begin(), waits_.end(), [](const BusyWait& w) { return w.ended; })) {
    waits_.clear();
    taken_.clear();
  }
  return out;
}

std::vector<BusySighting> BusyLog::SightingsSince(SteadyTime since) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<BusySighting> out;
  for (const auto& s : sightings_) {
    if (s.at >= since) out.push_back(s);
  }
  return out;
}

void BusyLog::ClearSightings() {
  std::lock_guard<std::mutex> lock(mu_);
  sightings_.clear();
}

std::vector<SessionLockState> BusyLog::LockStates(const std::vector<int64_t>& sessions) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<SessionLockState> out;
  for (int64_t id : sessions) {
    auto it = sessions_.find(id);
    if (it == sessions_.end() || it->second.file.empty()) continue;
    SessionLockState st{id, it->second.file, it->second.txn_state, ""};
    for (const BusyWait& w : waits_) {  // its open wait, if any (at most one: one statement)
      if (w.session_id == id && !w.ended) st.awaiting = w.need;
    }
    out.push_back(std::move(st));
  }
  return out;
}

void BusyLog::AddSink(const void* key, Sink sink) {
  std::lock_guard<std::mutex> lock(mu_);
  sinks_[key] = std::move(sink);
}

void BusyLog::RemoveSink(const void* key) {
  std::lock_guard<std::mutex> delivery(delivery_mu_);  // a delivery in progress ends first
  std::lock_guard<std::mutex> lock(mu_);
  sinks_.erase(key);
}

bool BusyLog::SeenSinceLocked(int64_t session, SteadyTime since) const {
  return std::any_of(sightings_.begin(), sightings_.end(), [&](const BusySighting& s) {
    return s.session_id == session && s.at >= since;
  });
}

}  // namespace racelab::sqlite
