// StepView: what step mode shows (docs/step.md) — one walk of one plan item, per session: its next
// step and SQL, its last result, its state (idle / in transaction / running / waiting for <session>
// (<lock type>), taken live from the monitor's kWaiting events), plus the locks held and awaited
// after the last step (as a diff from the look before) and the wait-for graph. StepViewModel folds
// a trial's events (harness/run/trial_events.h) into it; the terminal view and the transcript only
// render a StepView.
//
// Thread-safety: StepView is a plain value. StepViewModel is not thread-safe: its owner
// (StepSession, step_session.h) calls it under its own lock.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "harness/engine/wait_monitor.h"
#include "harness/model/connection_id.h"
#include "harness/model/plan.h"
#include "harness/run/trial_events.h"

namespace racelab::step {

enum class SessionState {
  kIdle,           // between transactions
  kInTransaction,  // after BEGIN, before COMMIT/ROLLBACK ended
  kRunning,        // a step is in flight (not seen waiting)
  kWaiting,        // its statement waits on a lock: waiting_for, wait_type
  kDone,           // no step left
};
const char* SessionStateName(SessionState s);  // "idle", "in transaction", …

struct SessionView {
  std::string label;      // "a", "worker.2"
  std::string next_step;  // the name of its next step; "" when none is left (--permutation's word)
  // What a person reads for it: the scenario's name ("claim"), else what the step does ("BEGIN",
  // "UPDATE runs"; harness/model/step_label.h, as the HTML report labels steps). Also for
  // running_step and last_step below.
  std::string next_label;
  // What that step sends ("UPDATE …", "COMMIT", "barrier locked"): a ${capture} filled in once an
  // earlier step of the session captured it, the placeholder before.
  std::string next_sql;
  std::string next_ask;  // its `ask:` question (Step::ask); "" when it has none
  bool at_gate = false;  // held at the gate: a key runs it
  SessionState state = SessionState::kIdle;
  bool in_transaction = false;       // also while running/waiting inside one
  std::string running_step;          // the step in flight ("" when none)
  std::string running_label;         // … its label
  std::string running_what;          // … what it does ("await_blocked b", the SQL as sent)
  std::string waiting_for;           // kWaiting: the holders, comma-joined ("a")
  std::string wait_type;             // kWaiting: the engine's lock type ("transactionid")
  int64_t waiting_since_us = -1;     // kWaiting: when the first wait event arrived (trial µs)
  int64_t waiting_seen_wall_us = 0;  // … and when it was folded, µs since the Unix epoch
  std::string last_step;             // the last step that ended
  std::string last_label;            // … its label
  std::string last_result;  // "1 row: 1", "COMMIT", "ERROR 40001 serialization_failure: …"
};

struct LockLine {
  std::string session;  // label, "racelab:monitor", "(other)"
  std::string lock_type, mode, object;
  bool granted = false;
  char change = ' ';  // '+' new since the look before, '-' gone since, ' ' as before
};

struct WaitEdge {
  std::string waiter, holder, lock_type;
};

// A statement the teacher typed (docs/step.md ":"; StepSession::RunTyped).
struct TypedView {
  std::string who;  // "teacher" (its own connection) or a session's label; "" = none yet
  std::string sql;  // one line
  bool running = false;
  std::string waiting_for;  // running and waiting on a lock: the holders ("a"), or "?"
  std::string wait_type;    // … the engine's lock type ("transactionid")
  std::string result;       // ended: "1 row (status): queued", "ERROR 42601 syntax_error: …"
};

// "Predict, then watch" (docs/step.md): a step's `ask:` question, before the step runs (StepView::
// ask_next) and, once it ran, with what happened (StepView::asked).
struct AskView {
  std::string session;     // the asked step's session (label); "" when there is no question
  std::string step;        // the step's name ("claim")
  std::string step_label;  // its label (SessionView::next_label)
  std::string question;
  // StepView::asked: what happened from the step's start until the next key released a step, one
  // line per session that changed, the asked one first: "b is waiting for a (transactionid)", "b
  // is running UPDATE runs", "b: claim → 0 rows (after waiting for a)", "a: COMMIT".
  std::vector<std::string> answer;
};

struct StepView {
  enum class Phase { kStarting, kRunning, kFinished, kFailed };
  int walk = 0;  // 1 for the first walk, +1 for each Reset()
  Phase phase = Phase::kStarting;
  std::string message;  // kFinished/kFailed: how the walk ended
  std::string engine;
  std::string scenario;
  std::string isolation;
  std::vector<SessionView> sessions;  // in PlanItem::sessions order
  std::string next_session;           // the session Next() runs now ("" when none is known)
  std::vector<LockLine> locks;        // the last look, with the locks gone since the one before
  std::string locks_after;            // when it was taken: "after b.claim", "while b waits"
  std::string locks_note;       // why there are no locks to show, or what the lock view cannot show
                                // (LockSnapshot::note); "" when it shows them all
  std::vector<WaitEdge> waits;  // who waits on whom now
  // The question of the step Next() runs now, when it has one (StepSession::view fills it).
  AskView ask_next;
  // The last step with a question that ran, and what happened, from its start until the next key
  // releases a step (then cleared; after the walk's last step it stays).
  AskView asked;
  std::vector<std::string> transcript;  // every line so far, isolationtester-style
  double reset_ms = -1;                 // the last Reset(): until the new walk's first held step
  TypedView typed;                      // the walk's last typed statement
  std::vector<std::string> levels;      // the isolation levels `l` switches between
  uint64_t version = 0;                 // +1 on every change
};

class StepViewModel {
 public:
  // `engine`: the engine's name (error names, ErrorKeyWithName); `describe[s][k]`: what step k of
  // session s sends, for next_sql and the transcript.
  StepViewModel(const PlanItem& item, std::string engine,
                std::vector<std::vector<std::string>> describe, int walk);

