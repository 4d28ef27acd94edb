// The cached initdb template, <base_dir>/template-<major>-wal1: made once per machine (per base
// folder and PostgreSQL major version), then copied for each run. Its WAL segments are 1 MB
// (initdb --wal-segsize=1) instead of 16: pg_wal starts with one segment, and a 16 MB one was 17 of
// the 39 MB every run copied (docs/performance.md "Time to the first result"); locking and the
// atomic rename are the embedded servers' shared EnsureTemplate
// (harness/engines/embedded/template_dir.h). Thread-safety: safe to call concurrently from threads
// and processes.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "harness/engines/embedded/process.h"
#include "harness/engines/embedded/template_dir.h"
#include "harness/engines/postgresql/pg_binaries.h"
#include "harness/model/status.h"

namespace racelab::internal {

// initdb's WAL segment size, and the template name's suffix that says so (a template of another
// segment size, from an earlier racelab, is never reused: ListObsoleteTemplates).
inline constexpr const char* kWalSegmentOption = "--wal-segsize=1";
inline constexpr const char* kTemplateSuffix = "-wal1";

// How long initdb may run before it is killed.
inline constexpr std::chrono::milliseconds kInitdbTimeout(120000);

struct TemplateDir {
  std::string
      data_dir;  // <base_dir>/template-<major>-wal1, a complete data folder owned by the user
  bool ran_initdb = false;  // whether this call ran initdb
};

// Returns the template, running `initdb -U racelab --auth=trust -E UTF8 --no-locale -N
// --wal-segsize=1` as `user` when it does not exist yet. Errors: kDatabase when initdb fails or
// times out (the message ends with the tail of its output), kInternal for file-system errors. With
// `hold`, returns with the template held shared (embedded::EnsureTemplate): keep it until copied.
Result<TemplateDir> EnsureTemplate(const PgBinaries& bins, const std::string& base_dir,
                                   const embedded::ServerUser& user,
                                   embedded::TemplateLock* hold = nullptr);

// Templates earlier racelab versions made under `base_dir` (template-<major>, 16 MB WAL segments),
// as paths; nothing is touched. CleanObsoleteTemplates removes them (and their .lock files) and
// returns how many — for `racelab clean` only: a run of an older racelab may be copying one.
std::vector<std::string> ListObsoleteTemplates(const std::string& base_dir);
int CleanObsoleteTemplates(const std::string& base_dir);

// This version's templates (template-<major>-wal1) under `base_dir`, a base folder racelab no
// longer uses (e.g. /tmp/racelab-<uid> once /dev/shm has room: pg::UnusedBaseDirs), as paths — an
// unused cache of ~28 MB each. Only those removable now: none while a live run has a folder in
// `base_dir` (it chose that folder), and not one a run is making or copying (its lock is held).
// Nothing is touched. CleanUnusedTemplates removes them (embedded::RemoveTemplateUnlessHeld,
// checked again) and returns how many — for `racelab clean` only.
std::vector<std::string> ListUnusedTemplates(const std::string& base_dir);
int CleanUnusedTemplates(const std::string& base_dir);

}  // namespace racelab::internal
