#include "harness/run/program.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <tuple>

#include "harness/engines/embedded/files.h"
#include "harness/engines/embedded/run_folders.h"
#include "harness/run/program_folders.h"

extern char** environ;

namespace racelab::internal {
namespace {

constexpr auto kSlice = std::chrono::milliseconds(50);
constexpr auto kGroupGoneDeadline = std::chrono::seconds(2);

void CloseFd(int* fd) {
  if (*fd >= 0) ::close(*fd);
  *fd = -1;
}

std::string Errno(const char* what) { return fmt::format("{}: {}", what, std::strerror(errno)); }

}  // namespace

Result<std::unique_ptr<Program>> Program::Start(ProgramSpec spec) {
  std::unique_ptr<Program> p(new Program());
  std::string templ =
      fmt::format("{}/{}{}-XXXXXX", ProgramFolderBase(), kProgramFolderPrefix, ::getpid());
  if (::mkdtemp(templ.data()) == nullptr) return Status::Internal(Errno("mkdtemp"));
  p->dir_ = templ;
  // owner.pid and pgid let `racelab clean` end the program if racelab is killed
  // (program_folders.h).
  if (Status owner = embedded::WriteOwnerFile(p->dir_); !owner.ok()) return owner;
  p->socket_path_ = p->dir_ + "/pause.sock";
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (p->socket_path_.size() >= sizeof(addr.sun_path))
    return Status::Internal("the pause socket's path is too long: " + p->socket_path_);
  std::memcpy(addr.sun_path, p->socket_path_.c_str(), p->socket_path_.size() + 1);
  p->listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (p->listen_fd_ < 0) return Status::Internal(Errno("socket"));
  if (::bind(p->listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::listen(p->listen_fd_, 16) != 0)
    return Status::Internal(Errno("the pause socket"));

  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return Status::Internal(Errno("pipe"));
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    return Status::Internal(Errno("pipe"));
  }
  p->out_.fd = out[0];
  p->err_.fd = err[0];
  ::fcntl(out[0], F_SETFL, O_NONBLOCK);
  ::fcntl(err[0], F_SETFL, O_NONBLOCK);

  spec.env.emplace_back("RACELAB_PAUSE", p->socket_path_);
  std::vector<std::string> env_text;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string key = entry.substr(0, entry.find('='));
    const bool replaced = std::any_of(spec.env.begin(), spec.env.end(),
                                      [&](const auto& kv) { return kv.first == key; });
    if (!replaced) env_text.push_back(entry);
  }
  for (const auto& [k, v] : spec.env) env_text.push_back(k + "=" + v);
  std::vector<char*> envp, argv;
  for (std::string& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  for (std::string& a : spec.argv) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawn_file_actions_addchdir_np(&actions, spec.dir.c_str());
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setpgroup(&attr, 0);  // a group of its own: killed whole, no terminal's Ctrl-C
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const int rc =
      ::posix_spawn(&pid, spec.program.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(out[1]);
  ::close(err[1]);
  if (rc != 0) {
    p->reaped_ = true;
    return Status::Usage(fmt::format("cannot start {}: {}", spec.program, std::strerror(rc)));
  }
  p->pid_ = pid;
  if (Status group = embedded::WriteFileAtomic(p->dir_ + "/pgid", std::to_string(pid) + "\n");
      !group.ok())
    return group;  // the destructor kills the group
  return p;
}

Program::~Program() {
  Kill("");
  CloseFd(&out_.fd);
  CloseFd(&err_.fd);
  CloseFd(&listen_fd_);
  for (Client& c : clients_) CloseFd(&c.fd);
  if (!socket_path_.empty()) ::unlink(socket_path_.c_str());
  if (!dir_.empty()) {
    for (const char* file : {"/pgid", "/owner.pid"}) ::unlink((dir_ + file).c_str());
    ::rmdir(dir_.c_str());
  }
}

bool Program::GroupAlive(pid_t pgid) {
  return pgid > 0 && (::kill(-pgid, 0) == 0 || errno == EPERM);
}

void Program::Kill(const std::string& why) {
  if (pid_ <= 0 || reaped_) return;
  // The leader is not reaped yet (CheckExited peeks with WNOWAIT), so the group id is still ours.
  ::kill(-pid_, SIGKILL);
  if (!exited_ && ended_.empty() && !why.empty()) ended_ = "killed: " + why;
  Reap();
  // SIGKILL is delivered asynchronously: the group's other members (a child it started) may take a
  // moment to die, and then to be reaped by whoever inherits them. Wait until the group is gone.
  const auto until = std::chrono::steady_clock::now() + kGroupGoneDeadline;
  while (GroupAlive(pid_) && std::chrono::steady_clock::now() < until) {
    ::kill(-pid_, SIGKILL);
    ::poll(nullptr, 0, 2);
  }
}

void Program::Reap() {
  if (reaped_ || pid_ <= 0) return;
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  if (!exited_) {
    exited_ = true;
    status_ = status;
  }
}

bool Program::CheckExited() {
  if (exited_) return true;
  siginfo_t info{};
  if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
      info.si_pid != pid_)
    return false;
  exited_ = true;
  status_ = info.si_code == CLD_EXITED ? (info.si_status & 0xff) << 8 : info.si_status & 0x7f;
  return true;
}

void Program::ReadStream(Stream* s) {
  char buf[16384];
  for (;;) {
    const ssize_t n = ::read(s->fd, buf, sizeof(buf));
    if (n > 0) {
      s->bytes += n;
      s->tail.append(buf, static_cast<size_t>(n));
      if (s->tail.size() > 2 * kOutputTailBytes)
        s->tail.erase(0, s->tail.size() - kOutputTailBytes);
      continue;
    }
    if (n == 0) CloseFd(&s->fd);  // EOF
    if (n < 0 && errno == EINTR) continue;
    return;
  }
}

void Program::ReadClient(Client* c) {
  char buf[512];
  const ssize_t n = ::read(c->fd, buf, sizeof(buf));
  if (n > 0) {
    c->buffer.append(buf, static_cast<size_t>(n));
  } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
    c->read_closed = true;
  }
}

