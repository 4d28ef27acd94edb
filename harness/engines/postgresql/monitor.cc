#include "harness/engines/postgresql/monitor.h"
#include "harness/engines/postgresql/pid_list.h"

#include <boost/chrono.hpp>
#include <algorithm>
#include <sstream>

namespace racelab::pg {
namespace {

constexpr std::chrono::seconds kPollDeadline{5};
constexpr size_t kMaxPolledRows = 10000;

int64_t UsSince(SteadyTime origin) {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                               origin)
      .count();
}


std::string PidList(const std::vector<int64_t>& pids) {
  std::ostringstream q;
  for (size_t i = 0; i < pids.size(); ++i) q << (i ? "," : "") << pids[i];
  return pids.empty() ? "NULL" : q.str();
}

}  // namespace

Monitor::Monitor(std::unique_ptr<Connection> conn, std::chrono::microseconds poll_interval)
    : conn_(std::move(conn)), interval_(poll_interval) {}

Monitor::~Monitor() { End(); }

void Monitor::Begin(std::vector<int64_t> pids, SteadyTime origin) {
  {
    boost::lock_guard<boost::mutex> lock(mu_);
    pids_ = std::move(pids);
    origin_ = origin;
    observations_.clear();
    last_seen_poll_.clear();
    poll_number_ = 0;
    error_.clear();
    running_ = true;
  }
  thread_ = boost::thread([this] { PollLoop(); });
}

std::vector<WaitObservation> Monitor::End() {
  {
    boost::lock_guard<boost::mutex> lock(mu_);
    running_ = false;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
  boost::lock_guard<boost::mutex> lock(mu_);
  return std::move(observations_);
}

void Monitor::PollLoop() {
  std::string sql;
  SteadyTime origin;
  {
    boost::lock_guard<boost::mutex> lock(mu_);
    sql = "SELECT pid, wait_event_type, wait_event, "
          "CASE WHEN wait_event_type = 'Lock' THEN pg_blocking_pids(pid) END, "
          "CASE WHEN wait_event_type = 'Lock' THEN query END "
          "FROM pg_stat_activity WHERE pid IN (" + PidList(pids_) + ")";
    origin = origin_;
  }
  boost::unique_lock<boost::mutex> lock(mu_);
  while (running_) {
    const uint64_t number = ++poll_number_;
    lock.unlock();
    int64_t sent = UsSince(origin);
    QueryResult res;
    {
      boost::lock_guard<boost::mutex> conn_lock(conn_mu_);
      res = conn_->Exec(sql, std::chrono::steady_clock::now() + kPollDeadline, kMaxPolledRows);
    }
    int64_t received = UsSince(origin);
    lock.lock();
    if (!res.ok()) {
      if (error_.empty()) error_ = "monitor connection: " + res.message;
      cv_.notify_all();
      return;
    }
    for (const auto& row : res.values) {
      if (row.size() < 5 || !row[1] || *row[1] != "Lock") continue;
      WaitObservation o;
      o.poll_sent_us = sent;
      o.poll_received_us = received;
      o.session_id = std::stoll(row[0].value_or("0"));
      o.wait_event = row[2].value_or("");
      o.blocking = ParsePidList(row[3].value_or(""));
      o.query = row[4].value_or("");
      last_seen_poll_[o.session_id] = number;
      observations_.push_back(std::move(o));
    }
    cv_.notify_all();
    if (running_) cv_.wait_for(lock, boost::chrono::microseconds(interval_.count()));
  }
}

bool Monitor::AwaitBlocked(const std::vector<int64_t>& pids, SteadyTime deadline, const StopFlag* stop) {
  boost::unique_lock<boost::mutex> lock(mu_);
  const uint64_t asked_at = poll_number_;  // a poll numbered higher started after this call
  for (;;) {
    bool all = true;
    for (int64_t pid : pids) {
      auto it = last_seen_poll_.find(pid);
      all = all && it != last_seen_poll_.end() && it->second > asked_at;
    }
    if (all) return true;
    if (!error_.empty() || !running_) return false;
    if (stop != nullptr && stop->stop_requested()) return false;
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    cv_.wait_for(lock, boost::chrono::milliseconds(20));
  }
}

std::string Monitor::Terminate(const std::vector<int64_t>& pids, SteadyTime deadline) {
  boost::lock_guard<boost::mutex> conn_lock(conn_mu_);
  // PostgreSQL 14+: with a timeout, pg_terminate_backend waits until the backend has exited (docs
  // §9.27.2), so the terminated session's next statement deterministically finds it gone.
  long wait_ms = std::max<long>(1, std::chrono::duration_cast<std::chrono::milliseconds>(
                                       deadline - std::chrono::steady_clock::now()).count() - 100);
  QueryResult r = conn_->Exec("SELECT pg_terminate_backend(pid, " + std::to_string(wait_ms) +
                                  ") FROM unnest(ARRAY[" + PidList(pids) + "]::int[]) AS pid",
                              deadline);
  return r.ok() ? "" : r.sqlstate + " " + r.message;
}

std::string Monitor::error() {
  boost::lock_guard<boost::mutex> lock(mu_);
  return error_;
}

bool Monitor::healthy() {
  boost::lock_guard<boost::mutex> conn_lock(conn_mu_);
  return conn_ && conn_->healthy();
}

int64_t Monitor::session_id() {
  boost::lock_guard<boost::mutex> conn_lock(conn_mu_);
  return conn_ ? conn_->backend_pid() : 0;
}

}  // namespace racelab::pg
