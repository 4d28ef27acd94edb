// EmbeddedCluster: a throwaway PostgreSQL cluster that racelab starts when no --dsn is given
// (README "Using it").
//
// - Binaries: ClusterOptions::pg_bindir, else `pg_config --bindir`, else initdb on PATH, else the
//   newest /usr/lib/postgresql/*/bin.
// - initdb once into a cached template (<base_dir>/template-<major>-wal1, template.h), copied per
// run into
//   <base_dir>/run-<racelab pid>-<n>/data; started with a private Unix socket in the run folder
//   (listen_addresses=''), fsync, synchronous_commit and full_page_writes off, max_connections=200,
//   log_lock_waits on with deadlock_timeout 1ms, jsonlog to <run folder>/server.json (see
//   server_log_path()). Its catalogs are never truncated by vacuum
//   (harness/engines/postgresql/catalogs.h). dynamic_shared_memory_type=mmap: its segments are
//   files in the run folder, not in /dev/shm. The run folder also holds owner.pid (the owning
//   racelab process) and postgres.log (server output until the logging collector starts).
// - When racelab runs as root, initdb and postgres run as an unprivileged user (`postgres` if it
//   exists, else `nobody`): PostgreSQL refuses to run as root. The base folder's parents must be
//   enterable by that user (/tmp is).
// - Stopped by Stop() and the destructor (fast shutdown, then SIGKILL after a deadline, at once if
//   the postmaster is stopped), its run folder removed. The postmaster gets SIGKILL if racelab dies
//   (PR_SET_PDEATHSIG); CleanOrphans() removes run folders whose owner pid is gone and stops their
//   server.
// - Nothing is left when the server dies: the only thing a server allocates outside its run folder
//   is its SysV shared-memory segment (postmaster.pid line 7; PostgreSQL docs §19.4.1). It is
//   recorded in <base_dir>/ipc-<run folder name> once the server is ready; Stop() removes the
//   segment a killed server leaves, and CleanOrphans() any segment a record still names.
// - Unix socket paths are limited to 107 bytes: keep base_dir short (the default,
//   /dev/shm/racelab-<uid> or /tmp/racelab-<uid>, is).
// Thread-safety: Start/Stop of one cluster from one thread; several clusters may be started
// concurrently from different threads and processes. conninfo() and the other accessors are safe
// from any thread after Start. REQUIRES: the thread that called Start() outlives the cluster (or
// Stop() is called first): Linux sends the parent-death signal when the *thread* that forked the
// postmaster exits, so a cluster started from a short-lived thread is killed with that thread.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "harness/model/status.h"

namespace racelab::pg {

struct ClusterOptions {
  std::string pg_bindir;  // empty: discover
  std::string
      base_dir;  // empty: DefaultBaseDir() ($RACELAB_TMPDIR, else $TMPDIR, else /dev/shm or /tmp)
  // How long to wait for the started server to accept connections, in ms (counted from the
  // postmaster's start; initdb, when needed, has its own 120 s deadline).
  int ready_timeout_ms = 30000;
  // Extra server settings (-c name=value), e.g. {"max_connections", "300"}; they replace racelab's
  // defaults of the same name. Settings that move the server out of its run folder
  // (unix_socket_directories, data_directory, ...) are refused.
  std::vector<std::pair<std::string, std::string>> settings;
};

class EmbeddedCluster {
 public:
  // Finds binaries, cleans orphans, initdb (cached), copies, starts, waits until it accepts
  // connections.
  // Errors: kDatabase (initdb or the server failed or missed its deadline; the message includes the
  // tail of its log), kUsage (options.pg_bindir without the binaries, an invalid setting, a
  // base_dir too long for a socket path) or kInternal (binaries not found, file-system errors).
  static Result<std::unique_ptr<EmbeddedCluster>> Start(const ClusterOptions& options);

  ~EmbeddedCluster();  // Stop(), errors ignored
  EmbeddedCluster(const EmbeddedCluster&) = delete;
  EmbeddedCluster& operator=(const EmbeddedCluster&) = delete;

