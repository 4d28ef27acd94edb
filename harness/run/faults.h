// Faults are not behaviour: tells a session lost to something outside the scenario from one that a
// `terminate` step of the scenario ended.
//
// A backend terminated with pg_terminate_backend answers its next statement with SQLSTATE 57P01
// (admin_shutdown) and closes the connection; later statements fail with a lost connection (racelab
// records 08006). A server shutting down or crashing gives 57P01/57P02 too, a refused start 57P03,
// a dropped database 57P04, and a broken network class 08 (PostgreSQL docs Appendix A). When the
// scenario's own `terminate` step ended that backend earlier in the trial, this is the behaviour
// under test; otherwise it is an outage (an operator, a pooler, the server), and the trial is an
// `error` (exit 3), never a `fail`.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "harness/model/trial_result.h"

namespace racelab::internal {

// One backend racelab's own `terminate` step ended, and when the step started (µs since trial
// start).
struct OwnTermination {
  int pid = 0;
  int64_t at_us = 0;
};

// True for the SQLSTATEs of a session that is gone: 57P01, 57P02, 57P03, 57P04 and class 08.
bool IsSessionLost(const std::string& sqlstate);

// The first event whose session was lost (IsSessionLost) without racelab's own terminate of its
// backend (label_pids) at or before the event completed, described for TrialResult::error, e.g.
// "infrastructure fault, not a race outcome: session 'b' lost its backend in step 'wait' (57P01
// terminating connection due to administrator command), and no terminate step of the scenario ended
// it — an operator, a connection pooler or the server did"; "" when there is none.
std::string OutsideFault(const std::vector<StepEvent>& events,
                         const std::map<std::string, int>& label_pids,
                         const std::vector<OwnTermination>& own);

}  // namespace racelab::internal
