#include "harness/engines/embedded/process.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "harness/engines/embedded/files.h"

extern char** environ;

namespace racelab::embedded {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Child side of Spawn(): only async-signal-safe calls from here on.
void ChildWrite(const char* text) {
  ssize_t ignored = write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

[[noreturn]] void ChildFail(const char* what, const char* arg) {
  int err = errno;
  char digits[16];
  int n = sizeof(digits) - 1;
  digits[n] = '\0';
  do {
    digits[--n] = static_cast<char>('0' + err % 10);
    err /= 10;
  } while (err > 0 && n > 0);
  const char* parts[] = {"racelab: ", what, arg, ": errno ", digits + n, "\n"};
  for (const char* part : parts) ChildWrite(part);
  _exit(127);
}

void MoveFd(int from, int to) {
  if (from == to) {
    fcntl(to, F_SETFD, 0);  // keep it across exec
  } else {
    dup2(from, to);
  }
}

// Milliseconds left until `deadline`, at least 0, for poll().
int RemainingMs(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(left);
}

// Waits until `pid` has exited (zombie or gone) or the deadline passes, with a pidfd when the
// kernel has one; returns false if pidfd is unavailable (caller polls instead).
bool PollPidfd(pid_t pid, Clock::time_point deadline, bool* exited) {
  int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) {
    if (errno == ESRCH) {
      *exited = true;
      return true;
    }
    return false;
  }
  pollfd p{fd, POLLIN, 0};
  int rc;
  do {
    rc = poll(&p, 1, RemainingMs(deadline));
  } while (rc < 0 && errno == EINTR && Clock::now() < deadline);
  close(fd);
  *exited = rc > 0;
  return true;
}

Result<ServerUser> LookupUser(const char* name) {
  passwd pw{};
  passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (getpwnam_r(name, &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
    return Status::Internal(std::string("no user named ") + name);
  }
  return ServerUser{name, pw.pw_uid, pw.pw_gid, true};
}

}  // namespace

Result<ServerUser> ChooseServerUser() {
  if (geteuid() != 0) {
    passwd pw{};
    passwd* found = nullptr;
    std::vector<char> buf(16384);
    std::string name = "uid " + std::to_string(geteuid());
    if (getpwuid_r(geteuid(), &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr) {
      name = pw.pw_name;
    }
    return ServerUser{name, geteuid(), getegid(), false};
  }
  for (const char* name : {"postgres", "nobody"}) {
    Result<ServerUser> user = LookupUser(name);
    if (user.ok() && user->uid != 0) return user;
  }
  return Status::Internal(
      "racelab runs as root and database servers refuse to: create a 'postgres' user (or "
      "'nobody') for the embedded server, or run racelab as an ordinary user");
}

Result<pid_t> Spawn(const SpawnOptions& options) {
  if (options.argv.empty()) return Status::Internal("Spawn: empty argv");
  // Everything the child needs, prepared before fork().
  std::vector<std::string> args = options.argv;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // racelab's environment minus PG* variables (they would steer libpq and initdb).
  std::vector<char*> envp;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::strncmp(*e, "PG", 2) != 0) envp.push_back(*e);
  }
  envp.push_back(nullptr);
  int in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  int out_fd = options.output_fd;
  if (out_fd < 0) {
    const std::string& path = options.output_path.empty() ? "/dev/null" : options.output_path;
    out_fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (out_fd < 0) {
      if (in_fd >= 0) close(in_fd);
      return Status::Internal("cannot open " + path + ": " + std::strerror(errno));
    }
  }
  const bool drop = options.user != nullptr && options.user->drop;
  const uid_t uid = drop ? options.user->uid : 0;
  const gid_t gid = drop ? options.user->gid : 0;
  const pid_t parent = getpid();

