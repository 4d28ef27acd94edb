// EmbeddedMariaDb: a throwaway MariaDB server racelab starts for `--engine mariadb` without --dsn
// (README "Using it"), from the machine's mariadb-server package (Debian 12: 10.11).
//
// - Binaries: options.bindir, else /usr/sbin/mariadbd and /usr/bin/mariadb-install-db (PATH too).
// - mariadb-install-db runs once into a cached template <base>/template-<version>-data (flock, made
//   in a .tmp folder and renamed: nobody sees half a template; harness/engines/embedded/
//   template_dir.h), copied per run into <base>/run-<racelab pid>-<n>/data. <base> is
//   $RACELAB_TMPDIR, else $TMPDIR, else /tmp, +
//   "/racelab-<uid>/mariadb" (the PostgreSQL cluster's folder, its own sub-folder).
// - Started with a private Unix socket in the run folder (--skip-networking: no TCP), durability
// off
//   (innodb_flush_log_at_trx_commit=0, sync_binlog=0, no binary log, innodb_doublewrite=0), a 32 MB
//   buffer pool, the performance schema off; root@localhost without password (socket only).
// - When racelab runs as root, both run as an unprivileged user (harness/engines/embedded/process.h
//   ChooseServerUser: `postgres`, else `nobody`): mariadbd refuses root without --user.
// - Stopped by Stop() and the destructor (SIGTERM = MariaDB's normal shutdown, SIGKILL after a
//   deadline), its run folder removed. mariadbd gets SIGKILL if racelab dies (PR_SET_PDEATHSIG);
//   the next start removes run folders whose owner process is gone (harness/engines/embedded/
//   run_folders.h CleanRunFolders), killing what is left of their server first. MariaDB allocates
//   nothing outside its run folder (no SysV shared memory), so the run folder is all there is to
//   remove.
// Thread-safety: Start/Stop from one thread; the accessors from any thread after Start. The thread
// that called Start() must outlive the server (Linux ties the parent-death signal to it).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "harness/model/status.h"

namespace racelab::mariadb {

struct ServerOptions {
  std::string bindir;            // folder with mariadbd (and mariadb-install-db); "" = discover
  std::string base_dir;          // "" = the default above
  int ready_timeout_ms = 30000;  // from mariadbd's start until it accepts a connection
};

class EmbeddedMariaDb {
 public:
  // Cleans orphans, makes the template if needed, copies it, starts mariadbd, waits until it
  // accepts connections. Errors: kDatabase (install or start failed or missed the deadline; with
  // the tail of the server's log), kInternal (binaries not found, file-system errors).
  static Result<std::unique_ptr<EmbeddedMariaDb>> Start(const ServerOptions& options);
  ~EmbeddedMariaDb();  // Stop(), errors ignored
  EmbeddedMariaDb(const EmbeddedMariaDb&) = delete;
  EmbeddedMariaDb& operator=(const EmbeddedMariaDb&) = delete;

  // SIGTERM, up to 10 s, then SIGKILL to mariadbd and every process left in its data folder;
  // removes the run folder. Idempotent. Errors: kInternal (a process would not die, the folder
  // cannot be removed).
  Status Stop();

  const std::string& socket_path() const { return socket_; }
  const std::string& run_dir() const { return run_dir_; }
  const std::string& version() const { return version_; }  // "10.11.19-MariaDB-0+deb12u1"
  pid_t pid() const { return pid_; }
  // Time from mariadbd's start to its first accepted connection, and the whole Start().
  std::chrono::microseconds ready_time() const { return ready_time_; }
  std::chrono::microseconds start_time() const { return start_time_; }
  bool ran_install() const { return ran_install_; }

 private:
  EmbeddedMariaDb() = default;
  Status WaitReady(int timeout_ms);

  std::string run_dir_;
  std::string socket_;
  std::string version_;
  std::string log_path_;
  pid_t pid_ = -1;
  bool ran_install_ = false;
  std::chrono::microseconds ready_time_{0};
  std::chrono::microseconds start_time_{0};
};

// Removes run folders under `base_dir` (the MariaDB base) whose racelab process is gone, stopping
// their server first. Returns how many it removed. Safe to call concurrently with live runs.
int CleanMariaDbOrphans(const std::string& base_dir);
// The run folders CleanMariaDbOrphans would remove (owner gone), as paths; nothing is touched.
std::vector<std::string> ListMariaDbOrphans(const std::string& base_dir);

// The default base folder: $RACELAB_TMPDIR, else $TMPDIR, else /tmp, + "/racelab-<uid>/mariadb".
std::string DefaultMariaDbBaseDir();

}  // namespace racelab::mariadb