bool Program::TakeLine(std::string* line, bool* bad) {
  for (size_t i = 0; i < clients_.size(); ++i) {
    std::string& b = clients_[i].buffer;
    const size_t nl = b.find('\n');
    if (nl == std::string::npos) {
      if (b.size() > kMaxPauseLine) {
        *bad = true;
        *line = b.substr(0, 40) + "…";
        b.clear();
        return true;
      }
      continue;
    }
    *line = b.substr(0, nl);
    b.erase(0, nl + 1);
    if (!line->empty() && line->back() == '\r') line->pop_back();
    pending_ = static_cast<int>(i);
    return true;
  }
  return false;
}

Program::Event Program::Await(SteadyTime deadline, const std::atomic<bool>* abort,
                              const StopFlag* stop) {
  for (;;) {
    std::string line;
    bool bad = false;
    if (pending_ < 0 && TakeLine(&line, &bad)) {
      if (bad || line.empty() || line.size() > kMaxPauseLine) {
        pending_ = -1;
        return {Event::Kind::kProtocol, line.empty() ? "an empty line" : "'" + line + "'"};
      }
      return {Event::Kind::kPause, line};
    }
    for (Stream* s : {&out_, &err_}) {
      if (s->bytes > kOutputLimitBytes) {
        Kill(fmt::format("it wrote more than {} MiB to {}", kOutputLimitBytes >> 20,
                         s == &out_ ? "stdout" : "stderr"));
        return {Event::Kind::kOverflow, ""};
      }
    }
    if (CheckExited()) {
      for (Stream* s : {&out_, &err_}) {
        if (s->fd >= 0) ReadStream(s);
      }
      for (Client& c : clients_) {
        if (c.fd >= 0 && !c.read_closed) ReadClient(&c);
      }
      if (pending_ < 0 && TakeLine(&line, &bad)) {
        pending_ = -1;  // a pause point written just before the exit: nobody waits for the go
      }
      Kill("");  // the rest of its group, then the reap
      return {Event::Kind::kExited, ""};
    }
    if ((abort != nullptr && abort->load()) || (stop != nullptr && stop->stop_requested()))
      return {Event::Kind::kStopped, ""};
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return {Event::Kind::kTimedOut, ""};
    std::vector<pollfd> fds;
    fds.push_back({listen_fd_, POLLIN, 0});
    for (Stream* s : {&out_, &err_}) fds.push_back({s->fd, POLLIN, 0});  // -1 is ignored
    for (Client& c : clients_) fds.push_back({c.read_closed ? -1 : c.fd, POLLIN, 0});
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    const int ms =
        static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(left.count(), kSlice.count())));
    if (::poll(fds.data(), fds.size(), ms) < 0 && errno != EINTR)
      return {Event::Kind::kTimedOut, ""};
    if (fds[0].revents & POLLIN) {
      for (;;) {
        const int c = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (c < 0) break;
        clients_.push_back({c, "", false});
      }
    }
    for (Stream* s : {&out_, &err_}) {
      if (s->fd >= 0) ReadStream(s);
    }
    for (size_t i = 0; i + 3 < fds.size() && i < clients_.size(); ++i) {
      Client& c = clients_[i];
      if (fds[i + 3].revents != 0 && c.fd >= 0) ReadClient(&c);
      // Hung up with no pause point to answer: closed (socat waits for our close before it exits).
      if (static_cast<int>(i) != pending_ && c.read_closed && c.fd >= 0 &&
          c.buffer.find('\n') == std::string::npos)
        CloseFd(&c.fd);
    }
  }
}

