#include "harness/engines/mariadb/server.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>

#include "harness/engines/embedded/files.h"
#include "harness/engines/embedded/process.h"
#include "harness/engines/embedded/run_folders.h"
#include "harness/engines/embedded/template_dir.h"
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
  return {"--no-defaults", "--datadir=" + run_dir + "/data", "--socket=" + run_dir + "/sock",
          "--pid-file=" + run_dir + "/mariadbd.pid", "--log-error=" + run_dir + "/server.log",
          "--tmpdir=" + run_dir + "/tmp", "--skip-networking", "--skip-name-resolve",
          "--skip-log-bin", "--sync-binlog=0", "--innodb-flush-log-at-trx-commit=0",
          "--innodb-doublewrite=0", "--innodb-buffer-pool-size=32M", "--innodb-log-file-size=8M",
          "--performance-schema=OFF",
          // Every transaction's locks in SHOW ENGINE INNODB STATUS: step mode's held-lock view
          // (innodb_locks.h).
          "--innodb-status-output-locks=ON", "--character-set-server=utf8mb4",
          "--collation-server=utf8mb4_general_ci", "--max-connections=1100"};
}

std::string FindBinary(const std::string& bindir, const std::string& name,
                       const std::vector<std::string>& candidates) {
  if (!bindir.empty()) return bindir + "/" + name;
  for (const std::string& c : candidates)
    if (access(c.c_str(), X_OK) == 0) return c;
  const std::string dir = embedded::FindOnPath(name);
  return dir.empty() ? "" : dir + "/" + name;
}

// "mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for …" -> "10.11.19-MariaDB-0+deb12u1".
std::string ParseVersion(const std::string& text) {
  size_t at = text.find("Ver ");
  if (at == std::string::npos) return "";
  at += 4;
  size_t end = text.find(' ', at);
  return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// Runs mariadb-install-db into `data_dir` as `user` (its bootstrap server's temporary files in
// `tmp_dir`), its output in `log`.
Status RunInstallDb(const std::string& install_db, const std::string& data_dir,
                    const std::string& tmp_dir, const std::string& log,
                    const embedded::ServerUser& user) {
  return embedded::RunToCompletion(
      {install_db, "--no-defaults", "--datadir=" + data_dir, "--tmpdir=" + tmp_dir,
       "--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve",
       "--innodb-log-file-size=8M"},
      log, user, kInstallTimeout, "mariadb-install-db");
}

// <base>/template-<version>-data, made by mariadb-install-db as `user` when missing.
Result<embedded::TemplateDir> EnsureTemplate(const std::string& install_db, const std::string& base,
                                             const std::string& version,
                                             const embedded::ServerUser& user) {
  embedded::TemplateMaker maker;
  maker.path = base + "/template-" + version + "-data";
  maker.complete = [](const std::string& data_dir) {
    std::error_code ec;
    return fs::exists(data_dir + "/mysql", ec);
  };
  maker.make = [&](const std::string& data_dir, const std::string& work_dir) {
    // A tmpdir of its own: two installs sharing /tmp (two bases, e.g. parallel tests) broke each
    // other — one's bootstrap lost its temporary table file ("Could not remove temporary table
    // '/tmp/#sql-temptable-…', error: 2", then "ERROR: 1051 Unknown table 'mysql.tmp_user_sys'"),
    // 2 of 16 runs on a loaded machine; 0 of 24 with this.
    if (Status s = embedded::MakeOwnedDir(work_dir + "/tmp", 0700, user); !s.ok()) return s;
    return RunInstallDb(install_db, data_dir, work_dir + "/tmp", work_dir + "/install.log", user);
  };
  maker.lock_timeout = kInstallTimeout;
  return embedded::EnsureTemplate(maker, user);
}

// Ends what is left of an orphan run folder's server: its mariadbd (chdir'ed into data/) got
// SIGKILL with its owner, unless it was stopped.
bool KillLeftoverServer(const std::string& run_dir) {
  return embedded::KillProcessesIn(run_dir + "/data", kKillTimeout);
}

}  // namespace

std::string DefaultMariaDbBaseDir() { return embedded::DefaultBaseDir("mariadb"); }

std::vector<std::string> ListMariaDbOrphans(const std::string& base_dir) {
  return embedded::DeadRunFolders(base_dir);
}

