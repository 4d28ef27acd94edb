#include "harness/cli/target.h"

#include <fmt/format.h>

#include "harness/pg/connection.h"
#include "harness/pg/dsn.h"

namespace racelab::cli {
namespace {

// Server settings worth recording next to every result (they change what races do).
constexpr const char* kSettingsQuery =
    "SELECT name, setting || COALESCE(unit, '') FROM pg_settings WHERE name IN "
    "('server_version', 'fsync', 'synchronous_commit', 'full_page_writes', 'deadlock_timeout', "
    "'lock_timeout', 'statement_timeout', 'max_connections', 'default_transaction_isolation') "
    "ORDER BY name";

}  // namespace

Result<std::unique_ptr<Target>> Target::Open(const TargetOptions& options) {
  std::unique_ptr<Target> t(new Target());
  if (options.dsn.empty()) {
    ClusterOptions co;
    co.pg_bindir = options.pg_bindir;
    auto cluster = EmbeddedCluster::Start(co);
    if (!cluster.ok()) return cluster.status();
    t->cluster_ = std::move(cluster.value());
    t->conninfo_ = t->cluster_->conninfo();
    t->info_.embedded = true;
  } else {
    Status s = ValidateDsn(options.dsn);
    if (!s.ok()) return s;
    t->conninfo_ = options.dsn;
    t->info_.embedded = false;
    t->info_.dsn_redacted = RedactDsn(options.dsn);
  }
  auto conn = Connection::Open(t->conninfo_, "racelab:probe",
                               std::chrono::steady_clock::now() +
                                   std::chrono::milliseconds(options.connect_timeout_ms),
                               options.stop);
  if (!conn.ok()) return conn.status();
  QueryResult r = (*conn)->Exec(kSettingsQuery, std::chrono::steady_clock::now() + std::chrono::seconds(10),
                                /*max_rows=*/100);
  if (!r.ok()) return Status::Database("cannot read server settings: " + r.message);
  if (!t->info_.embedded && !options.allow_superuser) {
    QueryResult su = (*conn)->Exec("SELECT current_user, rolsuper FROM pg_roles WHERE rolname = current_user",
                                   std::chrono::steady_clock::now() + std::chrono::seconds(10));
    if (!su.ok()) return Status::Database("cannot read the --dsn role's attributes: " + su.message);
    if (!su.values.empty() && su.values[0][1].value_or("f") == "t") {
      return Status::Usage(fmt::format(
          "--dsn connects as superuser '{}': refused without --allow-superuser. Scenario files are code; connect "
          "as a role with CREATEROLE (racelab then runs scenario SQL as a role it creates, confined to its "
          "schemas), or pass --allow-superuser",
          su.values[0][0].value_or("")));
    }
  }
  conn.value().reset();
  if (options.confine) {
    auto role = ScenarioRole::Create(t->conninfo_, options.connect_timeout_ms, options.stop);
    if (!role.ok()) return role.status();
    t->role_ = std::move(role.value());
  }
  for (const auto& row : r.values) {
    std::string name = row[0].value_or(""), value = row[1].value_or("");
    if (name == "server_version") {
      t->info_.server_version = value;
    } else {
      t->info_.settings.emplace_back(name, value);
    }
  }
  return t;
}

Target::~Target() { Close(); }

Status Target::Close() {
  Status dropped = role_ ? role_->Drop() : Status::Ok();
  role_.reset();
  if (!cluster_) return dropped;
  Status s = cluster_->Stop();
  cluster_.reset();
  return dropped.ok() ? s : dropped;
}

}  // namespace racelab::cli