bool Program::Release() {
  if (pending_ < 0) return false;
  Client& c = clients_[static_cast<size_t>(pending_)];
  pending_ = -1;
  const bool sent = ::send(c.fd, "go\n", 3, MSG_NOSIGNAL) == 3;
  if (!c.read_closed) ReadClient(&c);  // a half-close (socat, nc -N) that came while it waited
  if (c.read_closed) CloseFd(&c.fd);   // it half-closed: this answer was all it waited for
  return sent;
}

SessionResult::Program Program::Outcome() const {
  SessionResult::Program r;
  if (!ended_.empty()) {
    r.ended = ended_;
  } else if (pid_ <= 0) {
    r.ended = "not started";
  } else if (WIFEXITED(status_)) {
    r.exit_code = WEXITSTATUS(status_);
    r.ended = fmt::format("exited {}", r.exit_code);
  } else if (WIFSIGNALED(status_)) {
    r.ended =
        fmt::format("killed by signal {} ({})", WTERMSIG(status_), strsignal(WTERMSIG(status_)));
  } else {
    r.ended = "running";
  }
  for (auto [stream, tail, truncated, bytes] :
       {std::tuple{&out_, &r.stdout_tail, &r.stdout_truncated, &r.stdout_bytes},
        std::tuple{&err_, &r.stderr_tail, &r.stderr_truncated, &r.stderr_bytes}}) {
    const std::string& t = stream->tail;
    *tail = t.size() > kOutputTailBytes ? t.substr(t.size() - kOutputTailBytes) : t;
    *truncated = stream->bytes > static_cast<int64_t>(tail->size());
    *bytes = stream->bytes;
  }
  return r;
}

std::string Program::LastOutput(size_t bytes) const {
  const Stream& s = !err_.tail.empty() ? err_ : out_;
  if (s.tail.empty()) return "";
  std::string t = s.tail;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  if (t.size() > bytes) {
    t = t.substr(t.size() - bytes);
    const size_t nl = t.find('\n');
    if (nl != std::string::npos && nl + 1 < t.size()) t = t.substr(nl + 1);
    t = "…" + t;
  }
  return fmt::format("{}: {}", &s == &err_ ? "stderr" : "stdout", t);
}

}  // namespace racelab::internal
