// The MariaDB engine (InnoDB): an Engine over MariaDB Connector/C, on an embedded throwaway server
// (server.h) or the server a mariadb:// / mysql:// DSN names (dsn.h). docs/architecture.md "The
// engine interface".
//
// - Levels: read uncommitted, read committed, repeatable read (InnoDB's default), serializable;
//   BEGIN is `SET TRANSACTION ISOLATION LEVEL <level>; START TRANSACTION` (one Exec).
// - Workspace: a database racelab creates and drops, racelab_<pid>_<run id>_<n> (lower case, at
// most
//   64 characters: MariaDB's limit for a database name).
// - Run lock: GET_LOCK('racelab_run_<pid>_<run id>') held by an admin connection for the whole run;
//   `racelab clean` drops the racelab_* databases whose lock nobody holds (IS_USED_LOCK is NULL).
// - Clean start of a session (StartClean): COM_RESET_CONNECTION (rolls back, releases GET_LOCK
//   locks, drops temporary tables, resets session variables), `USE` the workspace, then each
//   setting as `SET SESSION name = value`.
// - Errors: class 42 (syntax, unknown table/column, access) is a scenario error; lost: client
// errors
//   2006/2013, 1927 (connection killed), 4031 (idle transaction timeout).
// Thread-safety: as harness/engine/engine.h.
#pragma once

#include <memory>
#include <string>

#include "harness/engine/engine.h"
#include "harness/engine/engine_descriptor.h"

namespace racelab::mariadb {

// Starts the embedded server (options.dsn empty) or connects to options.dsn (mariadb:// or
// mysql://). Errors: kUsage (bad DSN), kDatabase (server cannot be started or reached).
Result<std::unique_ptr<Engine>> OpenMariaDbEngine(const EngineOptions& options);

}  // namespace racelab::mariadb
