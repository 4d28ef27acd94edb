#include "harness/engines/mariadb/server.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "harness/engines/postgresql/files.h"
#include "harness/engines/postgresql/orphans.h"
#include "harness/engines/postgresql/process.h"
#include "harness/engines/mariadb/connection.h"

namespace racelab::mariadb {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kInstallTimeout(120000);
constexpr milliseconds kStopGrace(10000);
constexpr milliseconds kKillTimeout(5000);

// The server's options, racelab's choice (durability off: a throwaway server).
std::vector<std::string> ServerArgs(const std::string& run_dir) {
  return {"--no-defaults",
          "--datadir=" + run_dir + "/data",
          "--socket=" + run_dir + "/sock",
          "--pid-file=" + run_dir + "/mariadbd.pid",
          "--log-error=" + run_dir + "/server.log",
          "--tmpdir=" + run_dir + "/tmp",
          "--skip-networking",
          "--skip-name-resolve",
          "--skip-log-bin",
          "--sync-binlog=0",
          "--innodb-flush-log-at-trx-commit=0",
          "--innodb-doublewrite=0",
          "--innodb-buffer-pool-size=32M",
          "--innodb-log-file-size=8M",
          "--performance-schema=OFF",
          "--character-set-server=utf8mb4",
          "--collation-server=utf8mb4_general_ci",
          "--max-connections=1100"};
}

std::string FindBinary(const std::string& bindir, const std::string& name,
                       const std::vector<std::string>& candidates) {
  if (!bindir.empty()) return bindir + "/" + name;
  for (const std::string& c : candidates)
    if (access(c.c_str(), X_OK) == 0) return c;
  if (const char* path = std::getenv("PATH")) {
    std::string p(path);
    size_t start = 0;
    while (start <= p.size()) {
      size_t end = p.find(':', start);
      if (end == std::string::npos) end = p.size();
      std::string c = p.substr(start, end - start) + "/" + name;
      if (access(c.c_str(), X_OK) == 0) return c;
      start = end + 1;
    }
  }
  return "";
}

// "mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for …" -> "10.11.19-MariaDB-0+deb12u1".
std::string ParseVersion(const std::string& text) {
  size_t at = text.find("Ver ");
  if (at == std::string::npos) return "";
  at += 4;
  size_t end = text.find(' ', at);
  return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// An flock on `path`, polled until `deadline`. Returns the fd (>= 0) or -1.
int LockFile(const std::string& path, Clock::time_point deadline) {
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (Clock::now() >= deadline) {
      close(fd);
      return -1;
    }
    std::this_thread::sleep_for(milliseconds(50));
  }
  return fd;
}

// <base>/template-<version>, made by mariadb-install-db as `user` when missing.
Result<std::string> EnsureTemplate(const std::string& install_db, const std::string& base,
                                   const std::string& version, const internal::ServerUser& user,
                                   bool* ran) {
  const std::string dir = base + "/template-" + version;
  if (fs::exists(dir + "/data/mysql")) return dir + "/data";
  int lock = LockFile(dir + ".lock", Clock::now() + kInstallTimeout);
  if (lock < 0) return Status::Database("timed out waiting for another racelab to make " + dir);
  struct Unlock {
    int fd;
    ~Unlock() { close(fd); }
  } unlock{lock};
  if (fs::exists(dir + "/data/mysql")) return dir + "/data";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(base, ec)) {  // a killed maker's leftovers
    if (entry.path().filename().string().rfind("template-" + version + ".tmp-", 0) == 0)
      internal::RemoveTree(entry.path().string());
  }
  static std::atomic<int> counter{0};
  const std::string tmp = fmt::format("{}.tmp-{}-{}", dir, getpid(), counter++);
  if (Status s = internal::MakeOwnedDir(tmp, 0700, user); !s.ok()) return s;
  const std::string log = tmp + "/install.log";
  internal::SpawnOptions spawn;
  spawn.argv = {install_db, "--no-defaults", "--datadir=" + tmp + "/data",
                "--auth-root-authentication-method=normal", "--skip-test-db",
                "--skip-name-resolve", "--innodb-log-file-size=8M"};
  spawn.output_path = log;
  spawn.user = &user;
  spawn.die_with_parent = true;
  Result<pid_t> pid = internal::Spawn(spawn);
  if (!pid.ok()) return pid.status();
  *ran = true;
  std::optional<int> status = internal::WaitForExit(*pid, kInstallTimeout);
  if (!status) {
    internal::KillAndReap(*pid, kKillTimeout);
    std::string tail = internal::TailOfFile(log);
    internal::RemoveTree(tmp);
    return Status::Database("mariadb-install-db did not finish within 120 s:\n" + tail);
  }
  if (!WIFEXITED(*status) || WEXITSTATUS(*status) != 0) {
    std::string tail = internal::TailOfFile(log);
    internal::RemoveTree(tmp);
    return Status::Database(fmt::format("mariadb-install-db {}:\n{}",
                                        internal::DescribeWaitStatus(*status), tail));
  }
  if (rename(tmp.c_str(), dir.c_str()) != 0) {
    internal::RemoveTree(tmp);
    return Status::Internal("cannot rename " + tmp + " to " + dir);
  }
  return dir + "/data";
}

