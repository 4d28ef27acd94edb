// Lateness allowance: how much of one lock wait a busy machine measurably added, so that an upper
// time bound (`blocked[].max_ms`) is judged on what the scenario asked for, not on the machine's
// load.
//
// The rule (docs/scenario-format.md "Timing bounds on a busy machine"): a statement's wait
// [sent_us, completed_us] can only have been lengthened by lateness on its own path and on the path
// of the sessions that held the lock (its `blocked_by`). The allowance is the sum of
//  - own: the waiting statement's StepEvent::late_us — its backend's run-queue delay (reaching the
//    lock, a lock_timeout/statement_timeout/deadlock_timeout timer firing late, waking after the
//    release) and its worker's wake delay when the answer came;
//  - blockers: for each blocking session, over the steps that overlap the wait: the late_us of
//  those
//    that are statements (their backends' run-queue delay), of sleeps, barriers and await_ended
//    steps that ended inside the wait (how late they woke; for await_ended, from the last monitor
//    look that still saw the target connected — the end the server chose is the scenario's time);
//    the part of an await_blocked inside the wait (the monitor finding the wait: the scenario asks
//    for no time there); and racelab's own gaps between one step's end and the next one's send
//    inside the wait.
// Time the scenario asks for (sleep_ms, a timeout setting) is never part of it, so a holder that
// sleeps twice as long still breaks the bound.
//
// A lower bound (`min_ms`) is lowered only by a late start (LateStartUs): load lengthens a wait,
// except when the waiter itself reaches the lock late and the wait ends at another session's time
// (the holder's COMMIT after its own sleep) — then the wait is shorter by as much as the waiter
// started late.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "harness/model/trial_result.h"

namespace racelab {

struct LatenessAllowance {
  int64_t own_us = 0;       // the waiting statement's late_us
  int64_t blockers_us = 0;  // measured on the blocking sessions' path during the wait
  int64_t total_us() const { return own_us + blockers_us; }
  // "12.345 ms measured lateness (own 2.000, blockers' 10.345)".
  std::string Describe() const;
};

// The lateness measured on `session`'s path over [start_us, end_us] (µs since the trial's start),
// as the blockers' part above counts it: its statements' and probes' late_us, its sleeps',
// barriers' and await_ended steps' late wake-ups inside the interval, the part of its await_blocked
// steps inside it, and racelab's gaps between its steps. In µs, >= 0. Used for a blocker, and for
// expect.timing's paths (timing_checks.h).
int64_t PathLatenessUs(const TrialResult& result, const std::string& session, int64_t start_us,
                       int64_t end_us);

// The allowance of `waiter` (an event of `result`) as defined above.
LatenessAllowance MeasuredLateness(const TrialResult& result, const StepEvent& waiter);

// How much later than its script `waiter` (an event of `result`) was sent, in µs >= 0: the lateness
// measured on its own session's path since it last left a barrier (or since the trial's start) —
// its sleeps', barriers' and await_ended steps' late wake-ups, its statements' and probes' late_us,
// and racelab's gaps between its steps, up to its send. Not the time an await_blocked took (how
// soon another session blocks is the scenario's time), only its late_us. It counts only when the
// wait's end is another session's doing: a session in its blocked_by sent a statement (sql, commit,
// rollback, terminate) during the wait. A wait that ended by its own timer (lock_timeout,
// statement_timeout) while its holders slept is not shortened by a late start: 0, as for a step
// never seen waiting.
int64_t LateStartUs(const TrialResult& result, const StepEvent& waiter);

}  // namespace racelab
