#include "harness/engines/postgresql/monitor.h"

#include <algorithm>
#include <sstream>

#include "harness/engine/end_wait.h"
#include "harness/engines/postgresql/pid_list.h"

namespace racelab::pg {
namespace {

constexpr std::chrono::seconds kPollDeadline{5};
constexpr size_t kMaxPolledRows = 10000;

int64_t UsSince(SteadyTime origin) {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                               origin)
      .count();
}

// The poll, prepared once per monitor connection: planning it (the pg_stat_activity view's joins)
// was ~90% of its cost — 0.23 of 0.25 ms server CPU, 0.5 of 0.6 ms per poll, measured on the
// embedded cluster (docs/performance.md "Trials per second with reset:") — and it runs while the
// workers race.
constexpr const char* kPreparePoll =
    // A wait on another session: a heavyweight lock (wait_event_type Lock: row, transaction, tuple,
    // advisory, relation, …) or, not a lock, a SERIALIZABLE READ ONLY DEFERRABLE transaction
    // waiting for a safe snapshot (IPC / SafeSnapshot; its holders from
    // pg_safe_snapshot_blocking_pids) — the waits PostgreSQL's own
    // pg_isolation_test_session_is_blocked() counts (PostgreSQL docs §9.26, Table 28.4).
    "PREPARE racelab_poll(int[]) AS SELECT pid, wait_event_type, wait_event, "
    "CASE WHEN wait_event_type = 'Lock' THEN pg_blocking_pids(pid) "
    "WHEN wait_event = 'SafeSnapshot' THEN pg_safe_snapshot_blocking_pids(pid) END, "
    "CASE WHEN wait_event_type = 'Lock' OR wait_event = 'SafeSnapshot' THEN query END "
    "FROM pg_stat_activity WHERE pid = ANY($1)";

std::string PidList(const std::vector<int64_t>& pids) {
  std::ostringstream q;
  for (size_t i = 0; i < pids.size(); ++i) q << (i ? "," : "") << pids[i];
  return pids.empty() ? "NULL" : q.str();
}

}  // namespace

Monitor::Monitor(std::unique_ptr<Connection> conn, std::chrono::microseconds poll_interval)
    : PolledWaitMonitor(poll_interval, nullptr), conn_(std::move(conn)) {}

Monitor::~Monitor() { End(); }

PolledWaitMonitor::PollResult Monitor::Poll(const std::vector<int64_t>& pids, SteadyTime origin) {
  const std::string sql = "EXECUTE racelab_poll('{" + (pids.empty() ? "" : PidList(pids)) + "}')";
  PollResult out;
  QueryResult res;
  int64_t sent = 0;
  {
    std::lock_guard<std::mutex> conn_lock(conn_mu_);
    if (!poll_prepared_) {
      QueryResult p = conn_->Exec(kPreparePoll, std::chrono::steady_clock::now() + kPollDeadline);
      if (!p.ok()) {
        out.error = "monitor connection: " + p.message;
        return out;
      }
      poll_prepared_ = true;
    }
    sent = UsSince(origin);
    res = conn_->Exec(sql, std::chrono::steady_clock::now() + kPollDeadline, kMaxPolledRows);
  }
  const int64_t received = UsSince(origin);
  if (!res.ok()) {
    out.error = "monitor connection: " + res.message;
    return out;
  }
  for (const auto& row : res.values) {
    const bool lock = row.size() >= 5 && row[1] && *row[1] == "Lock";
    const bool safe_snapshot =
        row.size() >= 5 && row[1] && *row[1] == "IPC" && row[2] && *row[2] == "SafeSnapshot";
    if (!lock && !safe_snapshot) continue;
    WaitObservation o;
    o.poll_sent_us = sent;
    o.poll_received_us = received;
    o.session_id = std::stoll(row[0].value_or("0"));
    o.wait_event = row[2].value_or("");
    o.blocking = ParsePidList(row[3].value_or(""));
    o.query = row[4].value_or("");
    out.waits.push_back(std::move(o));
  }
  return out;
}

void Monitor::Begin(std::vector<ConnectionId> sessions, SteadyTime origin) {
  {
    std::lock_guard<std::mutex> conn_lock(conn_mu_);
    watched_ = IdsOnNode(sessions);
    origin_ = origin;
  }
  PolledWaitMonitor::Begin(std::move(sessions), origin);
}

