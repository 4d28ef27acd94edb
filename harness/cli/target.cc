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
  if (!cluster_) return Status::Ok();
  Status s = cluster_->Stop();
  cluster_.reset();
  return s;
}

}  // namespace racelab::cli