pid_t PidFromRunName(const std::string& name) {
  if (name.rfind("run-", 0) != 0) return -1;
  char* end = nullptr;
  long pid = std::strtol(name.c_str() + 4, &end, 10);
  return (end != nullptr && *end == '-' && pid > 0) ? static_cast<pid_t>(pid) : -1;
}

}  // namespace

std::string DefaultMariaDbBaseDir() {
  const char* dir = std::getenv("RACELAB_TMPDIR");
  if (dir == nullptr || *dir == '\0') dir = std::getenv("TMPDIR");
  if (dir == nullptr || *dir == '\0') dir = "/tmp";
  return std::string(dir) + "/racelab-" + std::to_string(geteuid()) + "/mariadb";
}

int CleanMariaDbOrphans(const std::string& base_dir) {
  int removed = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(base_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (PidFromRunName(name) < 0 || !entry.is_directory()) continue;
    const std::string run_dir = entry.path().string();
    if (!internal::OwnerGone(run_dir)) continue;
    // Its mariadbd (chdir'ed into data/) got SIGKILL with its owner, unless it was stopped.
    if (!internal::KillProcessesIn(run_dir + "/data", kKillTimeout)) continue;
    if (internal::RemoveTree(run_dir)) ++removed;
  }
  return removed;
}

Result<std::unique_ptr<EmbeddedMariaDb>> EmbeddedMariaDb::Start(const ServerOptions& options) {
  const Clock::time_point start = Clock::now();
  const std::string mariadbd =
      FindBinary(options.bindir, "mariadbd", {"/usr/sbin/mariadbd", "/usr/bin/mariadbd"});
  const std::string install_db =
      FindBinary(options.bindir, "mariadb-install-db", {"/usr/bin/mariadb-install-db"});
  if (mariadbd.empty() || install_db.empty() || access(mariadbd.c_str(), X_OK) != 0 ||
      access(install_db.c_str(), X_OK) != 0) {
    return Status::Internal(
        "MariaDB server binaries not found (mariadbd, mariadb-install-db): install the "
        "mariadb-server package (scripts/bootstrap), or give --dsn mariadb://… for a running server");
  }
  Result<std::string> version_text =
      internal::RunCapture({mariadbd, "--no-defaults", "--version"}, milliseconds(10000));
  if (!version_text.ok()) return version_text.status();
  const std::string version = ParseVersion(*version_text);
  if (version.empty()) return Status::Internal("cannot read the version of " + mariadbd);
  Result<internal::ServerUser> user = internal::ChooseServerUser();
  if (!user.ok()) return user.status();
  std::string base = options.base_dir.empty() ? DefaultMariaDbBaseDir() : options.base_dir;
  base = fs::absolute(base).lexically_normal().string();
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  if (base.size() + 32 > 107) {
    return Status::Usage(fmt::format("the socket path under {} would be longer than 107 bytes (a "
                                     "Unix socket limit): set RACELAB_TMPDIR to a shorter folder",
                                     base));
  }
  if (Status s = internal::PrepareBaseDir(base, *user); !s.ok()) return s;
  CleanMariaDbOrphans(base);

  std::unique_ptr<EmbeddedMariaDb> server(new EmbeddedMariaDb());
  server->version_ = version;
  Result<std::string> tmpl = EnsureTemplate(install_db, base, version, *user, &server->ran_install_);
  if (!tmpl.ok()) return tmpl.status();
  static std::atomic<int> counter{0};
  std::string run_dir;
  for (int attempt = 0; attempt < 100 && run_dir.empty(); ++attempt) {
    std::string candidate = fmt::format("{}/run-{}-{}", base, getpid(), counter++);
    if (!fs::exists(candidate) && internal::MakeOwnedDir(candidate, 0700, *user).ok())
      run_dir = candidate;
  }
  if (run_dir.empty()) return Status::Internal("cannot create a run folder under " + base);
  server->run_dir_ = run_dir;  // from here on the destructor removes it
  server->socket_ = run_dir + "/sock";
  server->log_path_ = run_dir + "/server.log";
  if (Status s = internal::WriteOwnerFile(run_dir); !s.ok()) return s;
  if (Status s = internal::CopyTreeAs(*tmpl, run_dir + "/data", *user); !s.ok()) return s;
  if (Status s = internal::MakeOwnedDir(run_dir + "/tmp", 0700, *user); !s.ok()) return s;

  internal::SpawnOptions spawn;
  spawn.argv = ServerArgs(run_dir);
  spawn.argv.insert(spawn.argv.begin(), mariadbd);
  spawn.output_path = run_dir + "/mariadbd.out";
  spawn.user = &*user;
  spawn.die_with_parent = true;
  Result<pid_t> pid = internal::Spawn(spawn);
  if (!pid.ok()) return pid.status();
  server->pid_ = *pid;
  if (Status s = server->WaitReady(options.ready_timeout_ms); !s.ok()) return s;
  server->start_time_ =
      std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
  return server;
}