  pid_t pid = fork();
  if (pid == 0) {
    setsid();  // no terminal signals: racelab decides when the server stops
    if (in_fd >= 0) MoveFd(in_fd, STDIN_FILENO);
    MoveFd(out_fd, STDOUT_FILENO);
    MoveFd(out_fd, STDERR_FILENO);
    if (close_range(3, ~0U, 0) != 0) {
      for (int fd = 3; fd < 4096; ++fd) close(fd);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);  // racelab may block SIGINT/SIGTERM in its threads
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig) {
      if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &dfl, nullptr);
    }
    if (drop) {
      if (setgroups(1, &gid) != 0) ChildFail("setgroups", "");
      if (setgid(gid) != 0) ChildFail("setgid", "");
      if (setuid(uid) != 0) ChildFail("setuid", "");
    }
    if (options.die_with_parent) {
      // After setuid: a credential change clears the parent-death signal.
      if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) ChildFail("prctl", "");
      if (getppid() != parent) _exit(127);  // the parent died before prctl took effect
    }
    execve(argv[0], argv.data(), envp.data());
    ChildFail("cannot exec ", argv[0]);
  }
  int fork_errno = errno;
  if (in_fd >= 0) close(in_fd);
  if (options.output_fd < 0) close(out_fd);
  if (pid < 0) return Status::Internal(std::string("fork failed: ") + std::strerror(fork_errno));
  return pid;
}

std::optional<int> ReapIfExited(pid_t pid) {
  int status = 0;
  pid_t rc;
  do {
    rc = waitpid(pid, &status, WNOHANG);
  } while (rc < 0 && errno == EINTR);
  if (rc == pid) return status;
  if (rc < 0 && errno == ECHILD) return -1;  // not (or no longer) our child: gone as far as we know
  return std::nullopt;
}

std::optional<int> WaitForExit(pid_t pid, milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  for (;;) {
    if (std::optional<int> status = ReapIfExited(pid)) return status;
    if (Clock::now() >= deadline) return std::nullopt;
    bool exited = false;
    if (!PollPidfd(pid, deadline, &exited)) {
      std::this_thread::sleep_for(milliseconds(5));  // no pidfd: poll the exit
    } else if (!exited && Clock::now() >= deadline) {
      return ReapIfExited(pid);
    }
  }
}

bool KillAndReap(pid_t pid, milliseconds timeout) {
  kill(pid, SIGKILL);
  return WaitForExit(pid, timeout).has_value();
}

std::vector<pid_t> ProcessesIn(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path want = fs::weakly_canonical(dir, ec);
  if (ec) want = fs::path(dir).lexically_normal();
  const std::string wanted = want.string(), deleted = wanted + " (deleted)";
  std::vector<pid_t> found;
  fs::directory_iterator it("/proc", ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code link_ec;
    const std::string cwd = fs::read_symlink(it->path() / "cwd", link_ec).string();
    if (!link_ec && (cwd == wanted || cwd == deleted)) found.push_back(std::stoi(name));
  }
  return found;
}

bool ProcessStopped(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t close_paren = text.rfind(')');
  if (close_paren == std::string::npos || close_paren + 2 >= text.size()) return false;
  char state = text[close_paren + 2];
  return state == 'T' || state == 't';
}

bool KillProcessesIn(const std::string& data_dir, milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  for (;;) {
    std::vector<pid_t> left = ProcessesIn(data_dir);
    bool alive = false;
    for (pid_t p : left) {
      if (!ProcessAlive(p)) continue;  // a zombie waits for its parent (init) to reap it
      alive = true;
      kill(p, SIGKILL);
    }
    if (!alive) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(milliseconds(10));
  }
}

bool StopServer(pid_t server, const std::string& data_dir, int stop_signal, milliseconds grace,
                milliseconds kill_timeout) {
  const Clock::time_point deadline = Clock::now() + grace;
  bool exited = ReapIfExited(server).has_value();
  if (!exited) kill(server, stop_signal);
  while (!exited && !ProcessStopped(server) && Clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(10));
    exited = ReapIfExited(server).has_value();
  }
  if (!exited) exited = KillAndReap(server, kill_timeout);
  return KillProcessesIn(data_dir, kill_timeout) && exited;
}

