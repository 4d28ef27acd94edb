// Run ids and run locks: what tells racelab runs apart on a shared server, and what proves a run
// alive to `racelab clean`.
//
// - Every racelab process has one run id: 64 random bits (std::random_device), written as 16
//   lower-case hex digits. Its schemas are racelab_<pid>_<run id>_<n>: at most 8 + 10 + 1 + 16 + 1 +
//   10 = 46 bytes, under PostgreSQL's 63-byte identifier limit (docs §4.1.1). The pid is for people;
//   the run id makes names unique, so processes with the same pid (containers whose entrypoint is
//   PID 1, PID namespaces, other hosts) never share a schema.
// - While a run may have schemas on a server, a connection of its own (the admin role's under
//   confinement, harness/engines/postgresql/scenario_role.h; application_name
//   "racelab:run-lock", never used for scenario SQL) holds the session-level advisory lock
//   pg_advisory_lock_shared(<run id as bigint>) (PostgreSQL docs §9.27.10). The server releases it
//   when that session ends — the run exits, is killed, or its host dies and the connection drops.
//   So a schema whose run id can be locked exclusively (pg_try_advisory_lock) has no live run:
//   `racelab clean` drops only those.
// Thread-safety: RunIdHex() and the parsing functions are safe from any thread; a RunLock is used by
// one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "harness/model/status.h"
#include "harness/engines/postgresql/connection.h"
#include "harness/model/stop_flag.h"

namespace racelab::pg {

// This process's run id, 16 hex digits; the same on every call.
const std::string& RunIdHex();

// The advisory-lock key of a run id (its 64 bits as a signed bigint); nullopt unless `hex` is 16
// hex digits.
std::optional<int64_t> RunLockKey(const std::string& hex);

// The run id of a schema named racelab_<pid>_<run id>_<n>; nullopt for any other name.
std::optional<std::string> RunIdOfSchema(const std::string& schema);
// The run id of a spec run's database, racelab_spec_<pid>_<run id>_<n> (spec/spec_database.h); nullopt
// for any other name.
std::optional<std::string> RunIdOfSpecDatabase(const std::string& database);

// The session that holds this process's run lock on one server.
class RunLock {
 public:
  RunLock() = default;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

  // Opens the lock session and takes the lock unless a healthy session already holds it. Waits at
  // most `connect_deadline` to connect and `statement_deadline` for the lock (only an exclusive
  // holder — `racelab clean` checking this run, for milliseconds — makes it wait).
  // Errors: kDatabase, with libpq's or the server's message.
  Status Hold(const std::string& conninfo, SteadyTime connect_deadline, SteadyTime statement_deadline,
              const StopFlag* stop);

  // Whether the server answers on the lock session (reopening it if needed) by `deadline`.
  bool ServerAnswers(const std::string& conninfo, SteadyTime deadline);

  // Ends the lock session (the server releases the lock).
  void Release() { conn_.reset(); }

 private:
  std::unique_ptr<Connection> conn_;
};

}  // namespace racelab::pg
