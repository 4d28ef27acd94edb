// Target: where a run goes — the embedded cluster (no --dsn) or a server named by --dsn.
// Thread-safety: used from the main thread only.
#pragma once

#include <memory>
#include <string>

#include "harness/embedded/cluster.h"
#include "harness/model/status.h"
#include "harness/model/summary.h"
#include "harness/run/scenario_role.h"
#include "harness/run/stop_flag.h"

namespace racelab::cli {

struct TargetOptions {
  std::string dsn;         // empty: embedded cluster
  std::string pg_bindir;   // embedded only
  long connect_timeout_ms = 5000;
  const StopFlag* stop = nullptr;
  bool confine = true;            // run scenario SQL as a generated role (harness/run/scenario_role.h)
  bool allow_superuser = false;   // accept a --dsn that connects as a superuser
};

class Target {
 public:
  // Starts the embedded cluster or checks that the DSN parses (kUsage), answers (kDatabase) and is not
  // a superuser unless allowed (kUsage), then reads the server's version and settings, and (confine)
  // creates the role scenario SQL runs as. Error messages never contain a password.
  static Result<std::unique_ptr<Target>> Open(const TargetOptions& options);
  ~Target();  // stops the embedded cluster, if any

  // Where scenario SQL runs: the generated role's conninfo under confinement, else the admin's.
  const std::string& conninfo() const { return role_ ? role_->conninfo() : conninfo_; }
  // The DSN's (or embedded superuser's) conninfo: creates and drops schemas under confinement.
  const std::string& admin_conninfo() const { return conninfo_; }
  // The generated role's name, or "" without confinement.
  std::string scenario_role() const { return role_ ? role_->name() : ""; }
  const TargetInfo& info() const { return info_; }
  // Embedded only: the server's jsonlog with its lock waits (docs/lock-waits.md); empty with --dsn.
  std::string server_log_path() const { return cluster_ ? cluster_->server_log_path() : ""; }
  // Embedded only: ms until the cluster accepted connections; -1 with --dsn.
  double ready_ms() const { return cluster_ ? cluster_->ready_ms() : -1; }
  // Drops the generated role, then stops the embedded cluster (idempotent). Call after every
  // connection made with conninfo() is closed.
  Status Close();

 private:
  std::unique_ptr<EmbeddedCluster> cluster_;
  std::unique_ptr<ScenarioRole> role_;
  std::string conninfo_;
  TargetInfo info_;
};

}  // namespace racelab::cli
