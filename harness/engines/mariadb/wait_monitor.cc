#include "harness/engines/mariadb/wait_monitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "harness/engine/end_wait.h"

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
  return std::unique_ptr<MariaWaitMonitor>(new MariaWaitMonitor(target, std::move(*c), poll, stop));
}

MariaWaitMonitor::~MariaWaitMonitor() {
  End();
  conn_->Close();
}

PolledWaitMonitor::PollResult MariaWaitMonitor::Poll(const std::vector<int64_t>& /*sessions*/,
                                                     SteadyTime origin) {
  PollResult out;
  SteadyTime sent = Clock::now();
  QueryResult r = conn_->Exec(kWaitsSql, sent + kPollTimeout, 10000, milliseconds(1000));
  SteadyTime received = Clock::now();
  if (!r.ok()) {
    out.error = fmt::format("the wait monitor's query failed: {} (error {}, SQLSTATE {})",
                            r.message, r.error_code, r.sqlstate);
    return out;
  }
  for (const auto& row : r.values) {
    if (row.size() < 4 || !row[0]) continue;
    int64_t waiter = std::stoll(*row[0]);
    auto it = std::find_if(out.waits.begin(), out.waits.end(),
                           [&](const WaitObservation& o) { return o.session_id == waiter; });
    if (it == out.waits.end()) {
      WaitObservation o;
      o.poll_sent_us = Us(sent, origin);
      o.poll_received_us = Us(received, origin);
      o.session_id = waiter;
      o.wait_event = row[2].value_or("");
      o.query = row[3].value_or("");
      out.waits.push_back(std::move(o));
      it = out.waits.end() - 1;
    }
    if (row[1]) {
      int64_t blocker = std::stoll(*row[1]);
      if (std::find(it->blocking.begin(), it->blocking.end(), blocker) == it->blocking.end())
        it->blocking.push_back(blocker);
    }
  }
  return out;
}

std::string MariaWaitMonitor::Terminate(const std::vector<ConnectionId>& on_nodes,
                                        SteadyTime deadline) {
  const std::vector<int64_t> sessions = IdsOnNode(on_nodes);
  for (int64_t id : sessions) {
    std::string e = MariaConnection::Kill(target_, id, false,
                                          std::min(deadline, Clock::now() + kControlTimeout));
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
    if (Clock::now() >= deadline)
      return fmt::format("sessions {} did not end by the deadline", ids);
    std::this_thread::sleep_for(milliseconds(5));
  }
}

EndWait MariaWaitMonitor::AwaitEnded(const std::vector<ConnectionId>& on_nodes, SteadyTime deadline,
                                     const StopFlag* stop) {
  const std::vector<int64_t> sessions = IdsOnNode(on_nodes);
  Result<std::unique_ptr<MariaConnection>> c = MariaConnection::Open(
      target_, "racelab control", std::max(deadline, Clock::now() + milliseconds(1000)), stop);
  if (!c.ok()) {
    EndWait failed;
    failed.error = "cannot open a control connection: " + c.status().message();
    return failed;
  }
  std::string ids;
  for (int64_t id : sessions) ids += (ids.empty() ? "" : ",") + std::to_string(id);
  const std::string sql =
      "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID IN (" + ids + ")";
  EndWait out = PollUntilEnded(
      [&](SteadyTime query_deadline) -> Result<size_t> {
        QueryResult r = (*c)->Exec(sql, query_deadline);
        if (!r.ok() || r.values.empty() || r.values[0].empty() || !r.values[0][0]) {
          return Status::Database(fmt::format("cannot see whether sessions {} ended: {}", ids,
                                              r.ok() ? std::string("no answer") : r.message));
        }
        return static_cast<size_t>(std::stoul(*r.values[0][0]));
      },
      deadline, stop);
  (*c)->Close();
  return out;
}

void MariaWaitMonitor::Begin(std::vector<ConnectionId> sessions, SteadyTime origin) {
  {
    std::lock_guard<std::mutex> lock(locks_mu_);
    watched_ = IdsOnNode(sessions);
    origin_ = origin;
  }
  PolledWaitMonitor::Begin(std::move(sessions), origin);
}

Result<LockSnapshot> MariaWaitMonitor::SnapshotLocks(SteadyTime deadline) {
  std::lock_guard<std::mutex> lock(locks_mu_);
  Result<LockSnapshot> out = locks_.Look(watched_, origin_, deadline);
  if (out.ok()) out->node = node();
  return out;
}

bool MariaWaitMonitor::healthy() { return error().empty() && conn_->healthy(); }

}  // namespace racelab::mariadb