Result<LockSnapshot> Monitor::SnapshotLocks(SteadyTime deadline) {
  std::lock_guard<std::mutex> conn_lock(conn_mu_);
  LockSnapshot out;
  out.method = "pg_locks";
  out.node = node();
  // The object in words; a relation by its name (schema-qualified when not on the monitor's
  // search_path), never by OID.
  const std::string sql =
      "SELECT pid, locktype, mode, granted, CASE locktype "
      "WHEN 'relation' THEN relation::regclass::text "
      "WHEN 'tuple' THEN format('tuple (%s,%s) of %s', page, tuple, relation::regclass) "
      "WHEN 'page' THEN format('page %s of %s', page, relation::regclass) "
      "WHEN 'transactionid' THEN 'transaction ' || transactionid "
      "WHEN 'virtualxid' THEN 'virtual transaction ' || virtualxid "
      "WHEN 'advisory' THEN format('advisory %s/%s/%s', classid, objid, objsubid) "
      "ELSE locktype END "
      "FROM pg_locks WHERE pid = ANY(ARRAY[" +
      PidList(watched_) + "]::int[]) ORDER BY 1, 4 DESC, 2, 5, 3";
  out.sent_us = UsSince(origin_);
  QueryResult r = conn_->Exec(sql, deadline, kMaxPolledRows);
  out.received_us = UsSince(origin_);
  if (!r.ok()) return Status::Database("monitor connection: " + r.message);
  for (const auto& row : r.values) {
    if (row.size() < 5) continue;
    SessionLock l;
    l.session_id = std::stoll(row[0].value_or("0"));
    l.lock_type = row[1].value_or("");
    l.mode = row[2].value_or("");
    l.granted = row[3].value_or("f") == "t";
    l.object = row[4].value_or("");
    out.locks.push_back(std::move(l));
  }
  return out;
}

std::string Monitor::Terminate(const std::vector<ConnectionId>& sessions, SteadyTime deadline) {
  const std::vector<int64_t> pids = IdsOnNode(sessions);
  std::lock_guard<std::mutex> conn_lock(conn_mu_);
  // PostgreSQL 14+: with a timeout, pg_terminate_backend waits until the backend has exited (docs
  // §9.27.2), so the terminated session's next statement deterministically finds it gone.
  long wait_ms = std::max<long>(1, std::chrono::duration_cast<std::chrono::milliseconds>(
                                       deadline - std::chrono::steady_clock::now())
                                           .count() -
                                       100);
  QueryResult r = conn_->Exec("SELECT pg_terminate_backend(pid, " + std::to_string(wait_ms) +
                                  ") FROM unnest(ARRAY[" + PidList(pids) + "]::int[]) AS pid",
                              deadline);
  return r.ok() ? "" : r.sqlstate + " " + r.message;
}

EndWait Monitor::AwaitEnded(const std::vector<ConnectionId>& sessions, SteadyTime deadline,
                            const StopFlag* stop) {
  const std::vector<int64_t> pids = IdsOnNode(sessions);
  const std::string sql =
      "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(ARRAY[" + PidList(pids) + "]::int[])";
  return PollUntilEnded(
      [&](SteadyTime query_deadline) -> Result<size_t> {
        QueryResult r;
        {
          std::lock_guard<std::mutex> conn_lock(conn_mu_);
          r = conn_->Exec(sql, query_deadline);
        }
        if (!r.ok() || r.values.empty() || r.values[0].empty() || !r.values[0][0]) {
          return Status::Database("monitor connection: " +
                                  (r.ok() ? std::string("no answer") : r.message));
        }
        return static_cast<size_t>(std::stoul(*r.values[0][0]));
      },
      deadline, stop);
}

bool Monitor::healthy() {
  std::lock_guard<std::mutex> conn_lock(conn_mu_);
  return conn_ && conn_->healthy();
}

ConnectionId Monitor::connection_id() {
  std::lock_guard<std::mutex> conn_lock(conn_mu_);
  return {node(), conn_ ? conn_->backend_pid() : 0};
}

}  // namespace racelab::pg
