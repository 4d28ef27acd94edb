#include "harness/engines/postgresql/scenario_role.h"

#include <fmt/format.h>

#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "harness/engines/postgresql/dsn.h"

namespace racelab::pg {
namespace {

constexpr auto kAdminDeadline = std::chrono::seconds(15);

SteadyTime Deadline() { return std::chrono::steady_clock::now() + kAdminDeadline; }

// `bytes` random bytes from the operating system's generator, as lower-case hex.
std::string RandomHex(int bytes) {
  std::random_device rd;
  std::string out;
  for (int i = 0; i < bytes; ++i) out += fmt::format("{:02x}", rd() & 0xFF);
  return out;
}

std::string Literal(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

}  // namespace

Result<std::unique_ptr<ScenarioRole>> ScenarioRole::Create(const std::string& admin_conninfo,
                                                           long connect_timeout_ms,
                                                           const StopFlag* stop) {
  std::unique_ptr<ScenarioRole> role(new ScenarioRole());
  role->name_ = kScenarioRolePrefix + RandomHex(8);
  const std::string password = RandomHex(16);
  auto admin = Connection::Open(
      admin_conninfo, kRoleAdminApp + role->name_,
      std::chrono::steady_clock::now() + std::chrono::milliseconds(connect_timeout_ms),
      // No stop flag: like the control connection, it must drop the role after SIGINT/SIGTERM; its
      // own deadlines bound it.
      nullptr);
  if (!admin.ok()) return admin.status();
  role->admin_ = std::move(admin.value());
  QueryResult who = role->admin_->Exec(
      "SELECT r.rolsuper, current_setting('server_version_num')::int >= 150000, current_database() "
      "FROM pg_roles r WHERE r.rolname = current_user",
      Deadline());
  if (!who.ok() || who.values.empty()) {
    return Status::Database("cannot read the connecting role's attributes: " + who.message);
  }
  const bool superuser = who.values[0][0].value_or("f") == "t";
  const bool pg15 = who.values[0][1].value_or("f") == "t";
  const std::string database = who.values[0][2].value_or("");
  const std::string verifier = role->admin_->EncryptPassword(password, role->name_);
  if (verifier.empty())
    return Status::Internal("libpq could not compute a SCRAM verifier for the generated role");
  const std::string ident = QuoteIdent(role->name_);
  QueryResult r =
      role->admin_->Exec(fmt::format("CREATE ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE "
                                     "NOREPLICATION NOBYPASSRLS PASSWORD {}",
                                     ident, Literal(verifier)),
                         Deadline());
  if (!r.ok()) {
    return Status::Database(
        fmt::format("cannot create the role that confines scenario SQL ({}: {}); give the --dsn "
                    "role CREATEROLE, or pass "
                    "--no-confine to run scenario SQL with the --dsn role's own rights",
                    r.sqlstate, r.message));
  }
  // From here on the role exists: the destructor drops it on any error.
  if (!superuser) {
    // Membership lets the admin create schemas for the role and drop them (and the role)
    // afterwards.
    r = role->admin_->Exec(fmt::format("GRANT {} TO CURRENT_USER", ident), Deadline());
    if (!r.ok()) {
      return Status::Database(
          fmt::format("cannot grant the generated role {} to the --dsn role: {} ({})", role->name_,
                      r.message, r.sqlstate));
    }
  }
  // Best effort, each on its own (42501 when the admin may not grant it): CONNECT and TEMPORARY for
  // a database that revoked them from PUBLIC; SET on the superuser-only settings scenarios use
  // (PostgreSQL 15+: a superuser admin, or one a DBA gave SET … WITH GRANT OPTION).
  std::vector<std::string> optional = {
      fmt::format("GRANT CONNECT, TEMPORARY ON DATABASE {} TO {}", QuoteIdent(database), ident)};
  if (pg15) {
    for (const char* parameter : {"deadlock_timeout", "log_lock_waits"}) {
      optional.push_back(fmt::format("GRANT SET ON PARAMETER {} TO {}", parameter, ident));
    }
  }
  for (const std::string& grant : optional) {
    // Two racelab runs on one server grant on the same database (or parameter) at once: both
    // update its catalog row's ACL, and the second may fail with "tuple concurrently updated"
    // (XX000; PostgreSQL's simple_heap_update takes no lock for GRANT's ACL update). That is
    // another run, not a refusal: try again, a few times, within the deadline.
    for (int attempt = 1;; ++attempt) {
      r = role->admin_->Exec(grant, Deadline());
      const bool concurrent = !r.ok() && r.sqlstate == "XX000" &&
                              r.message.find("tuple concurrently updated") != std::string::npos;
      if (!concurrent || attempt == 10) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5 * attempt));
    }
    if (!r.ok() && r.sqlstate != "42501") {
      return Status::Database(
          fmt::format("cannot grant the generated role {} what it needs: {} ({})", role->name_,
                      r.message, r.sqlstate));
    }
  }
  auto conninfo =
      ConninfoWithOverrides(admin_conninfo, {{"user", role->name_}, {"password", password}});
  if (!conninfo.ok()) return conninfo.status();
  role->conninfo_ = conninfo.value();
  auto probe = Connection::Open(
      role->conninfo_, "racelab:probe",
      std::chrono::steady_clock::now() + std::chrono::milliseconds(connect_timeout_ms), stop);
  if (!probe.ok()) {
    return Status::Database(
        probe.status().message() +
        " — racelab runs scenario SQL as a generated role that logs in with a password; allow "
        "that in pg_hba.conf for roles " +
        std::string(kScenarioRolePrefix) +
        "* (scram-sha-256 or md5), or pass --no-confine to run scenario SQL as the --dsn role");
  }
  return role;
}

ScenarioRole::~ScenarioRole() { Drop(); }

Status ScenarioRole::Drop() {
  if (!admin_ || name_.empty()) return Status::Ok();
  const std::string ident = QuoteIdent(name_);
  // DROP OWNED removes what the role may have made outside its schemas (large objects; tables in
  // public on PostgreSQL ≤ 14) and the grants made to it; then the role itself.
  QueryResult r =
      admin_->Exec(fmt::format("DROP OWNED BY {}; DROP ROLE {}", ident, ident), Deadline());
  admin_.reset();
  const std::string name = name_;
  name_.clear();
  if (!r.ok())
    return Status::Database(
        fmt::format("cannot drop role {}: {} ({})", name, r.message, r.sqlstate));
  return Status::Ok();
}

}  // namespace racelab::pg
