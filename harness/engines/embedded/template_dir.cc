#include "harness/engines/embedded/template_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <thread>
#include <vector>

#include "harness/engines/embedded/files.h"

namespace racelab::embedded {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// An exclusive flock, released on destruction (or when the process dies).
class FileLock {
 public:
  FileLock() = default;
  ~FileLock() {
    if (fd_ >= 0) close(fd_);  // closing the descriptor releases the flock
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  // Waits (polling every 20 ms) until the lock is ours, at most `timeout`. Errors: kDatabase on
  // timeout, kInternal when the lock file cannot be opened.
  Status Acquire(const std::string& path, std::chrono::milliseconds timeout) {
    fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) return Status::Internal("cannot open " + path + ": " + std::strerror(errno));
    const Clock::time_point deadline = Clock::now() + timeout;
    while (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK && errno != EINTR) {
        return Status::Internal("cannot lock " + path + ": " + std::strerror(errno));
      }
      if (Clock::now() >= deadline) {
        return Status::Database("another racelab process held " + path + " for more than " +
                                std::to_string(timeout.count() / 1000) +
                                " s while creating the template");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return Status::Ok();
  }

 private:
  int fd_ = -1;
};

// Removes <template>.tmp-* folders. REQUIRES: the template lock is held (only its holder makes
// them).
void RemoveStaleTemporaries(const std::string& path) {
  const fs::path p(path);
  const std::string prefix = p.filename().string() + ".tmp-";
  std::error_code ec;
  std::vector<std::string> stale;
  fs::directory_iterator it(p.parent_path(), ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().rfind(prefix, 0) == 0) stale.push_back(it->path().string());
  }
  for (const std::string& dir : stale) RemoveTree(dir);
}

}  // namespace

Result<TemplateDir> EnsureTemplate(const TemplateMaker& maker, const ServerUser& user) {
  const std::string& path = maker.path;
  if (maker.complete(path)) return TemplateDir{path, false};

  FileLock lock;
  if (Status s = lock.Acquire(path + ".lock", maker.lock_timeout); !s.ok()) return s;
  if (maker.complete(path)) return TemplateDir{path, false};  // made while we waited
  RemoveTree(path);  // a broken one; the rename below needs the name free
  RemoveStaleTemporaries(path);

  static std::atomic<unsigned> counter{0};
  const std::string tmp =
      path + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(counter.fetch_add(1));
  Status s = MakeOwnedDir(tmp, 0711, ServerUser{});  // ours; the server user may only pass through
  if (s.ok()) s = MakeOwnedDir(tmp + "/data", 0700, user);
  if (s.ok()) s = maker.make(tmp + "/data", tmp);
  if (s.ok() && std::rename((tmp + "/data").c_str(), path.c_str()) != 0) {
    s = Status::Internal("cannot rename " + tmp + "/data to " + path + ": " + std::strerror(errno));
  }
  RemoveTree(tmp);
  if (!s.ok()) return s;
  return TemplateDir{path, true};
}

}  // namespace racelab::embedded
