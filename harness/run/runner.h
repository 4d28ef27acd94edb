// Runner: runs the trials of a PlanItem against a PostgreSQL server (stage 3). It never prints.
//
// Per PlanItem: a control connection, one connection per session instance, and a monitor connection
// (all with application_name "racelab:<label>"), and one schema of its own,
// racelab_<pid>_<run id>_<n> (quoted), dropped at the end — racelab touches nothing else on the
// server. The Runner's run lock (harness/run/run_lock.h) is held before the first schema is made.
// Per trial: every session connection starts clean (DISCARD ALL, then search_path and the session's
// `settings`; session_reset.h), DROP/CREATE the schema, run `setup`, start one thread per session
// (Boost.Thread) in an order permuted by the seed, meet at barriers, join with the trial deadline, then
// run the `final` queries and `teardown` on the control connection. A session lost to something
// outside the scenario makes the trial an error (faults.h). A lost worker connection is reopened for
// the next trial. Everything waits with a deadline (RunOptions), then cancels, then reports.
// Thread-safety: a Runner runs one PlanItem at a time, from one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "harness/model/plan.h"
#include "harness/model/status.h"
#include "harness/model/trial_result.h"
#include "harness/run/run_lock.h"
#include "harness/run/stop_flag.h"

namespace racelab {

class ServerLog;  // harness/pg/server_log.h

struct RunOptions {
  std::string conninfo;                 // libpq key=value or URI; PG* environment applies
  long statement_timeout_ms = 30000;    // deadline of one statement or wait (then PQcancel)
  long trial_timeout_ms = 120000;       // deadline of one whole trial
  long connect_timeout_ms = 10000;      // deadline of one connection attempt
  std::chrono::microseconds monitor_poll{2000};  // the monitor's poll interval
  uint64_t seed = 0;                    // permutes the order in which worker threads are started
  const StopFlag* stop = nullptr;       // may be null
  // Confinement (harness/run/scenario_role.h): when set, `conninfo` logs in as `scenario_role` and each
  // item's schema is created (AUTHORIZATION scenario_role) and dropped over `admin_conninfo`.
  std::string admin_conninfo;
  std::string scenario_role;
  // The server's jsonlog file, readable by racelab (the embedded cluster's); empty: lock waits come
  // from the monitor's polls only (docs/lock-waits.md).
  std::string server_log_path;
};

// Called after each trial, from the runner's thread (the CLI prints progress with it).
using TrialCallback = std::function<void(const PlanItem& item, const TrialResult& trial)>;

class Runner {
 public:
  explicit Runner(RunOptions options);
  ~Runner();

  // Runs every trial of `item`, appending to *trials. Returns non-OK (kDatabase) when the item could
  // not go on — the server cannot be reached, setup failed, or a stop was requested — with the trials
  // run so far kept in *trials. A failed trial (lost connection, deadline) is recorded in its
  // TrialResult::error and the item goes on. Once the server has stopped answering (an item failed
  // and the run-lock session gets no answer within the connect deadline), later items fail at once
  // without waiting for the server again.
  Status RunItem(const PlanItem& item, std::vector<TrialResult>* trials,
                 const TrialCallback& on_trial = nullptr);

  // Prefix of the schemas this process creates: "racelab_<pid>_<run id>_" (tests check none is
  // left).
  static std::string SchemaPrefix();

 private:
  Status RunItemOnce(const PlanItem& item, std::vector<TrialResult>* trials, const TrialCallback& on_trial);
  const std::string& LockConninfo() const;

  RunOptions options_;
  RunLock run_lock_;
  bool server_lost_ = false;
  int item_counter_ = 0;
  std::unique_ptr<ServerLog> server_log_;  // opened at the first item when server_log_path is set
};

}  // namespace racelab
