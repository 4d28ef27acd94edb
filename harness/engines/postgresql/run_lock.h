// Run ids and run locks: what tells racelab runs apart on a shared server, and what proves a run
// alive to `racelab clean`.
//
// - Every racelab process has one run id: 64 random bits (std::random_device), written as 16
//   lower-case hex digits. Its schemas are racelab_<pid>_<run id>_<n>: at most 8 + 10 + 1 + 16 + 1
//   + 10 = 46 bytes, under PostgreSQL's 63-byte identifier limit (docs §4.1.1). The pid is for
//   people; the run id makes names unique, so processes with the same pid (containers whose
//   entrypoint is PID 1, PID namespaces, other hosts) never share a schema.
// - While a run may have schemas on a server, a connection of its own (the admin role's under
//   confinement, harness/engines/postgresql/scenario_role.h; never used for scenario SQL) stays
//   open with application_name "racelab:run-lock:<run id>" (RunLockApplicationName). It holds no
//   lock and runs nothing but `SELECT 1` when racelab asks whether the server still answers, so
//   scenario SQL sees nothing of it in pg_locks (a `SELECT count(*) FROM pg_locks WHERE locktype =
//   'advisory'` counts only the scenario's own; issue 20 item 8) — only its row in
//   pg_stat_activity, as for racelab's other connections (docs/scenario-format.md "What scenario
//   SQL sees of racelab"). The backend ends when that connection does — the run exits, is killed,
//   or its host dies and the connection drops — so a run is alive exactly while a backend with its
//   application_name exists (RunAliveSql). Runs of racelab versions before this one held
//   pg_advisory_lock_shared(<run id as bigint>) (PostgreSQL docs §9.27.10) on that connection
//   instead; RunAliveSql counts such a granted lock as alive too, reading pg_locks without taking
//   any lock. `racelab clean` drops only what belongs to runs that are not alive.
// Thread-safety: RunIdHex() and the parsing functions are safe from any thread; a RunLock is used
// by one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "harness/engines/postgresql/connection.h"
#include "harness/model/status.h"
#include "harness/model/stop_flag.h"

namespace racelab::pg {

// This process's run id, 16 hex digits; the same on every call.
const std::string& RunIdHex();

// The advisory-lock key of a run id (its 64 bits as a signed bigint); nullopt unless `hex` is 16
// hex digits.
std::optional<int64_t> RunLockKey(const std::string& hex);

// "racelab:run-lock:<hex>", the application_name of run `hex`'s run-lock connection (33 bytes,
// under PostgreSQL's 63-byte NAMEDATALEN limit).
std::string RunLockApplicationName(const std::string& hex);

// A query answering one row, one column: t when run `hex` is alive (its run-lock connection is
// open, or a run of an earlier racelab version holds its advisory lock), else f. Takes no lock.
// REQUIRES: RunLockKey(hex) is set.
std::string RunAliveSql(const std::string& hex);

// The run id of a schema named racelab_<pid>_<run id>_<n>; nullopt for any other name.
std::optional<std::string> RunIdOfSchema(const std::string& schema);
// The run id of a spec run's database, racelab_spec_<pid>_<run id>_<n> (spec/spec_database.h);
// nullopt for any other name.
std::optional<std::string> RunIdOfSpecDatabase(const std::string& database);

// The session that holds this process's run lock on one server.
class RunLock {
 public:
  RunLock() = default;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

  // Opens the run-lock connection unless a healthy one is open. Waits at most `connect_deadline` to
  // connect and `statement_deadline` for its first answer. Errors: kDatabase, with libpq's or the
  // server's message.
  Status Hold(const std::string& conninfo, SteadyTime connect_deadline,
              SteadyTime statement_deadline, const StopFlag* stop);

  // Whether the server answers on the lock session (reopening it if needed) by `deadline`.
  bool ServerAnswers(const std::string& conninfo, SteadyTime deadline);

  // Closes the run-lock connection: from then on the run is gone to `racelab clean`.
  void Release() { conn_.reset(); }

 private:
  std::unique_ptr<Connection> conn_;
};

}  // namespace racelab::pg