int CleanMariaDbOrphans(const std::string& base_dir) {
  return embedded::CleanRunFolders(base_dir, KillLeftoverServer);
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
        "mariadb-server package (scripts/bootstrap), or give --dsn mariadb://… for a running "
        "server");
  }
  Result<std::string> version_text =
      embedded::RunCapture({mariadbd, "--no-defaults", "--version"}, milliseconds(10000));
  if (!version_text.ok()) return version_text.status();
  const std::string version = ParseVersion(*version_text);
  if (version.empty()) return Status::Internal("cannot read the version of " + mariadbd);
  Result<embedded::ServerUser> user = embedded::ChooseServerUser();
  if (!user.ok()) return user.status();
  const std::string base = embedded::NormalizeBaseDir(
      options.base_dir.empty() ? DefaultMariaDbBaseDir() : options.base_dir);
  if (base.size() + 32 > 107) {
    return Status::Usage(
        fmt::format("the socket path under {} would be longer than 107 bytes (a "
                    "Unix socket limit): set RACELAB_TMPDIR to a shorter folder",
                    base));
  }
  if (Status s = embedded::PrepareBaseDir(base, *user); !s.ok()) return s;
  CleanMariaDbOrphans(base);

  std::unique_ptr<EmbeddedMariaDb> server(new EmbeddedMariaDb());
  server->version_ = version;
  Result<embedded::TemplateDir> tmpl = EnsureTemplate(install_db, base, version, *user);
  if (!tmpl.ok()) return tmpl.status();
  server->ran_install_ = tmpl->made;
  Result<std::string> run_dir = embedded::CreateRunDir(base, *user);
  if (!run_dir.ok()) return run_dir.status();
  server->run_dir_ = *run_dir;  // from here on the destructor removes it
  server->socket_ = *run_dir + "/sock";
  server->log_path_ = *run_dir + "/server.log";
  if (Status s = embedded::WriteOwnerFile(*run_dir); !s.ok()) return s;
  if (Status s = embedded::CopyTreeAs(tmpl->data_dir, *run_dir + "/data", *user); !s.ok()) return s;
  if (Status s = embedded::MakeOwnedDir(*run_dir + "/tmp", 0700, *user); !s.ok()) return s;

  embedded::SpawnOptions spawn;
  spawn.argv = ServerArgs(*run_dir);
  spawn.argv.insert(spawn.argv.begin(), mariadbd);
  spawn.output_path = *run_dir + "/mariadbd.out";
  spawn.user = &*user;
  spawn.die_with_parent = true;
  Result<pid_t> pid = embedded::Spawn(spawn);
  if (!pid.ok()) return pid.status();
  server->pid_ = *pid;
  if (Status s = server->WaitReady(options.ready_timeout_ms); !s.ok()) return s;
  server->start_time_ = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
  return server;
}

Status EmbeddedMariaDb::WaitReady(int timeout_ms) {
  const Clock::time_point started = Clock::now();
  const Clock::time_point deadline = started + milliseconds(timeout_ms);
  ConnectTarget target;
  target.socket = socket_;
  target.user = "root";
  std::string last;
  auto accepts = [&] {
    if (access(socket_.c_str(), F_OK) != 0) return false;
    Result<std::unique_ptr<MariaConnection>> c = MariaConnection::Open(
        target, "racelab ready", std::min(deadline, Clock::now() + milliseconds(2000)), nullptr);
    if (!c.ok()) {
      last = c.status().message();
      return false;
    }
    (*c)->Close();
    return true;
  };
  embedded::ReadyWait wait = embedded::WaitUntilReady(pid_, deadline, accepts, milliseconds(10));
  if (wait.ready) {
    ready_time_ = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started);
    return Status::Ok();
  }
  if (wait.exit_status) {
    pid_ = -1;
    return Status::Database(fmt::format("the embedded MariaDB server {} while starting:\n{}",
                                        embedded::DescribeWaitStatus(*wait.exit_status),
                                        embedded::TailOfFile(log_path_)));
  }
  return Status::Database(fmt::format(
      "the embedded MariaDB server did not accept connections within {} ms{}:\n{}", timeout_ms,
      last.empty() ? "" : " (" + last + ")", embedded::TailOfFile(log_path_)));
}

EmbeddedMariaDb::~EmbeddedMariaDb() { Stop(); }

Status EmbeddedMariaDb::Stop() {
  bool gone = true;
  if (pid_ > 0) {
    // SIGTERM: MariaDB's normal shutdown (MariaDB docs "mariadbd Options", signals).
    gone = embedded::StopServer(pid_, run_dir_ + "/data", SIGTERM, kStopGrace, kKillTimeout);
    pid_ = -1;
  } else if (!run_dir_.empty()) {
    gone = embedded::KillProcessesIn(run_dir_ + "/data", kKillTimeout);
  }
  if (!run_dir_.empty()) {
    if (!embedded::RemoveTree(run_dir_)) {
      return Status::Internal("cannot remove the embedded MariaDB run folder " + run_dir_);
    }
    run_dir_.clear();
  }
  return gone ? Status::Ok() : Status::Internal("the embedded MariaDB server would not stop");
}

}  // namespace racelab::mariadb
