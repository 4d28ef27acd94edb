// The two faces of `racelab step` (step_command.h): the transcript for a pipe and the full-screen
// view for a terminal. Both render a StepView (harness/step/step_view.h) and turn what the user
// types into StepSession operations. Thread-safety: main thread.
#pragma once

#include <functional>
#include <ostream>
#include <string>

#include "harness/model/stop_flag.h"
#include "harness/step/step_session.h"

namespace racelab::cli {

// Wakes the UI's poll() from StepSession's on_change (any thread): a self-pipe.
class Wakeup {
 public:
  Wakeup();
  ~Wakeup();
  void Notify() const;  // async-safe, never blocks
  void Drain() const;
  int fd() const { return fds_[0]; }

 private:
  int fds_[2] = {-1, -1};
};

struct StepUi {
  step::StepSession* session = nullptr;
  const StopFlag* stop = nullptr;
  const Wakeup* wakeup = nullptr;
  bool keep = false;
  // --keep: called once a walk has run every step; makes the place students connect to and
  // returns what to print (the connection string and the client's command line).
  std::function<std::string()> prepare_keep;
  // RACELAB_STEP_TRACE: a file where the screen writes, per walk, when it first drew a wait and
  // when the monitor saw it (wall-clock µs) — for the terminal test's latency figure.
  std::string trace_path;
};

// Pipe mode: each step as a transcript line (isolationtester's form), the waits and the locks
// after each step on `out`; commands from stdin lines (docs/step.md). Returns the exit code.
int RunStepPipe(const StepUi& ui, std::ostream& out);
// Terminal mode: one column per session, redrawn on every change. Returns the exit code.
int RunStepScreen(const StepUi& ui);

// What the user typed -> what to do (shared by both faces).
struct StepCommandWord {
  enum class Kind { kNext, kSession, kBack, kLevel, kTyped, kQuit, kUnknown } kind = Kind::kUnknown;
  std::string session;  // kSession; kTyped: the session to run it on ("" = the teacher's)
  std::string text;     // kLevel: the level asked for ("" = the next); kTyped: the statement
};
// Pipe: "" and "n" next, "b" back, "q" quit, a session's label or column number (1-based) or
// "n LABEL" that session, "l" the next isolation level, "l LEVEL" that one, ":SQL" typed SQL on
// the teacher's connection, ":LABEL SQL" on that session's.
StepCommandWord ParsePipeCommand(const std::string& line, const step::StepView& view);
// ":SQL" / ":LABEL SQL" (the text after the colon) -> a kTyped command.
StepCommandWord ParseTyped(const std::string& after_colon, const step::StepView& view);

}  // namespace racelab::cli
