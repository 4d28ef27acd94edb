#include "harness/engines/mariadb/innodb_locks.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "harness/engines/mariadb/innodb_status.h"

namespace racelab::mariadb {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kMaxRows = 10000;

int64_t UsSince(SteadyTime origin) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - origin).count();
}

std::string Literal(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') out += c;
    out += c;
  }
  return out + "'";
}

std::string IdList(const std::vector<int64_t>& ids) {
  std::string out;
  for (int64_t id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out.empty() ? "NULL" : out;
}

std::string Failed(const std::string& what, const QueryResult& r) {
  return fmt::format("the lock view's {} failed: {} (error {}, SQLSTATE {})", what, r.message,
                     r.error_code, r.sqlstate);
}

// The key columns and column types of `tables` (schema -> table names), from information_schema.
Result<std::map<std::pair<std::string, std::string>, TableColumns>> ReadColumns(
    MariaConnection* c, const std::map<std::string, std::set<std::string>>& tables,
    SteadyTime deadline) {
  std::map<std::pair<std::string, std::string>, TableColumns> out;
  for (const auto& [schema, names] : tables) {
    std::string in;
    for (const std::string& t : names) in += (in.empty() ? "" : ",") + Literal(t);
    // Equalities on TABLE_SCHEMA and TABLE_NAME: information_schema then opens these tables only.
    const std::string where =
        fmt::format("TABLE_SCHEMA = {} AND TABLE_NAME IN ({})", Literal(schema), in);
    QueryResult keys = c->Exec(
        "SELECT TABLE_NAME, INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS WHERE " +
            where + " ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX",
        deadline, kMaxRows);
    if (!keys.ok()) return Status::Database(Failed("index columns query", keys));
    for (const auto& row : keys.values) {
      if (row.size() < 3 || !row[0] || !row[1] || !row[2]) continue;
      out[{schema, *row[0]}].indexes[*row[1]].push_back(*row[2]);
    }
    QueryResult cols = c->Exec(
        "SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE, COLUMN_TYPE LIKE '%unsigned%' FROM "
        "information_schema.COLUMNS WHERE " +
            where,
        deadline, kMaxRows);
    if (!cols.ok()) return Status::Database(Failed("column types query", cols));
    for (const auto& row : cols.values) {
      if (row.size() < 4 || !row[0] || !row[1]) continue;
      out[{schema, *row[0]}].columns[*row[1]] = {row[2].value_or(""), row[3].value_or("0") == "1"};
    }
  }
  return out;
}

void SortLocks(std::vector<SessionLock>* locks) {
  std::stable_sort(locks->begin(), locks->end(), [](const SessionLock& a, const SessionLock& b) {
    return std::tie(a.session_id, b.granted) < std::tie(b.session_id, a.granted);
  });
}

}  // namespace

InnodbLockReader::~InnodbLockReader() {
  if (!conn_) return;
  if (switched_on_ && conn_->healthy()) {
    conn_->Exec("SET GLOBAL innodb_status_output_locks = OFF", Clock::now() + kControlTimeout);
  }
  conn_->Close();
}

Result<bool> InnodbLockReader::StatusListsLocks(SteadyTime deadline, std::string* why) {
  QueryResult on = conn_->Exec("SELECT @@GLOBAL.innodb_status_output_locks", deadline);
  if (!on.ok() || on.values.empty() || on.values[0].empty())
    return Status::Database(Failed("innodb_status_output_locks query", on));
  if (on.values[0][0] == std::optional<std::string>("1")) return true;
  if (refused_.empty()) {
    QueryResult set = conn_->Exec("SET GLOBAL innodb_status_output_locks = ON", deadline);
    if (set.ok()) {
      switched_on_ = true;
      return true;
    }
    refused_ = fmt::format("{} (error {})", set.message, set.error_code);
  }
  *why =
      "only the locks someone waits for, from INNODB_LOCKS: innodb_status_output_locks is OFF "
      "and SET GLOBAL innodb_status_output_locks = ON was refused: " +
      refused_;
  return false;
}

