// Finding the PostgreSQL server binaries (initdb, postgres) for the embedded cluster.
// Thread-safety: stateless, safe to call concurrently.
#pragma once

#include <string>

#include "harness/model/status.h"

namespace racelab::internal {

struct PgBinaries {
  std::string bindir;   // absolute, holds executable initdb and postgres
  std::string version;  // e.g. "15.18", from `postgres --version`
  std::string major;    // e.g. "15" ("9.6" before PostgreSQL 10): names the cached template
  std::string initdb() const { return bindir + "/initdb"; }
  std::string postgres() const { return bindir + "/postgres"; }
};

// Looks in order at: `explicit_bindir` (if not empty, and then only there), `pg_config --bindir`,
// each PATH entry, the newest /usr/lib/postgresql/<version>/bin.
// Errors: kUsage when `explicit_bindir` lacks the binaries; kInternal when nothing is found (the
// message says where it looked and how to install the server).
Result<PgBinaries> FindPgBinaries(const std::string& explicit_bindir);

}  // namespace racelab::internal
