// The connection string an exec session's program gets in RACELAB_DSN (docs/race-your-own-code.md):
// libpq key=value, logged in as the role scenario SQL runs as, in the trial's schema.
//
// The schema, the trial's level and the session's settings travel in libpq's `options` (the
// server's command-line options, PostgreSQL docs §34.1.2 "options"; each `-c name=value` is split
// on white space, a backslash escapes a space or a backslash), so that any driver — psycopg, pg,
// JDBC through its own URL, an ORM — starts with the scenario's search_path and with BEGIN at the
// trial's level (default_transaction_isolation) without a line of racelab code. An `options` the
// base connection string already has is kept, first.
// Thread-safety: pure function.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "harness/model/isolation.h"
#include "harness/model/status.h"

namespace racelab::pg {

// `base` (the role's conninfo, URI or key=value) with application_name "racelab:<label>" and
// options `-c search_path=<workspace> -c default_transaction_isolation=<level> -c k=v …`.
// kUsage when `base` does not parse.
Result<std::string> ProgramConninfo(
    const std::string& base, const std::string& workspace, const std::string& label,
    IsolationLevel level, const std::vector<std::pair<std::string, std::string>>& settings);

// `value` escaped for one word of libpq's `options`: a backslash before each space and backslash.
std::string EscapeOptionWord(const std::string& value);

}  // namespace racelab::pg