  // Fast shutdown, wait up to 10 s (not at all for a stopped postmaster), then SIGKILL to the
  // postmaster and every process left in its data directory (backends of a killed or stopped
  // server); removes its shared memory and the run folder. Returns within ~20 s whatever the
  // server does. Errors: kInternal (a process would not die, the folder cannot be removed).
  // Idempotent.
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
  // The server's structured log (jsonlog, log_timezone UTC) in the run folder, where it records
  // every lock wait longer than deadlock_timeout (1 ms by default; docs/lock-waits.md); empty when
  // the settings turned jsonlog off.
  const std::string& server_log_path() const { return server_log_path_; }
  // Settings racelab started the server with (for the report's target.settings).
  const std::vector<std::pair<std::string, std::string>>& settings() const { return settings_; }

 private:
  EmbeddedCluster() = default;
  // Polls PQping until the server accepts connections, it exits (error with its log's tail), or
  // `timeout_ms` passes.
  Status WaitReady(int timeout_ms);

  std::string conninfo_, bindir_, run_dir_, server_log_path_;
  pid_t postmaster_pid_ = -1;
  double ready_ms_ = 0;
  bool ran_initdb_ = false;
  bool stopped_ = false;
  std::vector<std::pair<std::string, std::string>> settings_;
};

// Removes run folders under `base_dir` whose racelab owner process is gone (or whose pid now names
// another process), SIGKILLing their server first (bounded wait; a server that will not go is left
// for a later call), and the shared-memory segments that ipc-* records name for run folders that
// are gone. Returns how many run folders it removed. Safe to call while other racelab processes
// run.
int CleanOrphans(const std::string& base_dir);
// The run folders CleanOrphans would remove (owner gone), as paths; nothing is touched.
std::vector<std::string> ListOrphans(const std::string& base_dir);
// The cached templates of earlier racelab versions under `base_dir`, which this one never uses
// (template.h: ListObsoleteTemplates): listed, and removed by `racelab clean` only.
std::vector<std::string> ListObsoleteTemplates(const std::string& base_dir);
int CleanObsoleteTemplates(const std::string& base_dir);
// This version's template in a base folder racelab no longer uses (UnusedBaseDirs(); template.h:
// ListUnusedTemplates): listed, and removed by `racelab clean` unless a run uses that folder or the
// template.
std::vector<std::string> ListUnusedTemplates(const std::string& base_dir);
int CleanUnusedTemplates(const std::string& base_dir);

// The default base folder (see ClusterOptions::base_dir): $RACELAB_TMPDIR, else $TMPDIR, else
// /dev/shm when it is a tmpfs with at least kMinMemoryBaseFreeBytes free (embedded::MemoryTmpDir),
// else /tmp; + "/racelab-<euid>". In memory, copying the template (~1,000 files) and the cluster's
// own writes touch no disk: on the development machine's ext4 (no journal), creating a file cost up
// to ~1 ms while other processes had just deleted many, and a one-trial run took 0.4–2.0 s in /tmp
// against 0.3–0.4 s in /dev/shm (docs/performance.md "Time to the first result: where it goes").
// The free-space floor leaves room for the template, the cluster's copy and its WAL (up to
// max_wal_size, 1 GB by default) with room to spare.
inline constexpr unsigned long long kMinMemoryBaseFreeBytes = 2ULL << 30;
std::string DefaultBaseDir();
// The folders `racelab clean` looks in: DefaultBaseDir(), and the /tmp one too when that is not it
// (runs of earlier racelab versions, or of runs made while /dev/shm had too little room).
std::vector<std::string> BaseDirsToClean();
// The folders of BaseDirsToClean() that are not DefaultBaseDir(): a run of this racelab would not
// choose them now (unless /dev/shm fills up), so this version's template there is an unused cache
// (ListUnusedTemplates).
std::vector<std::string> UnusedBaseDirs();

}  // namespace racelab::pg
