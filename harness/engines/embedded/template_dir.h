// The cached template of an embedded server's data folder (PostgreSQL: initdb's output; MariaDB:
// mariadb-install-db's): made once per machine, base folder and server version, then copied for
// each run. Shared by harness/engines/postgresql and harness/engines/mariadb.
//
// Concurrency: several racelab processes (ctest runs test binaries in parallel) and threads may ask
// at the same time. One of them holds an flock on <path>.lock (polled, with a deadline) and makes
// the template in <path>.tmp-<pid>-<n>/data, then renames it to <path>: nobody ever sees a
// half-made template. Leftover .tmp-* folders of a killed racelab are removed by the next lock
// holder. A run copying the template holds the same lock shared (EnsureTemplate's `hold`), and
// `racelab clean` removes a template only when it gets the lock exclusively without waiting
// (RemoveTemplateUnlessHeld): a template being made or copied is never removed.
// Thread-safety: safe to call concurrently from threads and processes.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "harness/engines/embedded/process.h"
#include "harness/model/status.h"

namespace racelab::embedded {

// An flock on a template's <path>.lock, released by Release(), on destruction, or when the process
// dies.
class TemplateLock {
 public:
  TemplateLock() = default;
  ~TemplateLock() { Release(); }
  TemplateLock(const TemplateLock&) = delete;
  TemplateLock& operator=(const TemplateLock&) = delete;

  // Waits (polling every 20 ms) until the lock is ours — exclusive, or `shared` with other holders
  // — at most `timeout`. Errors: kDatabase on timeout, kInternal when the lock file cannot be
  // opened.
  Status Acquire(const std::string& lock_path, std::chrono::milliseconds timeout,
                 bool shared = false);
  // Takes the lock exclusively if nobody holds it, without waiting; false when held or not
  // openable.
  bool TryExclusive(const std::string& lock_path);
  void Release();

 private:
  int fd_ = -1;
};

struct TemplateDir {
  std::string data_dir;  // the template, a complete data folder owned by the server user
  bool made = false;     // whether this call made it
};

struct TemplateMaker {
  std::string path;  // where the template lives, e.g. <base>/template-15
  // Whether a folder is a complete template (e.g. it has PG_VERSION).
  std::function<bool(const std::string& data_dir)> complete;
  // Fills `data_dir` (an empty folder owned by the server user, 0700); `work_dir` (racelab's,
  // 0711) takes logs. Runs only under the lock; its errors are returned as they are. Must bound
  // its own time (a child process with a deadline).
  std::function<Status(const std::string& data_dir, const std::string& work_dir)> make;
  // How long to wait for another process that is making it.
  std::chrono::milliseconds lock_timeout{150000};
};

// Returns the template at maker.path, making it when it is not complete (a broken one is removed
// first). With `hold` (not null, not holding), returns with the template's lock held shared by it,
// the template complete: keep it until the copy is done (a template `racelab clean` removed
// meanwhile is made again). Errors: kDatabase when another process held the lock past lock_timeout,
// kInternal for file-system errors, else make()'s.
Result<TemplateDir> EnsureTemplate(const TemplateMaker& maker, const ServerUser& user,
                                   TemplateLock* hold = nullptr);

// Removes the template at `path` (and its .tmp-* leftovers) when nobody makes or copies it: takes
// its lock exclusively without waiting, renames it to <path>.tmp-clean-<pid> (a run sees it whole
// or not at all), then removes that. Returns false when it is held or cannot be renamed (nothing is
// touched). The lock file stays (a run may have it open). For `racelab clean`.
bool RemoveTemplateUnlessHeld(const std::string& path);
// Whether RemoveTemplateUnlessHeld(path) would remove it now (its lock is free: taken and
// released).
bool TemplateFree(const std::string& path);

}  // namespace racelab::embedded
