// EmbeddedCluster: a throwaway PostgreSQL cluster that racelab starts when no --dsn is given
// (DESIGN.md "Embedded PostgreSQL", a contract).
//
// - Binaries: ClusterOptions::pg_bindir, else `pg_config --bindir`, else initdb on PATH, else the newest
//   /usr/lib/postgresql/*/bin.
// - initdb once into a cached template (<base_dir>/template-<major>), copied per run into
//   <base_dir>/run-<racelab pid>-<n>/; started with a private Unix socket (listen_addresses=''), fsync,
//   synchronous_commit and full_page_writes off.
// - When racelab runs as root, initdb and postgres run as an unprivileged user (`postgres` if it exists,
//   else `nobody`): PostgreSQL refuses to run as root.
// - Stopped by Stop() and the destructor (fast shutdown, then SIGKILL after a deadline), its run folder
//   removed. The postmaster gets SIGKILL if racelab dies (PR_SET_PDEATHSIG); CleanOrphans() removes run
//   folders whose owner pid is gone and stops their postmaster.
// Thread-safety: Start/Stop from one thread; conninfo() is safe from any thread after Start.
#pragma once

#include <memory>
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

#include "harness/model/status.h"

namespace racelab {

struct ClusterOptions {
  std::string pg_bindir;      // empty: discover
  std::string base_dir;       // empty: $RACELAB_TMPDIR, else $TMPDIR, else /tmp, + "/racelab-<uid>"
  int ready_timeout_ms = 30000;
  // Extra server settings (-c name=value), e.g. {"max_connections", "200"}.
  std::vector<std::pair<std::string, std::string>> settings;
};

class EmbeddedCluster {
 public:
  // Finds binaries, cleans orphans, initdb (cached), copies, starts, waits until it accepts connections.
  // Errors: kDatabase (server did not start; the message includes the tail of its log) or kInternal.
  static Result<std::unique_ptr<EmbeddedCluster>> Start(const ClusterOptions& options);

  ~EmbeddedCluster();  // Stop(), errors ignored
  EmbeddedCluster(const EmbeddedCluster&) = delete;
  EmbeddedCluster& operator=(const EmbeddedCluster&) = delete;

  // Fast shutdown, wait up to 10 s, then SIGKILL; removes the run folder. Idempotent.
  Status Stop();

  // libpq key=value connection string: host=<socket dir> port=… user=racelab dbname=postgres.
  const std::string& conninfo() const { return conninfo_; }
  const std::string& bindir() const { return bindir_; }
  const std::string& run_dir() const { return run_dir_; }
  pid_t postmaster_pid() const { return postmaster_pid_; }
  // Time from Start() call until the server accepted a connection, in ms (template copy included).
  double ready_ms() const { return ready_ms_; }
  // Whether Start() had to run initdb (no cached template).
  bool ran_initdb() const { return ran_initdb_; }
  // Settings racelab started the server with (for the report's target.settings).
  const std::vector<std::pair<std::string, std::string>>& settings() const { return settings_; }

 private:
  EmbeddedCluster() = default;
  std::string conninfo_, bindir_, run_dir_;
  pid_t postmaster_pid_ = -1;
  double ready_ms_ = 0;
  bool ran_initdb_ = false;
  bool stopped_ = false;
  std::vector<std::pair<std::string, std::string>> settings_;
};

// Removes run folders under `base_dir` whose racelab owner process is gone, stopping their postmaster
// first. Returns how many it removed. Safe to call while other racelab processes run.
int CleanOrphans(const std::string& base_dir);

// The default base folder (see ClusterOptions::base_dir).
std::string DefaultBaseDir();

}  // namespace racelab
