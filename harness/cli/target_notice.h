// What a run says about its target when the environment points elsewhere. Without --dsn racelab
// runs on a throwaway embedded PostgreSQL even when libpq's connection variables (PGHOST,
// PGDATABASE, …) name a server — psql and pgbench would connect there — so `racelab run` prints
// this one line on stderr (also with --quiet: it is about the target, not progress). README "Using
// it". Thread-safety: pure functions.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace racelab::cli {

// libpq's variables that choose the server or the database to connect to (not PGPASSWORD and the
// like, which only say how): PGHOST, PGHOSTADDR, PGPORT, PGDATABASE, PGUSER, PGSERVICE,
// PGSERVICEFILE.
const std::vector<std::string>& PgTargetVariables();

// The set ones among PgTargetVariables(), in that order, read with `getenv` (returns null for
// unset; an empty value counts as unset, as libpq treats it).
std::vector<std::string> SetPgTargetVariables(
    const std::function<const char*(const char*)>& getenv);

// "racelab: PGHOST, PGDATABASE are set but no --dsn was given: this run uses a throwaway embedded
// PostgreSQL, not the server they name (to run there: --dsn postgresql://, which takes everything
// from them)", or "" when none is set.
std::string EmbeddedDespitePgEnvironment(const std::vector<std::string>& set);

}  // namespace racelab::cli
