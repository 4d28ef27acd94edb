// Plan: a Scenario expanded for one run (stage 2): parameters substituted, expressions evaluated,
// sessions expanded by `count`, expectations merged for the isolation level.
//
// Filled by: the planner (harness/loader/planner.h). Read by: the runner, the evaluator, reporters.
// Thread-safety: plain values; immutable while a run is in progress (workers read them
// concurrently).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/model/count_range.h"
#include "harness/model/isolation.h"
#include "harness/model/scenario.h"

namespace racelab {

struct PlannedStep {
  StepKind kind = StepKind::kSql;
  std::string name;
  std::string sql;  // params substituted; ${capture} references remain for run time
  std::vector<std::string> capture;
  std::string when;
  OnError on_error = OnError::kAbort;
  std::string barrier;
  long sleep_ms = 0;
  std::string target;   // role name
  long timeout_ms = 0;  // 0: use RunOptions::statement_timeout_ms
  // kProbe: the rows it must read (Step::equals, params substituted); read_rows is one more.
  std::vector<std::string> equals;
  // Rows of its result to keep in StepEvent::read (an `expect.reads` names the step); 0: none.
  int read_rows = 0;
  // kBegin: its own level (else the item's) and modes: BEGIN … READ ONLY, DEFERRABLE.
  std::optional<IsolationLevel> isolation;
  bool read_only = false;
  bool deferrable = false;
  // Step::ask, params substituted; "" when none. Only step mode reads it.
  std::string ask;
  // Ordered items (PlanItem::order_entries, harness/run/order_gate.h): this step is permutation
  // entry `order_entry`; before it starts, entry `await_entry` (the one before it in the
  // permutation, when another session's) must have ended or be seen waiting (or only started, when
  // it is marked `(*)`), and every entry in `await_ended` must have ended (markers `(other)` of its
  // session's previous entry). -1 / empty: none.
  int order_entry = -1;
  int await_entry = -1;
  std::vector<int> await_ended;
};

// One entry of an ordered item's permutation.
struct PlannedOrderEntry {
  std::string session;  // role (one instance) of the step
  std::string step;     // that step's name
  bool once = false;    // `(*)`: the step after it may start once it started
};

struct PlannedRetry {
  std::vector<std::string> on;
  int attempts = 1;
  long initial_ms = 50;
  double factor = 2.0;
  long cap_ms = 1000;
};

struct PlannedSession {
  std::string role;   // "worker"
  int index = 1;      // 1-based instance within the role
  std::string label;  // "worker" when the role has one instance, else "worker.1", "worker.2", …
  // The role's `node:` (SessionSpec::node): "" = the engine's default node; `node_loc` and
  // `node_field` ("sessions[1].node") are where the file names it, for the error when the engine
  // has no such node (harness/loader/node_check.h).
  std::string node;
  SourceLoc node_loc;
  std::string node_field;
  std::vector<std::pair<std::string, std::string>> settings;
  std::optional<PlannedRetry> retry;
  std::vector<PlannedStep> steps;
  // An exec session (SessionSpec::exec): its argv as written, the program found (absolute) and its
  // working directory; `steps` are then its kProgram stretches, a pause step's `barrier` the
  // pause point (met by every instance that lists it; empty in an ordered item). Empty: steps.
  std::vector<std::string> exec;
  std::string program;
  std::string exec_dir;
};

struct PlannedOutcome {
  std::string win_step;
  long win_rows = 1;
  bool win_committed = true;
  std::string claim_step;
  std::string claim_column;
};

struct PlannedBlocked {
  std::string session;  // role
  std::string step;
  std::optional<double> min_ms;
  std::optional<double> max_ms;
  std::string by;
  std::optional<long>
      instances;           // of the role's instances, exactly this many meet the entry; unset: all
  std::string wait_event;  // empty: not checked
};

struct PlannedTiming {
  std::string session;  // role
  std::string step;
  std::string after_session;  // the reference step's role (one instance) and step; empty: none
  std::string after_step;
  std::optional<double> min_ms;
  std::optional<double> max_ms;
  std::optional<bool> waited;
};

struct PlannedStepRows {
  std::string step;
  long rows = 0;
  CountRange sessions;
  std::string sqlstate;  // set: count the sessions whose step failed with it, not rows
};

struct PlannedRead {
  std::string session;  // role; empty: every session that has the step
  std::string step;
  std::vector<std::string> equals;
};

struct PlannedFinal {
  std::string sql;
  std::string equals;
  std::vector<std::string> any_of;  // non-empty: any of these passes instead of `equals`
};

// `errors` (ErrorSpec, harness/model/scenario.h): the sessions whose step (or session) failed so.
struct PlannedError {
  std::string session;  // role; empty: any
  std::string step;     // empty: any step of the session's last attempt
  std::string sqlstate;
  std::string message;  // ECMAScript regex, searched; empty: any
  std::string detail;
  CountRange sessions;
};

struct PlannedAlternative;

struct PlannedExpect {
  std::optional<CountRange> winners;
  std::optional<std::map<std::string, CountRange>> sqlstates;
  std::optional<bool> distinct_claims;
  std::optional<CountRange> lock_waits;
  std::vector<PlannedStepRows> step_rows;
  std::vector<PlannedBlocked> blocked;
  std::vector<PlannedRead> reads;
  std::vector<PlannedFinal> final;
  std::vector<PlannedError> errors;
  std::vector<PlannedAlternative> one_of;  // a trial passes when any holds (and every check above)
  std::vector<PlannedTiming> timing;
};

// One `one_of` alternative: its checks (no one_of of its own) and its least fraction of trials.
struct PlannedAlternative {
  std::string name;
  PlannedExpect checks;
  std::optional<double> min_fraction;  // 0..1; the result fails when it held in fewer trials
};

// Every final query a trial runs, in TrialResult::finals order: `expect.final`, then each one_of
// alternative's `final` in turn (an alternative's values are judged only within that alternative).
inline std::vector<const PlannedFinal*> AllFinalQueries(const PlannedExpect& expect) {
  std::vector<const PlannedFinal*> out;
  for (const PlannedFinal& f : expect.final) out.push_back(&f);
  for (const PlannedAlternative& alt : expect.one_of) {
    for (const PlannedFinal& f : alt.checks.final) out.push_back(&f);
  }
  return out;
}

// One scenario at one isolation level with one parameter set: run `trials` times.
struct PlanItem {
  std::string scenario;  // Scenario::name
  std::string title;
  std::string teaches;
  std::string file;
  std::vector<std::string> tags;
  std::string engine =
      std::string(kDefaultEngine);  // the engine it is planned for (Scenario::engine)
  IsolationLevel isolation = IsolationLevel::kReadCommitted;
  std::vector<std::pair<std::string, std::string>> params;  // resolved values, file order
  int trials = 20;
  std::string setup;
  std::string teardown;
  std::string reset;  // Scenario::reset, substituted; "" = a fresh workspace every trial
  std::vector<PlannedSession> sessions;  // expanded, in file order then index order
  PlannedOutcome outcome;
  PlannedExpect expect;
  // An ordered scenario's permutation (harness/loader/order_planner.h; params then hold
  // order=<its steps>): its entries, indexed by PlannedStep::order_entry/await_entry/await_ended.
  std::vector<PlannedOrderEntry> order_entries;
  // Its 1-based number in the file's `order:` (0: not ordered) and where that permutation is
  // written: what `--permutation N` selects and its errors point at.
  int permutation = 0;
  SourceLoc permutation_loc;
};

struct Plan {
  std::vector<PlanItem> items;
};

}  // namespace racelab