Status EmbeddedMariaDb::WaitReady(int timeout_ms) {
  const Clock::time_point started = Clock::now();
  const Clock::time_point deadline = started + milliseconds(timeout_ms);
  ConnectTarget target;
  target.socket = socket_;
  target.user = "root";
  std::string last;
  while (Clock::now() < deadline) {
    if (std::optional<int> status = internal::ReapIfExited(pid_)) {
      pid_ = -1;
      return Status::Database(fmt::format("the embedded MariaDB server {} while starting:\n{}",
                                          internal::DescribeWaitStatus(*status),
                                          internal::TailOfFile(log_path_)));
    }
    if (access(socket_.c_str(), F_OK) == 0) {
      Result<std::unique_ptr<MariaConnection>> c = MariaConnection::Open(
          target, "racelab ready", std::min(deadline, Clock::now() + milliseconds(2000)), nullptr);
      if (c.ok()) {
        (*c)->Close();
        ready_time_ =
            std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started);
        return Status::Ok();
      }
      last = c.status().message();
    }
    std::this_thread::sleep_for(milliseconds(10));
  }
  return Status::Database(fmt::format(
      "the embedded MariaDB server did not accept connections within {} ms{}:\n{}", timeout_ms,
      last.empty() ? "" : " (" + last + ")", internal::TailOfFile(log_path_)));
}

EmbeddedMariaDb::~EmbeddedMariaDb() { Stop(); }

Status EmbeddedMariaDb::Stop() {
  bool gone = true;
  if (pid_ > 0) {
    kill(pid_, SIGTERM);  // MariaDB's normal shutdown (MariaDB docs "mariadbd Options", signals)
    if (!internal::WaitForExit(pid_, internal::ProcessStopped(pid_) ? milliseconds(0) : kStopGrace)) {
      gone = internal::KillAndReap(pid_, kKillTimeout);
    }
    pid_ = -1;
  }
  if (!run_dir_.empty()) {
    gone = internal::KillProcessesIn(run_dir_ + "/data", kKillTimeout) && gone;
    if (!internal::RemoveTree(run_dir_)) {
      return Status::Internal("cannot remove the embedded MariaDB run folder " + run_dir_);
    }
    run_dir_.clear();
  }
  return gone ? Status::Ok() : Status::Internal("the embedded MariaDB server would not stop");
}

}  // namespace racelab::mariadb