ReadyWait WaitUntilReady(pid_t server, Clock::time_point deadline,
                         const std::function<bool()>& ready, milliseconds interval) {
  ReadyWait out;
  for (;;) {
    if (ready()) {
      out.ready = true;
      return out;
    }
    out.exit_status = ReapIfExited(server);
    if (out.exit_status || Clock::now() >= deadline) return out;
    std::this_thread::sleep_for(std::min<Clock::duration>(interval, deadline - Clock::now()));
  }
}

Status RunToCompletion(const std::vector<std::string>& argv, const std::string& log_path,
                       const ServerUser& user, milliseconds timeout, const std::string& what) {
  SpawnOptions spawn;
  spawn.argv = argv;
  spawn.output_path = log_path;
  spawn.user = &user;
  spawn.die_with_parent = true;
  Result<pid_t> pid = Spawn(spawn);
  if (!pid.ok()) return pid.status();
  std::optional<int> status = WaitForExit(*pid, timeout);
  if (!status) {
    KillAndReap(*pid, milliseconds(5000));
    return Status::Database(what + " did not finish within " +
                            std::to_string(timeout.count() / 1000) + " s; its output:\n" +
                            TailOfFile(log_path));
  }
  if (!WIFEXITED(*status) || WEXITSTATUS(*status) != 0) {
    const std::string errors = ErrorLinesOfFile(log_path);
    return Status::Database(what + " (as user '" + user.name + "') " + DescribeWaitStatus(*status) +
                            "; " + (errors.empty() ? "" : "its errors:\n" + errors + "\n") +
                            "its output's end:\n" + TailOfFile(log_path));
  }
  return Status::Ok();
}

Result<std::string> RunCapture(const std::vector<std::string>& argv, milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Status::Internal("pipe failed");
  SpawnOptions spawn;
  spawn.argv = argv;
  spawn.output_fd = fds[1];
  Result<pid_t> pid = Spawn(spawn);
  close(fds[1]);
  if (!pid.ok()) {
    close(fds[0]);
    return pid.status();
  }
  std::string out;
  char buf[4096];
  for (;;) {
    pollfd p{fds[0], POLLIN, 0};
    int rc = poll(&p, 1, RemainingMs(deadline));
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) break;  // deadline
    ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF
    if (out.size() < 65536) out.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  std::optional<int> status = WaitForExit(*pid, milliseconds(RemainingMs(deadline)));
  if (!status) {
    KillAndReap(*pid, milliseconds(2000));
    return Status::Internal(argv[0] + " did not finish within " + std::to_string(timeout.count()) +
                            " ms");
  }
  if (!WIFEXITED(*status) || WEXITSTATUS(*status) != 0) {
    return Status::Internal(argv[0] + " " + DescribeWaitStatus(*status) + ": " + out);
  }
  return out;
}

bool ProcessAlive(pid_t pid) {
  if (pid <= 0) return false;
  if (kill(pid, 0) != 0 && errno == ESRCH) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t close_paren = text.rfind(')');
  if (close_paren == std::string::npos || close_paren + 2 >= text.size()) return true;
  return text[close_paren + 2] != 'Z';  // a zombie has exited
}

bool WaitUntilGone(pid_t pid, milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  while (ProcessAlive(pid)) {
    if (Clock::now() >= deadline) return false;
    bool exited = false;
    if (!PollPidfd(pid, deadline, &exited)) std::this_thread::sleep_for(milliseconds(5));
  }
  return true;
}

std::optional<unsigned long long> ProcessStartTime(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t close_paren = text.rfind(')');
  if (close_paren == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(close_paren + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) return std::strtoull(field.c_str(), nullptr, 10);
  }
  return std::nullopt;
}

std::string ProcessCmdline(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char& c : text) {
    if (c == '\0') c = ' ';
  }
  return text;
}

std::string DescribeWaitStatus(int status) {
  if (status == -1) return "exited (already reaped)";
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "stopped";
}

}  // namespace racelab::embedded
