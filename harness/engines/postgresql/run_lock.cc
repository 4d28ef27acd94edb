#include "harness/engines/postgresql/run_lock.h"

#include <fmt/format.h>

#include <random>

namespace racelab::pg {
namespace {

bool IsHex(const std::string& s) {
  return s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

bool IsDigits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

const std::string& RunIdHex() {
  static const std::string id = [] {
    std::random_device rd;
    uint64_t bits = (static_cast<uint64_t>(rd()) << 32) ^ rd();
    return fmt::format("{:016x}", bits);
  }();
  return id;
}

std::optional<int64_t> RunLockKey(const std::string& hex) {
  if (hex.size() != 16 || !IsHex(hex)) return std::nullopt;
  return static_cast<int64_t>(std::stoull(hex, nullptr, 16));
}

std::string RunLockApplicationName(const std::string& hex) { return "racelab:run-lock:" + hex; }

std::string RunAliveSql(const std::string& hex) {
  // pg_advisory_lock(bigint) is recorded with the key's high 32 bits in classid, the low 32 bits in
  // objid and objsubid 1 (PostgreSQL docs §54.12, pg_locks).
  const uint64_t key = static_cast<uint64_t>(*RunLockKey(hex));
  return fmt::format(
      "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE application_name = '{}') OR EXISTS "
      "(SELECT 1 FROM "
      "pg_locks WHERE locktype = 'advisory' AND granted AND classid = {} AND objid = {} AND "
      "objsubid = 1)",
      RunLockApplicationName(hex), key >> 32, key & 0xFFFFFFFFu);
}

std::optional<std::string> RunIdOfSchema(const std::string& schema) {
  // racelab_<pid>_<16 hex>_<n>
  const std::string prefix = "racelab_";
  if (schema.rfind(prefix, 0) != 0) return std::nullopt;
  size_t a = schema.find('_', prefix.size());
  if (a == std::string::npos) return std::nullopt;
  size_t b = schema.find('_', a + 1);
  if (b == std::string::npos) return std::nullopt;
  std::string pid = schema.substr(prefix.size(), a - prefix.size());
  std::string id = schema.substr(a + 1, b - a - 1);
  std::string n = schema.substr(b + 1);
  if (!IsDigits(pid) || !IsDigits(n) || !RunLockKey(id)) return std::nullopt;
  return id;
}

std::optional<std::string> RunIdOfSpecDatabase(const std::string& database) {
  const std::string prefix = "racelab_spec_";
  if (database.rfind(prefix, 0) != 0) return std::nullopt;
  return RunIdOfSchema("racelab_" + database.substr(prefix.size()));
}

Status RunLock::Hold(const std::string& conninfo, SteadyTime connect_deadline,
                     SteadyTime statement_deadline, const StopFlag* stop) {
  if (conn_ && conn_->healthy()) return Status::Ok();
  conn_.reset();
  auto conn =
      Connection::Open(conninfo, RunLockApplicationName(RunIdHex()), connect_deadline, stop);
  if (!conn.ok()) return conn.status();
  // The backend is in pg_stat_activity with its application_name once it answers.
  QueryResult r = (*conn)->Exec("SELECT 1", statement_deadline);
  if (!r.ok())
    return Status::Database(
        fmt::format("cannot open the run-lock connection: {} ({})", r.message, r.sqlstate));
  conn_ = std::move(conn.value());
  return Status::Ok();
}

bool RunLock::ServerAnswers(const std::string& conninfo, SteadyTime deadline) {
  if (!conn_ || !conn_->healthy()) return Hold(conninfo, deadline, deadline, nullptr).ok();
  QueryResult r = conn_->Exec("SELECT 1", deadline, 1, std::chrono::milliseconds(0));
  if (r.ok()) return true;
  conn_.reset();
  return false;
}

}  // namespace racelab::pg
