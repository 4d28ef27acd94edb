#include "harness/engines/postgresql/spec/spec_database.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <vector>

#include "harness/engines/postgresql/application_name.h"
#include "harness/engines/postgresql/run_lock.h"

namespace racelab {
namespace {

std::string Trimmed(const char* message) {
  std::string m = message ? message : "";
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
  return m;
}

// pg_regress's database settings, then its PGTZ / PGDATESTYLE environment as database defaults.
constexpr const char* kDatabaseSettings[] = {
    "lc_messages TO 'C'",
    "lc_monetary TO 'C'",
    "lc_numeric TO 'C'",
    "lc_time TO 'C'",
    "bytea_output TO 'hex'",
    "timezone_abbreviations TO 'Default'",
    "timezone TO 'PST8PDT'",
    "datestyle TO 'Postgres, MDY'",
    // The server default (the embedded cluster runs with 1ms, docs/lock-waits.md); specs assume it.
    "deadlock_timeout TO '1s'",
};

}  // namespace

Result<PgConnPtr> SpecDatabase::ConnectTo(const std::string& conninfo, const std::string& dbname,
                                          const std::string& application_name) const {
  // libpq: with expand_dbname the first dbname is the whole connection string; a later dbname only
  // names the database (PostgreSQL docs §34.1, PQconnectdbParams).
  std::string timeout = std::to_string(std::max(2L, (connect_timeout_ms_ + 999) / 1000));
  // Cut and cleaned (application_name.h): "isolation/TEST/SESSION" can be longer than the server
  // keeps, and a start-up packet over 10,000 bytes is refused.
  const std::string app = pg::ApplicationName(application_name);
  std::vector<const char*> keys = {"dbname", "connect_timeout", "application_name"};
  std::vector<const char*> values = {conninfo.c_str(), timeout.c_str(), app.c_str()};
  if (!dbname.empty()) {
    keys.push_back("dbname");
    values.push_back(dbname.c_str());
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  PgConnPtr conn(PQconnectdbParams(keys.data(), values.data(), /*expand_dbname=*/1));
  if (!conn || PQstatus(conn.get()) != CONNECTION_OK) {
    // libpq's message names host and port, never the password.
    return Status::Database(
        fmt::format("cannot connect{}: {}", dbname.empty() ? "" : " to database " + dbname,
                    Trimmed(conn ? PQerrorMessage(conn.get()) : "out of memory")));
  }
  return conn;
}

Result<std::unique_ptr<SpecDatabase>> SpecDatabase::Create(const SpecServer& server,
                                                           long connect_timeout_ms) {
  static std::atomic<int> counter{0};
  // At most 13 + 10 + 1 + 16 + 1 + 10 = 51 bytes, under PostgreSQL's 63-byte identifier limit.
  std::string name = fmt::format("racelab_spec_{}_{}_{}", getpid(), pg::RunIdHex(), ++counter);
  std::unique_ptr<SpecDatabase> db(new SpecDatabase(server, connect_timeout_ms, name));
  auto admin = db->ConnectTo(server.admin_conninfo, "", "racelab:spec");
  if (!admin.ok()) return admin.status();
  std::string owner = server.owner.empty() ? "" : fmt::format(" OWNER \"{}\"", server.owner);
  PGresult* r =
      PQexec(admin->get(),
             fmt::format("CREATE DATABASE \"{}\"{} TEMPLATE template0", name, owner).c_str());
  bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  std::string error = ok ? "" : Trimmed(PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY));
  PQclear(r);
  if (!ok) {
    db->dropped_ = true;
    return Status::Database(fmt::format(
        "cannot create the spec run's database {} (the role needs CREATEDB): {}", name, error));
  }
  for (const char* setting : kDatabaseSettings) {
    PGresult* s =
        PQexec(admin->get(), fmt::format("ALTER DATABASE \"{}\" SET {}", name, setting).c_str());
    PQclear(s);  // a setting this role may not set stays at the server's value
  }
  return db;
}

Result<PgConnPtr> SpecDatabase::Connect(const std::string& application_name) const {
  const std::string& conninfo =
      server_.session_conninfo.empty() ? server_.admin_conninfo : server_.session_conninfo;
  return ConnectTo(conninfo, name_, application_name);
}

Status SpecDatabase::Drop() {
  if (dropped_) return Status::Ok();
  dropped_ = true;
  auto admin = ConnectTo(server_.admin_conninfo, "", "racelab:spec");
  if (!admin.ok()) return admin.status();
  PGresult* r = PQexec(admin->get(),
                       fmt::format("DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)", name_).c_str());
  bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  std::string error = ok ? "" : Trimmed(PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY));
  PQclear(r);
  if (!ok)
    return Status::Database(
        fmt::format("cannot drop the spec run's database {}: {}", name_, error));
  return Status::Ok();
}

SpecDatabase::~SpecDatabase() { Drop(); }

}  // namespace racelab
