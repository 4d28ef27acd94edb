#include "harness/engines/embedded/run_folders.h"

#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>

#include "harness/engines/embedded/files.h"

namespace racelab::embedded {
namespace {

namespace fs = std::filesystem;

// "run-<pid>-<n>" -> pid, or -1.
pid_t PidFromRunName(const std::string& name) {
  if (name.rfind("run-", 0) != 0) return -1;
  char* end = nullptr;
  long pid = std::strtol(name.c_str() + 4, &end, 10);
  return (end != nullptr && *end == '-' && pid > 0) ? static_cast<pid_t>(pid) : -1;
}

}  // namespace

std::string DefaultBaseDir(const std::string& sub, const std::string& preferred) {
  const char* dir = std::getenv("RACELAB_TMPDIR");
  if (dir == nullptr || *dir == '\0') dir = std::getenv("TMPDIR");
  if ((dir == nullptr || *dir == '\0') && !preferred.empty()) dir = preferred.c_str();
  if (dir == nullptr || *dir == '\0') dir = "/tmp";
  std::string base = std::string(dir) + "/racelab-" + std::to_string(geteuid());
  return sub.empty() ? base : base + "/" + sub;
}

Status CheckTmpdirVariable() {
  const char* dir = std::getenv("RACELAB_TMPDIR");
  if (dir == nullptr || *dir == '\0') return Status::Ok();
  const std::string path = dir;
  if (path[0] != '/') {
    return Status::Usage(
        "RACELAB_TMPDIR=" + path +
        ": not an absolute path (racelab keeps its servers' files there; name a folder "
        "that exists, e.g. RACELAB_TMPDIR=/tmp)");
  }
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Status::Usage(
        "RACELAB_TMPDIR=" + path +
        (stat(path.c_str(), &st) != 0 ? ": no such folder" : ": not a folder") +
        " (racelab makes its own folder inside it, never the folders above: create it, or "
        "fix the path)");
  }
  return Status::Ok();
}

std::string MemoryTmpDir(unsigned long long min_free_bytes) {
  constexpr const char* kShm = "/dev/shm";
  struct statfs fs_info {};
  if (statfs(kShm, &fs_info) != 0 || fs_info.f_type != TMPFS_MAGIC) return "";
  if (access(kShm, W_OK | X_OK) != 0) return "";
  const unsigned long long free_bytes = static_cast<unsigned long long>(fs_info.f_bavail) *
                                        static_cast<unsigned long long>(fs_info.f_bsize);
  return free_bytes >= min_free_bytes ? kShm : "";
}

std::string NormalizeBaseDir(const std::string& dir) {
  std::string base = fs::absolute(dir).lexically_normal().string();
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  return base;
}

Result<std::string> CreateRunDir(const std::string& base_dir, const ServerUser& user,
                                 const std::function<Status(const std::string&)>& check) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 1000; ++attempt) {
    std::string dir =
        base_dir + "/run-" + std::to_string(getpid()) + "-" + std::to_string(counter.fetch_add(1));
    if (check) {
      if (Status s = check(dir); !s.ok()) return s;
    }
    std::error_code ec;
    // The counter is ours, the pid may have been someone else's.
    if (fs::exists(fs::symlink_status(dir, ec))) continue;
    if (Status s = MakeOwnedDir(dir, 0700, user); !s.ok()) return s;
    return dir;
  }
  return Status::Internal("cannot find a free run folder name under " + base_dir);
}

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

int CleanRunFolders(const std::string& base_dir,
                    const std::function<bool(const std::string& run_dir)>& stop_server) {
  int removed = 0;
  std::error_code ec;
  fs::directory_iterator it(base_dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {  // error_code: folders may vanish concurrently
    const std::string name = it->path().filename().string();
    std::error_code entry_ec;
    if (name.rfind("run-", 0) != 0 || !it->is_directory(entry_ec)) continue;
    const std::string run_dir = it->path().string();
    if (!OwnerGone(run_dir)) continue;
    if (!stop_server(run_dir)) continue;  // still alive: try next time
    if (RemoveTree(run_dir)) ++removed;
  }
  return removed;
}

bool HasLiveRunFolder(const std::string& base_dir) {
  std::error_code ec;
  fs::directory_iterator it(base_dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code entry_ec;
    if (name.rfind("run-", 0) == 0 && it->is_directory(entry_ec) && !OwnerGone(it->path().string()))
      return true;
  }
  return false;
}

std::vector<std::string> DeadRunFolders(const std::string& base_dir) {
  std::vector<std::string> dead;
  std::error_code ec;
  fs::directory_iterator it(base_dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code entry_ec;
    if (name.rfind("run-", 0) != 0 || !it->is_directory(entry_ec)) continue;
    if (OwnerGone(it->path().string())) dead.push_back(it->path().string());
  }
  std::sort(dead.begin(), dead.end());
  return dead;
}

}  // namespace racelab::embedded
