// Transactions scenario SQL prepared with PREPARE TRANSACTION (PostgreSQL docs, PREPARE TRANSACTION
// and §54.16 pg_prepared_xacts): such a transaction outlives its session — DISCARD ALL and closing
// the connection leave it — and keeps its locks, so DROP SCHEMA of the workspace would wait on it
// and the run's role could not be dropped. A server allows them only with max_prepared_transactions
// > 0 (the embedded cluster has 0: PREPARE TRANSACTION fails with 55000 there).
//
// Which are the run's (RunPreparedSql): those in the database the run works in, owned by the role
// scenario SQL runs as — under confinement that role is the run's own (scenario_role.h), so each
// one it owns is this run's. Under --no-confine scenario SQL runs as the --dsn role, which other
// clients share: only those holding a lock on a relation of this run's schemas (or on such a schema
// itself) are the run's; one that touched nothing in them cannot be told apart and is left alone.
// ROLLBACK PREPARED needs the owner (or a superuser) connected to that database: the engine runs it
// over a connection of its own logged in as that role (pg_engine.h EndTrial, Close); `racelab
// clean` as the dead run's role (SET ROLE; pg_leftovers.cc). Thread-safety: pure functions, and one
// thread per Connection.
#pragma once

#include <string>

#include "harness/engines/postgresql/connection.h"
#include "harness/model/status.h"

namespace racelab::pg {

// A query listing the gids of this run's prepared transactions, oldest first, over a connection
// logged in as the role scenario SQL runs as. `schema_prefix`: the run's schema names start with it
// (racelab_<pid>_<run id>_); used only when !confined.
std::string RunPreparedSql(bool confined, const std::string& schema_prefix);

// ROLLBACK PREPARED '<gid>' for each row of `list_sql` (run over `conn`), each on its own (it
// cannot run in a transaction block). One finished meanwhile (42704) is not an error. Returns how
// many it rolled back. Errors: kDatabase, naming the gid.
Result<int> RollbackPrepared(Connection& conn, const std::string& list_sql, SteadyTime deadline);

// 'text' as an SQL string literal (standard_conforming_strings: quotes doubled).
std::string SqlLiteral(const std::string& text);

}  // namespace racelab::pg
