// Child processes for the embedded servers: fork + (drop privileges) + exec, waits with deadlines,
// and small /proc probes. Shared by the engines that start a throwaway server of their own
// (harness/engines/postgresql's cluster, harness/engines/mariadb's server); nothing here names an
// engine.
//
// Children never inherit racelab's descriptors (everything >= 3 is closed in the child) and run in
// their own session, so a terminal's Ctrl-C reaches racelab only; racelab decides how the server
// stops.
// Thread-safety: all functions are safe to call concurrently. Spawn() is fork-safe in a
// multi-threaded process: everything the child needs is prepared before fork(), the child only
// makes async-signal-safe calls.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/model/status.h"

namespace racelab::embedded {

// The account an embedded server (and its installer: initdb, mariadb-install-db) runs as. `drop` is
// true when racelab runs as root (PostgreSQL refuses root; MariaDB's mariadbd too, unless told
// --user=root): then the child switches to uid/gid before exec. Otherwise uid/gid are the current
// ids.
struct ServerUser {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
  bool drop = false;
};

// Root: the `postgres` account if it exists, else `nobody`. Not root: the current user.
// Errors: kInternal when running as root and neither account exists.
Result<ServerUser> ChooseServerUser();

struct SpawnOptions {
  std::vector<std::string> argv;     // argv[0] is an absolute path to the executable
  std::string output_path;           // stdout+stderr appended here; empty: /dev/null
  int output_fd = -1;                // if >= 0, used instead of output_path (not closed by Spawn)
  const ServerUser* user = nullptr;  // switch to this user when user->drop
  // PR_SET_PDEATHSIG(SIGKILL): the child is killed when the *thread* that called Spawn() exits
  // (Linux ties the parent-death signal to the forking thread, not the process).
  bool die_with_parent = false;
};

// Starts a child. Returns its pid; the caller must reap it (WaitForExit). If exec fails, the child
// writes the reason to its output and exits with status 127.
Result<pid_t> Spawn(const SpawnOptions& options);

// Waits for our child `pid` to exit, at most `timeout`. Returns its wait status (see WIFEXITED), or
// nullopt if it is still running at the deadline (or is not our child).
std::optional<int> WaitForExit(pid_t pid, std::chrono::milliseconds timeout);

// Non-blocking reap: the wait status if our child `pid` has exited, else nullopt.
std::optional<int> ReapIfExited(pid_t pid);

// SIGKILL, then reap with a deadline. Returns true when the child is gone.
bool KillAndReap(pid_t pid, std::chrono::milliseconds timeout);

// Processes whose working directory is `dir` (PostgreSQL's postmaster and every backend and helper
// process chdir to the data directory, mariadbd to its datadir; a deleted `dir` still matches,
// /proc shows it with " (deleted)"). Finds a server's processes even after its postmaster is gone:
// they are then children of init, and a stopped (SIGSTOP) backend never exits by itself. Processes
// racelab may not inspect are not listed.
std::vector<pid_t> ProcessesIn(const std::string& dir);

// Whether the process is stopped (SIGSTOP, or traced): it cannot act on any signal but SIGKILL.
bool ProcessStopped(pid_t pid);

// Stops our child server `server` whose data directory is `data_dir`: `stop_signal` (SIGINT is
// PostgreSQL's fast shutdown, PostgreSQL docs §19.5; SIGTERM MariaDB's normal shutdown), up to
// `grace` for it to exit — cut short when the server is stopped (SIGSTOP: it could never act on the
// signal) — then SIGKILL; then SIGKILL to every process still in `data_dir` (backends of a killed
// or stopped postmaster) and up to `kill_timeout` for them to go. Reaps `server`.
// Returns true when no process of the server is left.
bool StopServer(pid_t server, const std::string& data_dir, int stop_signal,
                std::chrono::milliseconds grace, std::chrono::milliseconds kill_timeout);

// Polls `ready` (e.g. "accepts a connection") every `interval` until it returns true, our child
// `server` exits, or `deadline` passes; `ready` must bound its own wait (a stopped server must not
// hold it). Returns `ready` = true, or the child's wait status in `exit_status` (it is reaped), or
// neither at the deadline.
struct ReadyWait {
  bool ready = false;
  std::optional<int> exit_status;
};
ReadyWait WaitUntilReady(pid_t server, std::chrono::steady_clock::time_point deadline,
                         const std::function<bool()>& ready, std::chrono::milliseconds interval);

// SIGKILL to every process in `data_dir` (see ProcessesIn), then up to `timeout` for them to go.
// Returns true when none is left.
bool KillProcessesIn(const std::string& data_dir, std::chrono::milliseconds timeout);

// Runs an installer (initdb, mariadb-install-db) as `user` to its end, its output appended to
// `log_path`, at most `timeout` (then it is killed). Errors: kDatabase "<what> did not finish
// within N s; its output: …" or "<what> (as user 'u') exited with status 1; its errors: … its
// output's end: …" (the log's first ERROR/FATAL lines, when it has any, then its last lines), or
// Spawn's.
Status RunToCompletion(const std::vector<std::string>& argv, const std::string& log_path,
                       const ServerUser& user, std::chrono::milliseconds timeout,
                       const std::string& what);

// Runs a command (as the current user) and returns its stdout, at most `timeout`; the child is
// killed at the deadline. Errors: kInternal when it cannot start, times out or exits non-zero.
Result<std::string> RunCapture(const std::vector<std::string>& argv,
                               std::chrono::milliseconds timeout);

// Whether a process exists and is not a zombie (a zombie has exited; it only waits to be reaped).
bool ProcessAlive(pid_t pid);

// Waits, at most `timeout`, until any process (not necessarily our child) has exited. Returns true
// when it is gone (or a zombie).
bool WaitUntilGone(pid_t pid, std::chrono::milliseconds timeout);

// The start time of a process in clock ticks since boot (/proc/<pid>/stat field 22), nullopt if it
// does not exist. Tells a live owner from an unrelated process that reused its pid.
std::optional<unsigned long long> ProcessStartTime(pid_t pid);

// /proc/<pid>/cmdline with the NUL separators turned into spaces; empty if unreadable.
std::string ProcessCmdline(pid_t pid);

// A human-readable description of a wait status, e.g. "exited with status 1", "killed by signal 9".
std::string DescribeWaitStatus(int status);

}  // namespace racelab::embedded