Result<LockSnapshot> InnodbLockReader::Look(const std::vector<int64_t>& threads, SteadyTime origin,
                                            SteadyTime deadline) {
  LockSnapshot out;
  out.sent_us = UsSince(origin);
  if (!conn_ || !conn_->healthy()) {
    if (conn_) conn_->Close();
    Result<std::unique_ptr<MariaConnection>> c =
        MariaConnection::Open(target_, "racelab monitor", deadline, nullptr);
    if (!c.ok()) return Status::Database("the lock view cannot connect: " + c.status().message());
    conn_ = std::move(*c);
  }
  Result<bool> listed = StatusListsLocks(deadline, &out.note);
  if (!listed.ok()) return listed.status();
  Status st =
      *listed ? FromStatus(threads, deadline, &out) : FromInnodbLocks(threads, deadline, &out);
  if (!st.ok()) return st;
  out.received_us = UsSince(origin);
  SortLocks(&out.locks);
  return out;
}

Status InnodbLockReader::FromStatus(const std::vector<int64_t>& threads, SteadyTime deadline,
                                    LockSnapshot* out) {
  out->method = "SHOW ENGINE INNODB STATUS";
  QueryResult r = conn_->Exec("SHOW ENGINE INNODB STATUS", deadline);
  if (!r.ok() || r.values.empty() || r.values[0].size() < 3 || !r.values[0][2])
    return Status::Database(Failed("SHOW ENGINE INNODB STATUS", r));
  InnodbStatusLocks parsed = ParseInnodbStatusLocks(*r.values[0][2]);
  auto watched = [&](int64_t thread) {
    return std::find(threads.begin(), threads.end(), thread) != threads.end();
  };
  std::map<std::string, std::set<std::string>> tables;
  for (const InnodbLock& l : parsed.locks)
    if (l.record && watched(l.thread_id)) tables[l.schema].insert(l.table);
  Result<std::map<std::pair<std::string, std::string>, TableColumns>> columns =
      ReadColumns(conn_.get(), tables, deadline);
  if (!columns.ok()) return columns.status();
  for (const InnodbLock& l : parsed.locks) {
    if (!watched(l.thread_id)) continue;
    auto t = columns->find({l.schema, l.table});
    LockWords w = DescribeInnodbLock(l, t == columns->end() ? nullptr : &t->second);
    out->locks.push_back({l.thread_id, w.lock_type, w.mode, w.object, !l.waiting});
  }
  for (int64_t thread : parsed.suppressed) {
    if (!watched(thread)) continue;
    out->note = "InnoDB prints at most 10 locks per transaction: some are not shown";
  }
  return Status::Ok();
}

Status InnodbLockReader::FromInnodbLocks(const std::vector<int64_t>& threads, SteadyTime deadline,
                                         LockSnapshot* out) {
  out->method = "INNODB_LOCKS";
  QueryResult r = conn_->Exec(
      "SELECT t.trx_mysql_thread_id, l.lock_mode, l.lock_type, l.lock_table, "
      "COALESCE(l.lock_index, ''), COALESCE(l.lock_data, ''), "
      "l.lock_id IN (SELECT requested_lock_id FROM information_schema.INNODB_LOCK_WAITS) "
      "FROM information_schema.INNODB_LOCKS l "
      "JOIN information_schema.INNODB_TRX t ON t.trx_id = l.lock_trx_id "
      "WHERE t.trx_mysql_thread_id IN (" +
          IdList(threads) + ")",
      deadline, kMaxRows);
  if (!r.ok()) return Status::Database(Failed("INNODB_LOCKS query", r));
  for (const auto& row : r.values) {
    if (row.size() < 7 || !row[0]) continue;
    const std::string mode = row[1].value_or("");  // "X", "X,GAP", "IX", "AUTO_INC"
    const bool record = row[2].value_or("") == "RECORD";
    const bool gap = mode.find(",GAP") != std::string::npos;
    SessionLock l;
    l.session_id = std::stoll(*row[0]);
    l.lock_type = record ? "RECORD" : "TABLE";
    l.mode = mode.substr(0, mode.find(',')) + (!record ? " table lock"
                                               : gap   ? " gap lock"
                                                       : " record lock");
    // lock_table is "`db`.`runs`"; lock_data the record's key as text ("1", "'bob'", "supremum
    // pseudo-record").
    std::string table = row[3].value_or("");
    table.erase(std::remove(table.begin(), table.end(), '`'), table.end());
    l.object = "on " + table;
    if (record) l.object += " " + row[4].value_or("") + " " + row[5].value_or("");
    l.granted = row[6].value_or("0") != "1";
    out->locks.push_back(std::move(l));
  }
  return Status::Ok();
}

}  // namespace racelab::mariadb
