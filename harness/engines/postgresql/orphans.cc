// CleanOrphans() and what a killed postmaster leaves behind (orphans.h).
#include "harness/engines/postgresql/orphans.h"

#include <signal.h>
#include <sys/shm.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "harness/engines/embedded/files.h"
#include "harness/engines/embedded/process.h"
#include "harness/engines/embedded/run_folders.h"
#include "harness/engines/postgresql/cluster.h"
#include "harness/engines/postgresql/template.h"

namespace racelab::internal {
namespace {

namespace fs = std::filesystem;
// From SIGKILL to gone, for an orphan postmaster.
constexpr std::chrono::milliseconds kKillTimeout(5000);

// Stops the postmaster recorded in <run_dir>/data/postmaster.pid if it still runs and really is
// that folder's server (its command line names the folder). Returns false if it would not go away.
bool StopLeftoverPostmaster(const std::string& run_dir) {
  std::optional<PostmasterPidFile> pm = ReadPostmasterPid(run_dir + "/data");
  if (!pm) return true;
  if (embedded::ProcessAlive(pm->pid) &&
      embedded::ProcessCmdline(pm->pid).find(run_dir + "/") != std::string::npos) {
    kill(pm->pid, SIGKILL);
    if (!embedded::WaitUntilGone(pm->pid, kKillTimeout)) return false;
  }
  // Backends outlive a killed postmaster for a moment, and forever if they are stopped.
  if (!embedded::KillProcessesIn(run_dir + "/data", kKillTimeout)) return false;
  RemoveLeftoverShm(*pm);
  return true;
}

}  // namespace

std::optional<PostmasterPidFile> ReadPostmasterPid(const std::string& data_dir) {
  std::istringstream in(embedded::ReadSmallFile(data_dir + "/postmaster.pid"));
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
  return embedded::WriteFileAtomic(IpcRecordPath(run_dir),
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
    std::istringstream in(embedded::ReadSmallFile(it->path().string()));
    PostmasterPidFile pm;
    long long pid = -1, id = -1;
    if (in >> pid >> id) {
      pm.pid = static_cast<pid_t>(pid);
      pm.shm_id = static_cast<int>(id);
      if (!embedded::KillProcessesIn(run_dir + "/data", kKillTimeout)) continue;
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

std::vector<std::string> ListOrphans(const std::string& base_dir) {
  return embedded::DeadRunFolders(base_dir);
}

std::vector<std::string> ListObsoleteTemplates(const std::string& base_dir) {
  return internal::ListObsoleteTemplates(base_dir);
}
int CleanObsoleteTemplates(const std::string& base_dir) {
  return internal::CleanObsoleteTemplates(base_dir);
}
std::vector<std::string> ListUnusedTemplates(const std::string& base_dir) {
  return internal::ListUnusedTemplates(base_dir);
}
int CleanUnusedTemplates(const std::string& base_dir) {
  return internal::CleanUnusedTemplates(base_dir);
}

int CleanOrphans(const std::string& base_dir) {
  int removed = embedded::CleanRunFolders(base_dir, internal::StopLeftoverPostmaster);
  internal::SweepIpcRecords(base_dir);
  return removed;
}

}  // namespace racelab::pg
