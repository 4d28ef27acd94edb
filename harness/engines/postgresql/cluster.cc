// EmbeddedCluster: Start() wires the steps (binaries, orphans, template, run folder, postmaster,
// readiness); Stop() undoes them. The steps themselves live in pg_binaries, template, files,
// orphans and process.
#include "harness/engines/postgresql/cluster.h"

#include <libpq-fe.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "harness/engines/embedded/files.h"
#include "harness/engines/embedded/process.h"
#include "harness/engines/embedded/run_folders.h"
#include "harness/engines/postgresql/catalogs.h"
#include "harness/engines/postgresql/orphans.h"
#include "harness/engines/postgresql/pg_binaries.h"
#include "harness/engines/postgresql/template.h"

namespace racelab::pg {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using Settings = std::vector<std::pair<std::string, std::string>>;

constexpr milliseconds kFastShutdownTimeout(10000);  // SIGINT to exit, then SIGKILL
constexpr milliseconds kKillTimeout(5000);           // SIGKILL to reaped
constexpr milliseconds kPingInterval(10);
constexpr size_t kMaxSocketPath = 107;  // sizeof(sockaddr_un::sun_path) - 1

// Settings the server must not take from the caller: they would move it out of its run folder.
bool Reserved(const std::string& name) {
  for (const char* r : {"unix_socket_directories", "data_directory", "config_file", "hba_file",
                        "ident_file", "external_pid_file", "log_directory"}) {
    if (name == r) return true;
  }
  return false;
}

// Defaults first, then the caller's; a later value for the same name replaces the earlier one.
Result<Settings> MergeSettings(const Settings& extra) {
  Settings merged = {
      {"listen_addresses", ""},
      {"port", "5432"},
      {"fsync", "off"},
      {"synchronous_commit", "off"},
      {"full_page_writes", "off"},
      {"max_connections", "200"},
      // Every lock wait of 1 ms or more in the server's own record (docs/lock-waits.md):
      // the deadlock check runs after deadlock_timeout and, with log_lock_waits, logs
      // the wait and its end. Scenarios whose outcome depends on when deadlocks are
      // found set deadlock_timeout in their sessions' settings.
      {"log_lock_waits", "on"},
      {"deadlock_timeout", "1ms"},
      {"logging_collector", "on"},
      {"log_destination", "jsonlog"},
      {"log_filename", "server.log"},  // jsonlog goes to server.json beside it
      {"log_rotation_age", "0"},
      {"log_rotation_size", "0"},
      {"log_timezone", "UTC"},
      // Dynamic shared memory in files under data/pg_dynshmem, not /dev/shm: a
      // killed server's segments then go with its run folder.
      {"dynamic_shared_memory_type", "mmap"}};

  for (const auto& [raw_name, value] : extra) {
    std::string name = raw_name;
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    bool valid = !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) {
      return std::isalnum(c) || c == '_' || c == '.';
    });
    if (!valid) return Status::Usage("invalid server setting name '" + raw_name + "'");
    if (Reserved(name)) return Status::Usage("server setting '" + name + "' is set by racelab");
    auto same =
        std::find_if(merged.begin(), merged.end(), [&](auto& kv) { return kv.first == name; });
    if (same != merged.end()) {
      same->second = value;
    } else {
      merged.emplace_back(name, value);
    }
  }
  return merged;
}

std::string SettingValue(const Settings& settings, const std::string& name) {
  for (const auto& [n, v] : settings) {
    if (n == name) return v;
  }
  return "";
}