  // A new trial's connections: whose session id is whose (ConnectionId -> label); `monitor`:
  // racelab's monitor connection; `locks_note`: "" when the engine can list locks.
  void SetConnections(std::map<ConnectionId, std::string> labels, ConnectionId monitor,
                      const std::string& locks_note);
  // Folds one event; true when the view changed.
  bool Fold(const TrialEvent& e);
  // A look at the locks taken outside the stream (step_session.h: while a session waits).
  void FoldLocks(const LockSnapshot& snapshot, const std::string& when);
  void Finish(StepView::Phase phase, const std::string& message);
  // Every session is at the gate, waiting on a lock or on its partners (barrier, await_*), or
  // done — or the walk is over: nothing more happens until a key.
  bool Quiet() const;
  // kGateReleased events seen for session `s` (-1: all sessions).
  int Releases(int s) const;

  const StepView& view() const { return view_; }
  StepView& mutable_view() { return view_; }

 private:
  struct Track {
    size_t next = 0;         // index of the next step to start
    int running = -1;        // index of the step in flight
    int64_t started_us = 0;  // when it started
    bool announced_wait = false;
    int releases = 0;
    int results = 0;              // steps that ended with a result shown (last_result)
    std::string last_waited_for;  // the holders the last ended step waited for ("" none)
    std::map<std::string, std::string> captured;  // its steps' captures so far (name -> value)
  };
  // The question asked (AskView) while it is open: from the asked step's start to the next
  // release of the gate. `results_before`: each session's Track::results at its start.
  struct Asked {
    size_t session = 0;
    bool open = false;
    std::vector<int> results_before;
    std::vector<std::string> waiting_before;  // each session's waiting_for at its start
  };
  std::string LabelOf(int64_t id) const;
  std::string Label(size_t s, size_t k) const;  // step k of session s, for a person
  std::string Sends(size_t s, size_t k) const;  // describe_[s][k], captures filled in
  void OpenAsk(size_t s, size_t k);
  void AnswerAsk();  // refreshes view_.ask.answer while the question is open
  bool HolderStillHolds(const SessionView& waiter) const;
  void Refresh(size_t s);  // next_step/next_sql/state of session s
  void OnEnded(size_t s, const StepEvent& ev);
  std::string ResultText(const StepEvent& ev) const;
  void Changed();  // +1 version; refreshes an open question's answer

  const PlanItem& item_;
  const std::vector<std::vector<std::string>> describe_;
  std::vector<Track> tracks_;
  std::map<ConnectionId, std::string> labels_;
  ConnectionId monitor_;
  std::vector<LockLine> last_locks_;  // the look before, without the '-' lines
  Asked asked_;
  StepView view_;
};

// One line of `sql`: whitespace runs folded to one space, cut at `max` code points with "…".
std::string OneLine(const std::string& sql, size_t max = 1000);

}  // namespace racelab::step
