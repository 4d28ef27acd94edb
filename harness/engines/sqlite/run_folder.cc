#include "harness/engines/sqlite/run_folder.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <system_error>

namespace racelab::sqlite {
namespace fs = std::filesystem;
namespace {

constexpr const char* kLockName = "run.lock";
constexpr auto kCreationGrace = std::chrono::seconds(60);

// Opens `dir`/run.lock and takes the exclusive lock without waiting; -1 when it cannot.
int TryLock(const std::string& dir, bool create) {
  std::string path = dir + "/" + kLockName;
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
  if (fd < 0) return -1;
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

std::string TempBase() {
  for (const char* var : {"RACELAB_TMPDIR", "TMPDIR"}) {
    const char* t = std::getenv(var);
    if (t != nullptr && *t != '\0') return t;
  }
  return "/tmp";
}

const std::string& SqliteRunId() {
  static const std::string id = [] {
    std::random_device rd;
    uint64_t v = (static_cast<uint64_t>(rd()) << 32) ^ rd();
    return fmt::format("{:016x}", v);
  }();
  return id;
}

RunFolder::~RunFolder() { Remove(); }

Status RunFolder::Create(const std::string& base) {
  if (created()) return Status::Ok();
  path_ = fmt::format("{}/{}{}-{}", base, kRunFolderPrefix, ::getpid(), SqliteRunId());
  if (::mkdir(path_.c_str(), 0700) != 0 && errno != EEXIST) {
    return Status::Internal(
        fmt::format("cannot create the SQLite run folder {}: {}", path_, std::strerror(errno)));
  }
  lock_fd_ = TryLock(path_, /*create=*/true);
  if (lock_fd_ < 0) {
    return Status::Internal(
        fmt::format("cannot lock {}/{}: {}", path_, kLockName, std::strerror(errno)));
  }
  return Status::Ok();
}

Status RunFolder::Remove() {
  if (path_.empty()) return Status::Ok();
  std::error_code ec;
  fs::remove_all(path_, ec);
  if (lock_fd_ >= 0)
    ::close(lock_fd_);  // after the removal: the folder is never dead while it exists
  lock_fd_ = -1;
  std::string path = path_;
  path_.clear();
  if (ec) return Status::Internal(fmt::format("cannot remove {}: {}", path, ec.message()));
  return Status::Ok();
}

std::vector<RunFolderEntry> ListRunFolders(const std::string& base, const std::string& own) {
  std::vector<RunFolderEntry> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(base, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind(kRunFolderPrefix, 0) != 0) continue;
    std::error_code dec;
    if (!e.is_directory(dec) || e.is_symlink(dec)) continue;
    RunFolderEntry entry{e.path().string(), name, true};
    if (entry.path == own) continue;
    {
      int fd = TryLock(entry.path, /*create=*/false);
      if (fd >= 0) {
        entry.live = false;
        ::close(fd);
      } else if (!fs::exists(entry.path + "/" + kLockName, dec)) {
        // Being created — or created and killed before its lock file: judged by age.
        struct stat st {};
        if (::stat(entry.path.c_str(), &st) == 0) {
          auto age = std::chrono::system_clock::now() -
                     std::chrono::system_clock::from_time_t(st.st_mtime);
          entry.live = age < kCreationGrace;
        }
      }
    }
    out.push_back(std::move(entry));
  }
  return out;
}

bool RemoveIfDead(const std::string& path) {
  int fd = TryLock(path, /*create=*/false);
  if (fd < 0) {
    std::error_code ec;
    if (fs::exists(path + "/" + kLockName, ec)) return false;  // live
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return false;
    auto age =
        std::chrono::system_clock::now() - std::chrono::system_clock::from_time_t(st.st_mtime);
    if (age < kCreationGrace) return false;
  }
  std::error_code ec;
  fs::remove_all(path, ec);  // while holding the lock: no run can be using it
  if (fd >= 0) ::close(fd);
  return !ec;
}

}  // namespace racelab::sqlite
