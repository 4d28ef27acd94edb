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

// EnsureTemplate without a hold.
Result<TemplateDir> EnsureUnheld(const TemplateMaker& maker, const ServerUser& user) {
  const std::string& path = maker.path;
  if (maker.complete(path)) return TemplateDir{path, false};

  TemplateLock lock;
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

}  // namespace

Status TemplateLock::Acquire(const std::string& lock_path, std::chrono::milliseconds timeout,
                             bool shared) {
  Release();
  fd_ = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) return Status::Internal("cannot open " + lock_path + ": " + std::strerror(errno));
  const Clock::time_point deadline = Clock::now() + timeout;
  while (flock(fd_, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      return Status::Internal("cannot lock " + lock_path + ": " + std::strerror(errno));
    }
    if (Clock::now() >= deadline) {
      return Status::Database("another racelab process held " + lock_path + " for more than " +
                              std::to_string(timeout.count() / 1000) + " s while " +
                              (shared ? "creating or removing" : "creating") + " the template");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return Status::Ok();
}

bool TemplateLock::TryExclusive(const std::string& lock_path) {
  Release();
  fd_ = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ >= 0 && flock(fd_, LOCK_EX | LOCK_NB) == 0) return true;
  Release();
  return false;
}

void TemplateLock::Release() {
  if (fd_ >= 0) close(fd_);  // closing the descriptor releases the flock
  fd_ = -1;
}

Result<TemplateDir> EnsureTemplate(const TemplateMaker& maker, const ServerUser& user,
                                   TemplateLock* hold) {
  if (hold == nullptr) return EnsureUnheld(maker, user);
  // Made (or found), then held shared; removed by `racelab clean` in between: made again.
  for (int attempt = 0; attempt < 3; ++attempt) {
    Result<TemplateDir> made = EnsureUnheld(maker, user);
    if (!made.ok()) return made;
    if (Status s = hold->Acquire(maker.path + ".lock", maker.lock_timeout, /*shared=*/true);
        !s.ok())
      return s;
    if (maker.complete(maker.path)) return made;
    hold->Release();
  }
  return Status::Internal(maker.path +
                          " was removed three times while this run was about to copy it");
}

bool RemoveTemplateUnlessHeld(const std::string& path) {
  TemplateLock lock;
  if (!lock.TryExclusive(path + ".lock")) return false;
  const std::string doomed = path + ".tmp-clean-" + std::to_string(getpid());
  if (std::rename(path.c_str(), doomed.c_str()) != 0) return false;
  RemoveStaleTemporaries(path);  // the renamed one, and any a killed maker left
  return true;
}

bool TemplateFree(const std::string& path) {
  TemplateLock lock;
  return lock.TryExclusive(path + ".lock");
}

}  // namespace racelab::embedded