// A libpq conninfo value, quoted only when needed.
std::string ConninfoValue(const std::string& v) {
  if (!v.empty() && v.find_first_of(" '\\") == std::string::npos) return v;
  std::string quoted = "'";
  for (char c : v) {
    if (c == '\'' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "'";
}

// The server's socket <run_dir>/.s.PGSQL.<port> must fit in sockaddr_un. Errors: kUsage.
Status CheckSocketPath(const std::string& run_dir, const std::string& port) {
  const std::string socket = run_dir + "/.s.PGSQL." + port;
  if (socket.size() <= kMaxSocketPath) return Status::Ok();
  return Status::Usage("the server's socket path " + socket + " would be longer than " +
                       std::to_string(kMaxSocketPath) +
                       " bytes (a Unix socket limit): set RACELAB_TMPDIR to a shorter folder");
}

}  // namespace

std::string DefaultBaseDir() {
  return embedded::DefaultBaseDir("", embedded::MemoryTmpDir(kMinMemoryBaseFreeBytes));
}

std::vector<std::string> BaseDirsToClean() {
  std::vector<std::string> out{DefaultBaseDir()};
  for (const std::string& unused : UnusedBaseDirs()) out.push_back(unused);
  return out;
}

std::vector<std::string> UnusedBaseDirs() {
  std::string disk = embedded::DefaultBaseDir("");
  if (disk == DefaultBaseDir()) return {};
  return {disk};
}

Result<std::unique_ptr<EmbeddedCluster>> EmbeddedCluster::Start(const ClusterOptions& options) {
  const Clock::time_point start = Clock::now();
  Result<internal::PgBinaries> bins = internal::FindPgBinaries(options.pg_bindir);
  if (!bins.ok()) return bins.status();
  Result<embedded::ServerUser> user = embedded::ChooseServerUser();
  if (!user.ok()) return user.status();
  Result<Settings> settings = MergeSettings(options.settings);
  if (!settings.ok()) return settings.status();
  const std::string base =
      embedded::NormalizeBaseDir(options.base_dir.empty() ? DefaultBaseDir() : options.base_dir);
  const std::string port = SettingValue(*settings, "port");
  // Before any work, with room for a run number of up to 4 digits.
  if (Status s = CheckSocketPath(base + "/run-" + std::to_string(getpid()) + "-0000", port);
      !s.ok()) {
    return s;
  }
  if (Status s = embedded::PrepareBaseDir(base, *user); !s.ok()) return s;
  CleanOrphans(base);
  // Held shared until copied: `racelab clean` removes no template a run is copying.
  embedded::TemplateLock template_hold;
  Result<internal::TemplateDir> tmpl = internal::EnsureTemplate(*bins, base, *user, &template_hold);
  if (!tmpl.ok()) return tmpl.status();

  std::unique_ptr<EmbeddedCluster> cluster(new EmbeddedCluster());
  cluster->bindir_ = bins->bindir;
  cluster->ran_initdb_ = tmpl->ran_initdb;
  cluster->settings_ = *settings;
  Result<std::string> run_dir = embedded::CreateRunDir(
      base, *user, [&](const std::string& dir) { return CheckSocketPath(dir, port); });
  if (!run_dir.ok()) return run_dir.status();
  cluster->run_dir_ = *run_dir;  // from here on the destructor removes it
  const std::string data_dir = *run_dir + "/data";
  const std::string log_path = *run_dir + "/postgres.log";
  if (Status s = embedded::WriteOwnerFile(*run_dir); !s.ok()) return s;
  if (Status s = embedded::CopyTreeAs(tmpl->data_dir, data_dir, *user); !s.ok()) return s;
  template_hold.Release();

  embedded::SpawnOptions spawn;
  spawn.argv = {bins->postgres(),           "-D", data_dir, "-k", *run_dir, "-c",
                "log_directory=" + *run_dir};
  for (const auto& [name, value] : *settings) {
    spawn.argv.push_back("-c");
    spawn.argv.push_back(name + "=" + value);
  }
  spawn.output_path = log_path;
  spawn.user = &*user;
  spawn.die_with_parent = true;
  Result<pid_t> pid = embedded::Spawn(spawn);
  if (!pid.ok()) return pid.status();
  cluster->postmaster_pid_ = *pid;
  cluster->conninfo_ = "host=" + ConninfoValue(*run_dir) + " port=" + ConninfoValue(port) +
                       " user=racelab dbname=postgres";
  if (Status s = cluster->WaitReady(options.ready_timeout_ms); !s.ok()) return s;
  if (SettingValue(*settings, "logging_collector") == "on" &&
      SettingValue(*settings, "log_destination").find("jsonlog") != std::string::npos) {
    cluster->server_log_path_ = *run_dir + "/server.json";
  }
  if (Status s = internal::KeepCatalogsUntruncated(cluster->conninfo_); !s.ok()) return s;
  // postmaster.pid names the SysV segment once the server is ready: record it outside the run
  // folder, which Stop() may have to remove before the segment is gone.
  if (std::optional<internal::PostmasterPidFile> pm = internal::ReadPostmasterPid(data_dir)) {
    if (Status s = internal::WriteIpcRecord(*run_dir, *pm); !s.ok()) return s;
  }
  cluster->ready_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return cluster;
}

Status EmbeddedCluster::WaitReady(int timeout_ms) {
  const std::string log_path = run_dir_ + "/postgres.log";
  // libpq's smallest connect_timeout: a stopped (SIGSTOP) server must not hold the ping forever.
  const std::string ping_conninfo = conninfo_ + " connect_timeout=2";
  embedded::ReadyWait wait = embedded::WaitUntilReady(
      postmaster_pid_, Clock::now() + milliseconds(timeout_ms),
      [&] { return PQping(ping_conninfo.c_str()) == PQPING_OK; }, kPingInterval);
  if (wait.ready) return Status::Ok();
  if (wait.exit_status) {
    postmaster_pid_ = -1;
    return Status::Database(
        "the embedded PostgreSQL server " + embedded::DescribeWaitStatus(*wait.exit_status) +
        " before accepting connections; the end of its log:\n" + embedded::TailOfFile(log_path));
  }
  return Status::Database("the embedded PostgreSQL server did not accept connections within " +
                          std::to_string(timeout_ms) + " ms; the end of its log:\n" +
                          embedded::TailOfFile(log_path));
}

EmbeddedCluster::~EmbeddedCluster() { Stop(); }

Status EmbeddedCluster::Stop() {
  if (stopped_) return Status::Ok();
  stopped_ = true;
  Status result;
  std::optional<internal::PostmasterPidFile> pm;
  if (postmaster_pid_ > 0) {
    const pid_t pid = postmaster_pid_;
    postmaster_pid_ = -1;
    const std::string data_dir = run_dir_ + "/data";
    pm = internal::ReadPostmasterPid(data_dir);  // before a clean shutdown removes it
    if (pm && pm->pid != pid) pm.reset();
    if (!embedded::StopServer(pid, data_dir, SIGINT, kFastShutdownTimeout, kKillTimeout)) {
      result = Status::Internal("the embedded PostgreSQL server (pid " + std::to_string(pid) +
                                ") or one of its processes did not exit after SIGKILL");
    }
    // A clean shutdown removed the segment; a killed server (by racelab or anyone) did not.
    if (pm) internal::RemoveLeftoverShm(*pm);
  }
  if (!run_dir_.empty() && !embedded::RemoveTree(run_dir_) && result.ok()) {
    result = Status::Internal("cannot remove " + run_dir_);
  }
  if (!run_dir_.empty() && (!pm || internal::ShmGone(*pm))) {
    std::error_code ec;
    fs::remove(internal::IpcRecordPath(run_dir_), ec);
  }
  return result;
}

}  // namespace racelab::pg
