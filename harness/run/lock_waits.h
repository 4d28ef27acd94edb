// Lock-wait attribution: which statement of a trial each recorded lock wait belongs to
// (docs/lock-waits.md). Internal to the runner; exposed for tests.
//
// Two sources, merged per statement:
//  - the server's own record (ServerLockWait, Engine::OpenWaitLog): placed by session id, statement
//    text and time; its start and duration become the statement's (lock_wait_source "server_log");
//  - the wait monitor's polls (WaitObservation): a poll that overlaps a statement already holding a
//    server-logged wait only adds its sample times; otherwise it marks a statement "poll".
// Either way a wait is pinned only on a statement that was in flight: its start is never before
// the statement's sent_us and its end never after completed_us.
// Thread-safety: pure functions over the caller's data.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "harness/engine/wait_monitor.h"
#include "harness/model/trial_result.h"

namespace racelab::internal {

// Who the sessions are, by (node, Session::session_id()) — ids are unique per server only.
// `pid_labels`: workers' connections -> session label, plus racelab's own (e.g. "racelab:control");
// `label_pids`: session label -> worker connection (only workers' waits are attributed);
// `backend_types`: connection -> the server's kind of other sessions (from the server's record,
// ServerWaitBatch::session_kinds).
struct BackendNames {
  std::map<ConnectionId, std::string> pid_labels;
  std::map<std::string, ConnectionId> label_pids;
  std::map<ConnectionId, std::string> backend_types;
  // The name blocked_by shows for `pid`: its label, "(autovacuum worker)" and the like, or
  // "(other backend)".
  std::string Name(const ConnectionId& pid) const;
};

// Marks the statements the server logged waiting. `origin_wall_us`: the trial's t = 0 on the
// server's clock (the embedded cluster shares racelab's wall clock), µs since the epoch. `node`:
// whose record `waits` are (ServerWaitBatch::node). `events` are one trial's. Call before
// AttributeLockWaits.
void AttributeServerLockWaits(const std::vector<ServerLockWait>& waits, const std::string& node,
                              int64_t origin_wall_us, const BackendNames& names,
                              std::vector<StepEvent>* events);

// Marks the statements the monitor's polls saw in a lock wait (see the file comment).
void AttributeLockWaits(const std::vector<WaitObservation>& observations, const BackendNames& names,
                        std::vector<StepEvent>* events);

}  // namespace racelab::internal
