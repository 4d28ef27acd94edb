// Target: where a run goes — the embedded cluster (no --dsn) or a server named by --dsn.
// Thread-safety: used from the main thread only.
#pragma once

#include <memory>
#include <string>

#include "harness/embedded/cluster.h"
#include "harness/model/status.h"
#include "harness/model/summary.h"
#include "harness/run/stop_flag.h"

namespace racelab::cli {

struct TargetOptions {
  std::string dsn;         // empty: embedded cluster
  std::string pg_bindir;   // embedded only
  long connect_timeout_ms = 5000;
  const StopFlag* stop = nullptr;
};

class Target {
 public:
  // Starts the embedded cluster or checks that the DSN parses (kUsage) and answers (kDatabase), then
  // reads the server's version and settings. Error messages never contain a password.
  static Result<std::unique_ptr<Target>> Open(const TargetOptions& options);
  ~Target();  // stops the embedded cluster, if any

  const std::string& conninfo() const { return conninfo_; }
  const TargetInfo& info() const { return info_; }
  // Embedded only: ms until the cluster accepted connections; -1 with --dsn.
  double ready_ms() const { return cluster_ ? cluster_->ready_ms() : -1; }
  // Stops the embedded cluster now (idempotent).
  Status Close();

 private:
  std::unique_ptr<EmbeddedCluster> cluster_;
  std::string conninfo_;
  TargetInfo info_;
};

}  // namespace racelab::cli
