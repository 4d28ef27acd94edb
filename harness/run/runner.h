// Runner: runs the trials of a PlanItem through an Engine (stage 3; docs/architecture.md). It never
// prints, and it knows no engine: everything server-specific is behind harness/engine/engine.h.
//
// Per PlanItem: a control session, one session per session instance, and a wait monitor (all
// labelled "racelab:<label>" where the server shows it), and one workspace of its own
// (Engine::WorkspaceName), dropped at the end — racelab touches nothing else on the server. The
// engine's run lock is held before the first workspace is made. With
// Capabilities::workspace_reset_in_background it has two workspaces and two control sessions, used
// in turn: the next trial's is emptied and set up while this trial's final checks run
// (item_session.h).
// Per trial: every session starts clean (Session::StartClean, all at once; on PostgreSQL sent once
// the trial before is over, final checks and teardown included, and collected after the workspace
// is ready: item_session.h), the workspace is emptied, `setup` runs, one thread per session
// (Boost.Thread) starts in an order permuted by the seed, they meet at barriers and are joined with
// the trial deadline, then the `final` queries and `teardown` run on the control session. A session
// lost to something outside the scenario makes the trial an error (faults.h). A lost worker session
// is reopened for the next trial. Everything waits with a deadline (RunOptions), then cancels, then
// reports. Each trial has a step gate (RunOptions::gate, step_gate.h) that says when each step may
// start, a clock a gate may pause (trial_clock.h), and an event stream (trial_events.h) that
// RunOptions::subscriber watches live; the trial's step record is that stream folded.
// Thread-safety: a Runner runs one PlanItem at a time, from one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "harness/engine/engine.h"
#include "harness/model/plan.h"
#include "harness/model/status.h"
#include "harness/model/stop_flag.h"
#include "harness/model/trial_result.h"
#include "harness/run/step_gate.h"
#include "harness/run/trial_events.h"

namespace racelab {

struct RunOptions {
  Engine* engine = nullptr;           // where the trials run; outlives the Runner
  long statement_timeout_ms = 30000;  // deadline of one statement or wait (then it is cancelled)
  long trial_timeout_ms = 120000;     // deadline of one whole trial
  long connect_timeout_ms = 10000;    // deadline of one connection attempt
  std::chrono::microseconds monitor_poll{2000};  // the monitor's poll interval
  uint64_t seed = 0;               // permutes the order in which worker threads are started
  const StopFlag* stop = nullptr;  // may be null
  // Each trial's step gate (step_gate.h); null: MakeDefaultGate (ordered items ordered, the rest
  // free).
  GateFactory gate;
  // Longest a gate may hold one step on purpose (a paused trial, trial_clock.h); a race's own waits
  // keep statement_timeout_ms.
  long gate_hold_timeout_ms = 3600000;
  // Sees every event of every trial as it happens (trial_events.h), on the publishing thread; may
  // be empty.
  TrialEvents::Subscriber subscriber;
  // After each step, publish the locks every session holds and awaits (kLockSnapshot) where the
  // engine's monitor can list them (WaitMonitor::CanSnapshotLocks: PostgreSQL). Off by default: the
  // extra look runs between steps, while the race is on.
  bool lock_snapshots = false;
  // Asked before each trial after the first: false ends the item there, OK, as if it had only that
  // many trials (a benchmark's duration, harness/workload/). Empty: every one of PlanItem::trials.
  // Called on the runner's thread.
  std::function<bool(int next_trial)> more_trials;
};

// Called after each trial, from the runner's thread (the CLI prints progress with it).
using TrialCallback = std::function<void(const PlanItem& item, const TrialResult& trial)>;

class Runner {
 public:
  explicit Runner(RunOptions options);
  ~Runner();

  // Runs every trial of `item`, appending to *trials (nullptr: each trial is only given to
  // `on_trial`, and not kept). Returns non-OK (kDatabase) when the item could not go on — the
  // server cannot be reached, setup failed, or a stop was requested — with the trials run so far
  // kept in *trials. A stop request's status says where it cut the item: "interrupted before trial
  // 4 of 20" or "interrupted during trial 4 of 20; that trial is not evaluated". A failed trial
  // (lost connection, deadline) is recorded in its TrialResult::error and the item goes on. Once
  // the server has stopped answering (an item failed and the run-lock session gets no answer within
  // the connect deadline), later items fail at once without waiting for the server again.
  Status RunItem(const PlanItem& item, std::vector<TrialResult>* trials,
                 const TrialCallback& on_trial = nullptr);

 private:
  Status RunItemOnce(const PlanItem& item, std::vector<TrialResult>* trials,
                     const TrialCallback& on_trial);
  bool stopped() const;  // a stop was requested
  static Status Interrupted(int trial,
                            const PlanItem& item);  // "interrupted before trial trial+1 of N"

  RunOptions options_;
  bool server_lost_ = false;
  int item_counter_ = 0;
  bool wait_log_opened_ = false;
  std::unique_ptr<ServerWaitLog> wait_log_;  // the engine's, opened at the first item (may be null)
};

}  // namespace racelab
