// The cached initdb template, <base_dir>/template-<major>: made once per machine (per base folder
// and PostgreSQL major version), then copied for each run; locking and the atomic rename are the
// embedded servers' shared EnsureTemplate (harness/engines/embedded/template_dir.h).
// Thread-safety: safe to call concurrently from threads and processes.
#pragma once

#include <chrono>
#include <string>

#include "harness/engines/postgresql/pg_binaries.h"
#include "harness/engines/embedded/process.h"
#include "harness/model/status.h"

namespace racelab::internal {

// How long initdb may run before it is killed.
inline constexpr std::chrono::milliseconds kInitdbTimeout(120000);

struct TemplateDir {
  std::string data_dir;     // <base_dir>/template-<major>, a complete data folder owned by the user
  bool ran_initdb = false;  // whether this call ran initdb
};

// Returns the template, running `initdb -U racelab --auth=trust -E UTF8 --no-locale -N` as `user`
// when it does not exist yet. Errors: kDatabase when initdb fails or times out (the message ends
// with the tail of its output), kInternal for file-system errors.
Result<TemplateDir> EnsureTemplate(const PgBinaries& bins, const std::string& base_dir,
                                   const embedded::ServerUser& user);

}  // namespace racelab::internal
