// A scenario's `reset:` and how racelab keeps it honest (docs/scenario-format.md "reset").
//
// With `reset:` declared and an engine that can read a workspace's state
// (Engine::CanCheckWorkspace), a workspace is set up fresh once — emptied, `setup`, then its state
// and version read on a checker session of its own: the baseline. Before each later trial there the
// control session runs `reset:` and the checker reads the version (one round trip each); when the
// version differs from the last one read with the baseline's state, or cannot be read (DDL dropped
// or changed a table it reads), the state is read too. The trial runs there only when the state
// equals the baseline, object by object; otherwise the run stops with a scenario error naming what
// differs. A fresh workspace (emptied, `setup`, a new baseline) is used instead of the reset every
// kFreshWorkspaceEvery trials of a workspace, after a trial that ended in an error or past its
// deadline, and when the reset or a state read fails for any reason other than the scenario's SQL
// (a lost connection, a deadline). Thread-safety: pure functions.
#pragma once

#include <string>

#include "harness/engine/session.h"

namespace racelab::internal {

// A workspace is set up fresh at least every this many of its trials (bounds what a long run of
// resets accumulates below the compared state: dead row versions, table and index bloat).
inline constexpr int kFreshWorkspaceEvery = 50;

// "" when `now` has the same (object, state) rows as `baseline`; otherwise what differs, e.g.
// "relation tick differs; relation extra is new; function f() is gone" (at most three named, then
// "and N more"). Both are Engine::ReadWorkspaceState results (rows of two text columns).
std::string StateDifference(const QueryResult& baseline, const QueryResult& now);

}  // namespace racelab::internal
