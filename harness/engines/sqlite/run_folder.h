// The private folder of one racelab run's SQLite databases, and the sweep of dead runs' folders
// (docs/sqlite.md "Files").
//
// A run keeps every database file under <base>/racelab-sqlite-<pid>-<run id>/ (<base>:
// $RACELAB_TMPDIR, else $TMPDIR, else /tmp, as for the embedded PostgreSQL; mode 0700), and holds
// an exclusive flock(2) on its run.lock file for as long as it runs. The kernel drops the lock when
// the process ends in any way, SIGKILL included, so a folder whose lock can be taken has no live
// run: the next run (or `racelab clean`) removes it. A folder without run.lock is a run being
// created and is left alone for its first 60 s. The pid is for people; the run id (64 random bits)
// keeps names unique across pid namespaces.
// Thread-safety: a RunFolder is used by one thread; the free functions are safe from any thread.
#pragma once

#include <string>
#include <vector>

#include "harness/model/status.h"

namespace racelab::sqlite {

inline constexpr const char* kRunFolderPrefix = "racelab-sqlite-";

// $RACELAB_TMPDIR, else $TMPDIR (when set and not empty), else /tmp.
std::string TempBase();

// This process's run id: 16 lower-case hex digits, the same on every call.
const std::string& SqliteRunId();

class RunFolder {
 public:
  RunFolder() = default;
  ~RunFolder();  // Remove()
  RunFolder(const RunFolder&) = delete;
  RunFolder& operator=(const RunFolder&) = delete;

  // Creates <base>/racelab-sqlite-<pid>-<run id> and takes its lock. Errors: kInternal with the
  // path and errno text.
  Status Create(const std::string& base);
  // Removes the folder and everything in it, then releases the lock. Idempotent.
  Status Remove();
  const std::string& path() const { return path_; }
  bool created() const { return lock_fd_ >= 0; }

 private:
  std::string path_;
  int lock_fd_ = -1;
};

struct RunFolderEntry {
  std::string path;
  std::string name;
  bool live = false;  // its run holds the lock (or it is being created)
};

// Every racelab-sqlite-* folder under `base`, except `own` (a path, may be "").
std::vector<RunFolderEntry> ListRunFolders(const std::string& base, const std::string& own);

// Removes `path` if its run is gone (taking its lock first, so a live run is never touched).
// Returns true when it removed it.
bool RemoveIfDead(const std::string& path);

}  // namespace racelab::sqlite
