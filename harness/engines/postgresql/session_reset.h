// StartClean: makes a worker connection (a PostgreSQL engine internal: Connection::StartClean,
// Session::StartClean) begin a trial as if it had just connected.
//
// Connections are reused from trial to trial (opening one costs a backend fork), so whatever a
// trial left in its sessions — a session-level advisory lock, a SET, a temporary table, a prepared
// statement, a cursor WITH HOLD, LISTEN registrations, cached plans, sequence state — would
// otherwise be seen by the next trial. Before every trial each worker session runs, in this order:
//   1. ROLLBACK, if a transaction is still open;
//   2. DISCARD ALL, spelled out as what it is equivalent to — "CLOSE ALL; SET SESSION AUTHORIZATION
//      DEFAULT; RESET ALL; DEALLOCATE ALL; UNLISTEN *; SELECT pg_advisory_unlock_all(); DISCARD
//      PLANS; DISCARD TEMP; DISCARD SEQUENCES;" (PostgreSQL docs, SQL command DISCARD): DISCARD ALL
//      itself cannot run inside a transaction block, and a multi-statement query string is one (an
//      implicit block), but its parts can;
//   3. the session's role: nothing to do today — under confinement (scenario_role.h) the connection
//      logs in as the generated role, so SET SESSION AUTHORIZATION DEFAULT returns to it; a role
//      taken with SET ROLE would be set again here;
//   4. SET search_path TO the trial's schema;
//   5. SET each of the session's `settings`, in file order.
// Steps 2–5 are one query string: one round trip (step 1 is a second one, when needed). RESET ALL
// returns every parameter to its session default — the value from the connection's start-up packet
// (application_name "racelab:<label>") or the server's. What DISCARD ALL does not undo: a custom
// placeholder parameter (`SET myapp.x = 1`) still exists, reset to '' (a new session would answer
// 42704 to current_setting('myapp.x')), and a LOADed library stays loaded. Cost: see
// docs/scenario-format.md "Every trial starts clean" (measured with racelab-reset-bench).
// Thread-safety: uses only `conn`; several threads may run it at once on different connections (the
// runner starts a trial's sessions clean in parallel).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "harness/engine/engine.h"
#include "harness/engines/postgresql/connection.h"
#include "harness/model/status.h"

namespace racelab::pg {

// SessionStart (harness/engine/engine.h): its workspace is the trial's schema (search_path).

// The SQL of steps 3–5 above (no DISCARD ALL), e.g.
// "SET search_path TO \"racelab_1_1\";SET lock_timeout = '200ms';". Exposed for tests.
std::string SessionStartSql(const SessionStart& start);

// Runs steps 1–5 on `conn`, each wait bounded by `deadline`. `denied_hint` is added in parentheses
// to a setting refused with 42501, or "". Errors, named with `file` and the
// session: kUsage when the scenario asks for a setting that cannot be (42704 unknown parameter,
// other class 42 but 42501, 22023 invalid value, 55P02 cannot be changed now) — a bug in the file;
// kDatabase otherwise, including 42501 (the role may not set it: the server's configuration, not
// the file's), e.g. "x.yaml: permission denied to set parameter "deadlock_timeout" (42501):
// settings of session 'a' (<denied_hint>)". Sets *connection_lost when the connection turned out to
// be gone (the caller may reopen and retry).
Status StartClean(Connection* conn, const SessionStart& start, SteadyTime deadline,
                  const std::string& file, bool* connection_lost,
                  const std::string& denied_hint = "");

// StartClean in two halves, so that the round trip overlaps other work (the runner sends it after a
// trial's final checks and collects it before the next trial starts). SendStartClean sends steps
// 2–5 and returns at once; false when it sent nothing — a transaction is open (step 1 is needed) or
// the connection is gone: call StartClean then. FinishStartClean waits (at most until `deadline`)
// for what SendStartClean sent and judges it as StartClean does, same errors. Between the two,
// nothing else may use `conn`.
bool SendStartClean(Connection* conn, const SessionStart& start, SteadyTime deadline);
Status FinishStartClean(Connection* conn, const SessionStart& start, SteadyTime deadline,
                        const std::string& file, bool* connection_lost,
                        const std::string& denied_hint = "");

}  // namespace racelab::pg
