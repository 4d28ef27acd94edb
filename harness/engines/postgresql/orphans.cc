// CleanOrphans() and the run-folder bookkeeping it relies on (orphans.h).
#include "harness/engines/postgresql/orphans.h"

#include <signal.h>
#include <sys/shm.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "harness/engines/postgresql/cluster.h"
#include "harness/engines/postgresql/files.h"
#include "harness/engines/postgresql/process.h"

namespace racelab::internal {
namespace {

namespace fs = std::filesystem;
// From SIGKILL to gone, for an orphan postmaster.
constexpr std::chrono::milliseconds kKillTimeout(5000);

// "run-<pid>-<n>" -> pid, or -1.
pid_t PidFromRunName(const std::string& name) {
  if (name.rfind("run-", 0) != 0) return -1;
  char* end = nullptr;
  long pid = std::strtol(name.c_str() + 4, &end, 10);
  return (end != nullptr && *end == '-' && pid > 0) ? static_cast<pid_t>(pid) : -1;
}

// Stops the postmaster recorded in <run_dir>/data/postmaster.pid if it still runs and really is
// that folder's server (its command line names the folder). Returns false if it would not go away.
bool StopLeftoverPostmaster(const std::string& run_dir) {
  std::optional<PostmasterPidFile> pm = ReadPostmasterPid(run_dir + "/data");
  if (!pm) return true;
  if (ProcessAlive(pm->pid) && ProcessCmdline(pm->pid).find(run_dir + "/") != std::string::npos) {
    kill(pm->pid, SIGKILL);
    if (!WaitUntilGone(pm->pid, kKillTimeout)) return false;
  }
  // Backends outlive a killed postmaster for a moment, and forever if they are stopped.
  if (!KillProcessesIn(run_dir + "/data", kKillTimeout)) return false;
  RemoveLeftoverShm(*pm);
  return true;
}

}  // namespace

Status WriteOwnerFile(const std::string& run_dir) {
  std::optional<unsigned long long> start = ProcessStartTime(getpid());
  return WriteFileAtomic(run_dir + "/owner.pid", std::to_string(getpid()) + "\n" +
                                                     (start ? std::to_string(*start) : "") + "\n");
}

bool OwnerGone(const std::string& run_dir) {
  std::istringstream in(ReadSmallFile(run_dir + "/owner.pid"));
  long long pid = -1;
  unsigned long long start = 0;
  if (!(in >> pid)) pid = PidFromRunName(fs::path(run_dir).filename().string());
  bool has_start = static_cast<bool>(in >> start);
  if (pid <= 0) return false;
  if (!ProcessAlive(static_cast<pid_t>(pid))) return true;
  std::optional<unsigned long long> now = ProcessStartTime(static_cast<pid_t>(pid));
  return has_start && now.has_value() && *now != start;  // the pid now names another process
}

std::optional<PostmasterPidFile> ReadPostmasterPid(const std::string& data_dir) {
  std::istringstream in(ReadSmallFile(data_dir + "/postmaster.pid"));
  std::string line;
  PostmasterPidFile pm;
  for (int n = 1; std::getline(in, line); ++n) {
    if (n == 1) pm.pid = static_cast<pid_t>(std::atol(line.c_str()));
    if (n == 7) {
      std::istringstream fields(line);
      long long key = 0, id = -1;
      if (fields >> key >> id) pm.shm_id = static_cast<int>(id);
    }
  }
  if (pm.pid <= 0) return std::nullopt;
  return pm;
}

void RemoveLeftoverShm(const PostmasterPidFile& pm) {
  if (pm.shm_id < 0) return;
  shmid_ds ds{};
  if (shmctl(pm.shm_id, IPC_STAT, &ds) == 0 && ds.shm_cpid == pm.pid) {
    shmctl(pm.shm_id, IPC_RMID, nullptr);  // freed once its last attached process has exited
  }
}

bool ShmGone(const PostmasterPidFile& pm) {
  if (pm.shm_id < 0) return true;
  shmid_ds ds{};
  if (shmctl(pm.shm_id, IPC_STAT, &ds) != 0) return errno == EINVAL || errno == EIDRM;
  return ds.shm_cpid != pm.pid || (ds.shm_perm.mode & SHM_DEST) != 0;
}

std::string IpcRecordPath(const std::string& run_dir) {
  fs::path p(run_dir);
  return (p.parent_path() / ("ipc-" + p.filename().string())).string();
}

Status WriteIpcRecord(const std::string& run_dir, const PostmasterPidFile& pm) {
  return WriteFileAtomic(IpcRecordPath(run_dir),
                         std::to_string(pm.pid) + " " + std::to_string(pm.shm_id) + "\n");
}

int SweepIpcRecords(const std::string& base_dir) {
  int removed = 0;
  std::error_code ec;
  fs::directory_iterator it(base_dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("ipc-", 0) != 0 || name.find(".tmp") != std::string::npos) continue;
    const std::string run_dir = (fs::path(base_dir) / name.substr(4)).string();
    std::error_code exists_ec;
    if (fs::exists(run_dir, exists_ec) || exists_ec) continue;  // its run (or CleanOrphans) owns it
    std::istringstream in(ReadSmallFile(it->path().string()));
    PostmasterPidFile pm;
    long long pid = -1, id = -1;
    if (in >> pid >> id) {
      pm.pid = static_cast<pid_t>(pid);
      pm.shm_id = static_cast<int>(id);
      if (!KillProcessesIn(run_dir + "/data", kKillTimeout)) continue;
      RemoveLeftoverShm(pm);
      if (!ShmGone(pm)) continue;
    }
    std::error_code rm_ec;
    if (fs::remove(it->path(), rm_ec)) ++removed;
  }
  return removed;
}

}  // namespace racelab::internal

namespace racelab::pg {

int CleanOrphans(const std::string& base_dir) {
  namespace fs = std::filesystem;
  int removed = 0;
  std::error_code ec;
  fs::directory_iterator it(base_dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {  // error_code: folders may vanish concurrently
    const std::string name = it->path().filename().string();
    std::error_code entry_ec;
    if (name.rfind("run-", 0) != 0 || !it->is_directory(entry_ec)) continue;
    const std::string run_dir = it->path().string();
    if (!internal::OwnerGone(run_dir)) continue;
    if (!internal::StopLeftoverPostmaster(run_dir)) continue;  // still alive: try next time
    if (internal::RemoveTree(run_dir)) ++removed;
  }
  internal::SweepIpcRecords(base_dir);
  return removed;
}

}  // namespace racelab::pg
