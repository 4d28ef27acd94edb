// Faults are not behaviour: tells a session lost to something outside the scenario from one that a
// `terminate` step of the scenario ended.
//
// Which errors mean "the session is gone" is the engine's to say (Engine::IsSessionLost; e.g. a
// PostgreSQL backend ended by pg_terminate_backend answers 57P01, then a lost connection, 08006).
// When the scenario's own `terminate` step ended that session earlier in the trial, or an
// `await_ended` step waited for the server to end it (idle_in_transaction_session_timeout) and saw
// it end, this is the behaviour under test; otherwise it is an outage (an operator, a pooler, the
// server), and the trial is an `error` (exit 3), never a `fail`. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "harness/engine/session.h"
#include "harness/model/trial_result.h"

namespace racelab::internal {

// One session (its connection, Session::connection_id) racelab's own `terminate` step ended, or an
// `await_ended` step saw the server end, and when that step started (µs since trial start).
struct OwnTermination {
  ConnectionId pid;
  int64_t at_us = 0;
};

// Whether an event's error means its session is gone (Engine::IsSessionLost).
using SessionLostFn = std::function<bool(const StepEvent& ev)>;

// The first event whose session was lost (`session_lost`) without racelab's own terminate of its
// session (label_pids) at or before the event completed, described for TrialResult::error, e.g.
// "infrastructure fault, not a race outcome: session 'b' lost its backend in step 'wait' (57P01
// terminating connection due to administrator command), and no terminate step of the scenario ended
// it — an operator, a connection pooler or the server did"; "" when there is none.
std::string OutsideFault(const std::vector<StepEvent>& events,
                         const std::map<std::string, ConnectionId>& label_pids,
                         const std::vector<OwnTermination>& own, const SessionLostFn& session_lost);

// The first event whose error is a fault of the machine under the database (`is_fault`:
// Engine::IsInfrastructureFault — a full disk, an I/O error), described for TrialResult::error,
// e.g. "infrastructure fault, not a race outcome: session 'a' step 'fill' failed with SQLITE_FULL
// (database or disk is full): the disk, memory or files under the database failed"; "" when there
// is none.
std::string MachineFault(const std::vector<StepEvent>& events, const SessionLostFn& is_fault);

}  // namespace racelab::internal
