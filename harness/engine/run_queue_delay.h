// Run-queue delay: how long a thread or process was ready to run but waited for a CPU — the
// scheduling lateness a busy machine adds to every wait, measured by the kernel itself.
//
// Source: Linux /proc/<pid>/schedstat and /proc/thread-self/schedstat, second field, "time spent
// waiting on a runqueue" in ns (kernel Documentation/scheduler/sched-stats.rst; the task's
// sched_info.run_delay, kept whenever CONFIG_SCHED_INFO is set, which every distribution kernel
// has). It grows only while the task is runnable and not running: never while it sleeps in poll(2),
// on a latch or on a lock, so over a wait it counts exactly the time load added to that wait.
// Values are µs; -1 means "not available" (no /proc, another OS, the process has exited).
// Thread-safety: ThreadRunDelayUs() reads the calling thread's own counter (a thread_local file
// descriptor); a ProcessRunDelay object is used by one thread at a time.
#pragma once

#include <cstdint>

namespace racelab {

// Run-queue delay of the calling thread since it started, in µs; -1 if unavailable.
int64_t ThreadRunDelayUs();

// True when `backend_pid` (PQbackendPID) is a process of this machine serving the connection on
// `socket_fd` (PQsocket): the socket is a Unix-domain socket whose peer — the postmaster, which
// called listen(2) (SO_PEERCRED, unix(7)) — is the backend's parent. False over TCP, through a
// pooler, or across PID namespaces (SO_PEERCRED then reports pid 0), so a --dsn server elsewhere is
// never mistaken for a local process that happens to have the same pid.
bool IsLocalBackend(int socket_fd, int backend_pid);

// The run-queue delay counter of another process on this machine (e.g. a PostgreSQL backend of the
// embedded cluster), opened once and re-read with pread(2).
class ProcessRunDelay {
 public:
  ProcessRunDelay() = default;
  explicit ProcessRunDelay(int pid);  // pid <= 0: never available
  ~ProcessRunDelay();
  ProcessRunDelay(const ProcessRunDelay&) = delete;
  ProcessRunDelay& operator=(const ProcessRunDelay&) = delete;

  // Its run-queue delay since it started, in µs; -1 if unavailable.
  int64_t ReadUs() const;

 private:
  int fd_ = -1;
};

}  // namespace racelab
