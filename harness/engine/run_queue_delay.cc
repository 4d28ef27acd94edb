#include "harness/engine/run_queue_delay.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace racelab {
namespace {

// "<on-cpu ns> <run-queue ns> <timeslices>\n" -> run-queue µs, or -1.
int64_t ReadRunDelayUs(int fd) {
  if (fd < 0) return -1;
  char buf[128];
  ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return -1;
  buf[n] = '\0';
  char* end = nullptr;
  std::strtoull(buf, &end, 10);  // time on the CPU: not needed
  if (end == buf) return -1;
  const char* second = end;
  unsigned long long run_delay_ns = std::strtoull(second, &end, 10);
  if (end == second) return -1;
  return static_cast<int64_t>(run_delay_ns / 1000);
}

// Closes the calling thread's descriptor when the thread ends.
struct ThreadFd {
  int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  ~ThreadFd() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

int64_t ThreadRunDelayUs() {
  thread_local ThreadFd self;
  return ReadRunDelayUs(self.fd);
}

bool IsLocalBackend(int socket_fd, int backend_pid) {
  if (socket_fd < 0 || backend_pid <= 0) return false;
  ucred peer{};
  socklen_t len = sizeof peer;
  if (getsockopt(socket_fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0 || peer.pid <= 0)
    return false;
  // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may contain spaces and ')', so parse after
  // the last ')'.
  int fd = open(("/proc/" + std::to_string(backend_pid) + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[512];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return false;
  std::string stat(buf, static_cast<size_t>(n));
  size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return false;
  char state = 0;
  int ppid = 0;
  if (std::sscanf(stat.c_str() + paren + 1, " %c %d", &state, &ppid) != 2) return false;
  return ppid == peer.pid;
}

ProcessRunDelay::ProcessRunDelay(int pid) {
  if (pid > 0)
    fd_ = open(("/proc/" + std::to_string(pid) + "/schedstat").c_str(), O_RDONLY | O_CLOEXEC);
}

ProcessRunDelay::~ProcessRunDelay() {
  if (fd_ >= 0) close(fd_);
}

int64_t ProcessRunDelay::ReadUs() const { return ReadRunDelayUs(fd_); }

}  // namespace racelab
