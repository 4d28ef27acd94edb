// The step kinds in one table: for each StepKind, its key in a scenario file, its name in the
// reports (racelab.json "kind", the timeline) and the properties the stages ask of it.
//
// A new kind is one enum value in scenario.h plus one row here; the compiler then points at every
// switch over StepKind that must handle it (they have no `default`, so -Wswitch names each one).
// Read by: the loader (file keys and the modifiers each kind takes), the lock-wait attribution
// (which steps can wait on a lock), the reporters (names, the timeline's wait bars) and `racelab
// compare`'s report reader. Thread-safety: constant data.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

#include "harness/model/scenario.h"

namespace racelab {

struct StepKindInfo {
  StepKind kind;
  // The key that introduces the step in a scenario file (docs/scenario-format.md "Steps").
  std::string_view file_key;
  // The kind's name in the reports and racelab.json (docs/report-schema.md). Differs from file_key
  // only for sleep: the file says how long ("sleep_ms: 500"), the report names the act ("sleep").
  std::string_view report_name;
  // The file key takes a value ("sql: UPDATE …", "barrier: b1"); begin/commit/rollback take none.
  bool takes_value;
  // The step sends a statement on the session's own connection (BEGIN, the SQL, COMMIT, ROLLBACK).
  bool sends_sql;
  // A lock wait seen while the step runs is attributed to it (harness/run/lock_waits.cc). BEGIN and
  // ROLLBACK take no heavyweight lock, so a slow poll that straddles "BEGIN; UPDATE …" is never
  // pinned on the BEGIN; terminate runs on the monitor's connection, not the session's.
  bool may_wait_on_lock;
  // A wait the engine recorded itself with its exact start (ServerWaitLog) may be this step's: the
  // steps above, and BEGIN — SQLite's BEGIN IMMEDIATE takes the write lock and waits for it in the
  // busy handler (docs/sqlite.md). A polled observation is never pinned on a BEGIN.
  bool may_wait_recorded;
  // The session waits without sending anything: for a time (sleep), for its partners (barrier), for
  // another session to be seen in a lock wait (await_blocked) or to be ended by the server
  // (await_ended). The timeline draws it as a wait.
  bool is_wait;
};

// In the order the scenario-format docs list them (the loader's "expected one of" follows it).
inline constexpr std::array<StepKindInfo, 11> kStepKinds = {{
    // kind                   file_key         report_name      value  sql    lock   recorded wait
    {StepKind::kBegin, "begin", "begin", false, true, false, true, false},
    {StepKind::kSql, "sql", "sql", true, true, true, true, false},
    {StepKind::kBarrier, "barrier", "barrier", true, false, false, false, true},
    {StepKind::kSleep, "sleep_ms", "sleep", true, false, false, false, true},
    {StepKind::kAwaitBlocked, "await_blocked", "await_blocked", true, false, false, false, true},
    {StepKind::kAwaitEnded, "await_ended", "await_ended", true, false, false, false, true},
    {StepKind::kTerminate, "terminate", "terminate", true, false, false, false, false},
    {StepKind::kCommit, "commit", "commit", false, true, true, true, false},
    {StepKind::kRollback, "rollback", "rollback", false, true, false, false, false},
    // A probe runs on racelab's control connection, not the session's: it sends nothing on the
    // session's
    // connection, and a wait seen on the session is never its own.
    {StepKind::kProbe, "probe", "probe", true, false, false, false, false},
    // A stretch of an exec session's program (no file key: the loader makes these steps). The
    // program's statements run on a connection of its own, which the monitor does not watch yet.
    {StepKind::kProgram, "", "program", false, false, false, false, false},
}};

// The number of rows `kind` has in kStepKinds. The switch has no default on purpose: a new StepKind
// is a -Wswitch warning here (an error in CI), which leads whoever adds it to this table.
constexpr int RowsOf(StepKind kind) {
  switch (kind) {
    case StepKind::kBegin:
    case StepKind::kSql:
    case StepKind::kBarrier:
    case StepKind::kSleep:
    case StepKind::kAwaitBlocked:
    case StepKind::kAwaitEnded:
    case StepKind::kTerminate:
    case StepKind::kCommit:
    case StepKind::kRollback:
    case StepKind::kProbe:
    case StepKind::kProgram:
      break;
  }
  int rows = 0;
  for (const StepKindInfo& info : kStepKinds) rows += info.kind == kind ? 1 : 0;
  return rows;
}

constexpr bool EveryStepKindOnce() {
  for (const StepKindInfo& info : kStepKinds) {
    if (RowsOf(info.kind) != 1) return false;
  }
  return true;
}
static_assert(EveryStepKindOnce(), "kStepKinds must have exactly one row per StepKind");

constexpr const StepKindInfo& InfoOf(StepKind kind) {
  for (const StepKindInfo& info : kStepKinds) {
    if (info.kind == kind) return info;
  }
  return kStepKinds[0];  // unreachable: every kind has a row (RowsOf)
}

// The kind whose report name is `name`, or nullopt (a report from another racelab version).
constexpr std::optional<StepKind> StepKindFromReportName(std::string_view name) {
  for (const StepKindInfo& info : kStepKinds) {
    if (info.report_name == name) return info.kind;
  }
  return std::nullopt;
}

}  // namespace racelab
