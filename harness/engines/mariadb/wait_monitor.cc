#include "harness/engines/mariadb/wait_monitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace racelab::mariadb {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::microseconds;
using std::chrono::milliseconds;

// How long one poll may take before the monitor gives up (a monitor that cannot see is an error).
constexpr milliseconds kPollTimeout(5000);

// One row per (waiter, blocker): InnoDB lock waits, then waits outside InnoDB.
constexpr const char* kWaitsSql =
    "SELECT r.trx_mysql_thread_id, b.trx_mysql_thread_id, COALESCE(l.lock_type, 'RECORD'), "
    "LEFT(COALESCE(r.trx_query, ''), 1024) "
    "FROM information_schema.INNODB_TRX r "
    "LEFT JOIN information_schema.INNODB_LOCK_WAITS w ON w.requesting_trx_id = r.trx_id "
    "LEFT JOIN information_schema.INNODB_TRX b ON b.trx_id = w.blocking_trx_id "
    "LEFT JOIN information_schema.INNODB_LOCKS l ON l.lock_id = w.requested_lock_id "
    "WHERE r.trx_state = 'LOCK WAIT' "
    "UNION ALL "
    "SELECT ID, NULL, STATE, LEFT(COALESCE(INFO, ''), 1024) FROM information_schema.PROCESSLIST "
    "WHERE STATE IN ('User lock', 'Waiting for table metadata lock')";

int64_t Us(SteadyTime t, SteadyTime origin) {
  return std::chrono::duration_cast<microseconds>(t - origin).count();
}

}  // namespace

Result<std::unique_ptr<MariaWaitMonitor>> MariaWaitMonitor::Open(const ConnectTarget& target,
                                                                 microseconds poll,
                                                                 SteadyTime deadline,
                                                                 const StopFlag* stop) {
  Result<std::unique_ptr<MariaConnection>> c =
      MariaConnection::Open(target, "racelab monitor", deadline, stop);
  if (!c.ok()) return c.status();
  return std::unique_ptr<MariaWaitMonitor>(
      new MariaWaitMonitor(target, std::move(*c), poll, stop));
}

MariaWaitMonitor::~MariaWaitMonitor() {
  End();
  conn_->Close();
}

std::vector<WaitObservation> MariaWaitMonitor::PollOnce(SteadyTime origin) {
  std::vector<WaitObservation> out;
  SteadyTime sent = Clock::now();
  QueryResult r = conn_->Exec(kWaitsSql, sent + kPollTimeout, 10000, milliseconds(1000));
  SteadyTime received = Clock::now();
  if (!r.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    if (error_.empty())
      error_ = fmt::format("the wait monitor's query failed: {} (error {}, SQLSTATE {})", r.message,
                           r.error_code, r.sqlstate);
    return out;
  }
  for (const auto& row : r.values) {
    if (row.size() < 4 || !row[0]) continue;
    int64_t waiter = std::stoll(*row[0]);
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const WaitObservation& o) { return o.session_id == waiter; });
    if (it == out.end()) {
      WaitObservation o;
      o.poll_sent_us = Us(sent, origin);
      o.poll_received_us = Us(received, origin);
      o.session_id = waiter;
      o.wait_event = row[2].value_or("");
      o.query = row[3].value_or("");
      out.push_back(std::move(o));
      it = out.end() - 1;
    }
    if (row[1]) {
      int64_t blocker = std::stoll(*row[1]);
      if (std::find(it->blocking.begin(), it->blocking.end(), blocker) == it->blocking.end())
        it->blocking.push_back(blocker);
    }
  }
  return out;
}

void MariaWaitMonitor::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (running_ && error_.empty() && !(stop_ != nullptr && stop_->stop_requested())) {
    // Across trials too: a poll sooner than kMinPollInterval after the last one (the end of the last
    // trial) would read InnoDB's cache unrefreshed — the last trial's waits, under this trial's clock.
    if (cv_.wait_until(lock, last_read_end_ + poll_, [&] { return !running_; })) break;
    SteadyTime origin = origin_;
    std::set<int64_t> watched(sessions_.begin(), sessions_.end());
    lock.unlock();
    std::vector<WaitObservation> seen = PollOnce(origin);
    lock.lock();
    last_read_end_ = Clock::now();
    for (WaitObservation& o : seen)
      if (watched.count(o.session_id) != 0) observations_.push_back(std::move(o));
    ++polls_done_;
    cv_.notify_all();
  }
  cv_.notify_all();
}

void MariaWaitMonitor::Begin(std::vector<int64_t> sessions, SteadyTime origin) {
  End();
  std::lock_guard<std::mutex> lock(mu_);
  sessions_ = std::move(sessions);
  origin_ = origin;
  observations_.clear();
  error_.clear();
  running_ = true;
  thread_ = std::thread([this] { Loop(); });
}

std::vector<WaitObservation> MariaWaitMonitor::End() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    running_ = false;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<WaitObservation> out = std::move(observations_);
  observations_.clear();
  std::stable_sort(out.begin(), out.end(), [](const WaitObservation& a, const WaitObservation& b) {
    return a.poll_sent_us < b.poll_sent_us;
  });
  return out;
}

bool MariaWaitMonitor::AwaitBlocked(const std::vector<int64_t>& sessions, SteadyTime deadline,
                                    const StopFlag* stop) {
  std::unique_lock<std::mutex> lock(mu_);
  const int64_t since = Us(Clock::now(), origin_);
  while (true) {
    if (!running_ || !error_.empty()) return false;
    std::set<int64_t> missing(sessions.begin(), sessions.end());
    for (const WaitObservation& o : observations_)
      if (o.poll_sent_us >= since) missing.erase(o.session_id);
    if (missing.empty()) return true;
    if (Clock::now() >= deadline || (stop != nullptr && stop->stop_requested())) return false;
    cv_.wait_until(lock, std::min(deadline, Clock::now() + kStopPollSlice));
  }
}

std::string MariaWaitMonitor::Terminate(const std::vector<int64_t>& sessions, SteadyTime deadline) {
  for (int64_t id : sessions) {
    std::string e = MariaConnection::Kill(target_, id, false, std::min(deadline, Clock::now() + kControlTimeout));
    if (!e.empty()) return e;
  }
  // KILL marks the connection; it ends when its thread notices. Wait until PROCESSLIST drops it.
  Result<std::unique_ptr<MariaConnection>> c =
      MariaConnection::Open(target_, "racelab control", deadline, stop_);
  if (!c.ok()) return c.status().message();
  std::string ids;
  for (int64_t id : sessions) ids += (ids.empty() ? "" : ",") + std::to_string(id);
  while (true) {
    QueryResult r = (*c)->Exec(
        "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID IN (" + ids + ")", deadline);
    if (!r.ok()) return fmt::format("cannot see whether sessions {} ended: {}", ids, r.message);
    if (!r.values.empty() && r.values[0][0] == std::optional<std::string>("0")) return "";
    if (Clock::now() >= deadline) return fmt::format("sessions {} did not end by the deadline", ids);
    std::this_thread::sleep_for(milliseconds(5));
  }
}

std::string MariaWaitMonitor::error() {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

bool MariaWaitMonitor::healthy() {
  std::lock_guard<std::mutex> lock(mu_);
  return error_.empty() && conn_->healthy();
}

}  // namespace racelab::mariadb
