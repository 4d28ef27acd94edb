// SpecTranscriptRunner: runs a PostgreSQL isolation spec file against a PostgreSQL server and
// prints what PostgreSQL's isolationtester prints, so that `diff` against the spec's expected/*.out
// is the check (docs/scenario-format.md, "PostgreSQL isolation spec files").
//
// How a permutation runs — isolationtester's rule, the "ordered steps" primitive of racelab:
//  - the steps of a permutation start one at a time, in order; a step starts once (A) every earlier
//    step of its own session is done and (B) the step just before it in the permutation is done or
//    deemed blocked: seen waiting on a lock held by another session of the spec (the server's
//    pg_isolation_test_session_is_blocked(), polled every 10 ms, which also sees a DEFERRABLE
//    transaction waiting for a safe snapshot), or done but held back by a marker;
//  - markers only delay when a step is *reported* done: `(*)` reports it waiting at once, `(other)`
//    holds it while step `other` runs, `(other notices N)` until other's session sent N more
//    notices;
//  - per permutation: the setup blocks on a control connection, each session's setup, the steps,
//  each
//    session's teardown, the teardown. Results are printed with libpq's PQprint (header, aligned,
//    "|"), errors as "SEVERITY:  primary message", notices as "SESSION: NOTICE:  …" when they
//    arrive.
// Where it runs: a database created for the run on the server `server` names (CREATE DATABASE: the
// admin needs CREATEDB, or is the embedded cluster's superuser; owned by server.owner, the role the
// run's connections log in as — racelab's generated role under confinement), dropped at the end, so
// that a spec sees what it sees under isolationtester (its own public schema); sessions are named
// as pg_regress names them (application_name "isolation/TEST/SESSION", TEST the file name without
// ".spec"). Each permutation's teardown must undo its setup, as under isolationtester. Deadlines: a
// step that neither finishes nor blocks within `step_timeout_ms` is cancelled (the line "racelab:
// canceling step NAME after N ms" is printed, as isolationtester prints its own); one still running
// at twice that ends the run with kDatabase. Connecting waits at most `connect_timeout_ms`.
// Thread-safety: one runner per thread; it owns its connections.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "harness/engines/postgresql/spec/spec_database.h"
#include "harness/model/isolation_spec.h"
#include "harness/model/status.h"
#include "harness/model/stop_flag.h"

namespace racelab {

// Writes the transcript of every order in `orders` (the ones to run: ExpandSpecPermutations, or
// those SelectSpecPermutations chose) to `out` (the first line: "Parsed test spec with N
// sessions"). Setup failures end the run as they end isolationtester ("setup failed: …" on stderr,
// kDatabase); teardown failures are reported on stderr and the run goes on. Errors: kDatabase
// (connection, database creation, a step past twice its deadline, mutually blocking steps).
// `conninfo`: libpq connection string or URI of the server (admin rights: CREATEDB). `stop` ends
// the run early (kDatabase after cancelling what runs).
Status RunSpecTranscript(const IsolationSpec& spec, const std::vector<StepOrder>& orders,
                         const SpecRunOptions& options, const SpecServer& server,
                         const StopFlag* stop, FILE* out);
// The same as `conninfo`'s role, which owns the database (isolationtester's way).
inline Status RunSpecTranscript(const IsolationSpec& spec, const std::vector<StepOrder>& orders,
                                const SpecRunOptions& options, const std::string& conninfo,
                                const StopFlag* stop, FILE* out) {
  return RunSpecTranscript(spec, orders, options, SpecServer{conninfo, "", ""}, stop, out);
}

}  // namespace racelab
