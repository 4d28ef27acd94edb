// Internal to harness/loader: the state shared by the parts of the scenario loader while it reads
// one file (scenario_loader.cc: top level; session_parser.cc: sessions; step_parser.cc: steps;
// expect_parser.cc: outcome and expect).
// Thread-safety: one LoadContext per load; not shared.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "harness/loader/expr.h"
#include "harness/loader/expr_rules.h"
#include "harness/loader/yaml_reader.h"
#include "harness/model/scenario.h"

namespace racelab::internal {

struct LoadContext {
  LoadContext(YamlReader& r, Scenario& s) : reader(r), scenario(s) {}

  YamlReader& reader;
  Scenario& scenario;
  ParamMap defaults;  // declared params -> default text

  // Where each barrier is first listed and which roles list it (for the "missing partner" check).
  struct BarrierUse {
    std::string name;
    YAML::Mark mark;
    std::string path;
    std::vector<size_t> roles;
  };
  std::vector<BarrierUse> barriers;
  std::unordered_map<std::string, size_t> barrier_index;  // name -> index in `barriers`
  bool barriers_incomplete = false;  // a session's steps had errors: skip the barrier checks

  // await_blocked / terminate targets, checked once every role is known.
  struct TargetUse {
    std::string target;
    YAML::Mark mark;
    std::string path;
    size_t role = 0;
  };
  std::vector<TargetUse> targets;

  // Each session's count evaluated with the param defaults (nullopt when it did not evaluate).
  std::vector<std::optional<long>> role_counts;
};

// Records where `ref` was written in Scenario::field_locs (under `ref.path`).
void RememberLoc(LoadContext& ctx, const Ref& ref);

// Reads an Expr: every ${name} must be a declared param, and it must evaluate under `rule` with the
// param defaults. Errors are reported at `ref`.
std::optional<Expr> ReadExpr(LoadContext& ctx, const Ref& ref, NumberRule rule);

// Checks that every ${name} in `text` is a declared param or, when `captures` is given, a value
// captured by an earlier step of the same session. Errors are reported at `ref`.
bool CheckReferences(LoadContext& ctx, const Ref& ref, const std::string& text,
                     const std::vector<std::string>* captures);

// session_parser.cc: reads `sessions` into ctx.scenario.sessions.
void ReadSessions(LoadContext& ctx, const Ref& ref);

// exec_parser.cc: a session's `exec` (the program, found on PATH or from the file's folder) and
// `pauses`, into `session` with its kProgram steps; errors at the field, as elsewhere.
void ReadExec(LoadContext& ctx, const Fields& fields, SessionSpec& session);

// session_checks.cc: once every session is read, checks barriers (each met by at least two session
// instances, listed equally often and in the same order by the roles that share it) and
// await_blocked/terminate targets.
void CheckSessionLinks(LoadContext& ctx);

// step_parser.cc: reads one session's `steps` list. `role` indexes ctx.scenario.sessions.
std::vector<Step> ReadSteps(LoadContext& ctx, const Ref& ref, size_t role);

// probe_parser.cc: a `probe` step's SQL (its value; it may use the session's earlier `captures`)
// and its `equals` (params only) and `timeout_ms`; `item` is the step's mapping, for the
// missing-equals error.
void ReadProbeValue(LoadContext& ctx, const Ref& ref, const std::vector<std::string>& captures,
                    Step& step);
void ReadProbeFields(LoadContext& ctx, const Ref& item, const Fields& fields, Step& step);

// timing_parser.cc: `expect.timing` (REQUIRES: sessions have been read), and the keys `instances`
// and `wait_event` of one `expect.blocked` entry.
std::optional<std::vector<TimingSpec>> ReadTiming(LoadContext& ctx, const Ref& ref);
void ReadBlockedCounts(LoadContext& ctx, const Fields& fields, BlockedSpec& out);

// expect_parser.cc: `outcome` and `expect`; REQUIRES: sessions have been read.
void ReadOutcome(LoadContext& ctx, const Ref& ref);
// ReadExpect also checks that every level in ctx.scenario.isolation is left with a check (REQUIRES:
// isolation has been read). ReportNoExpect reports a file without `expect`.
void ReadExpect(LoadContext& ctx, const Ref& ref);
void ReportNoExpect(LoadContext& ctx, const Ref& top);
// An `expect` mapping with its `at:` levels into *expect / *expect_at (and where each level was
// written); false when `ref` is not a mapping. ReadExpect and a permutation's expect use it.
bool ReadExpectAndAt(LoadContext& ctx, const Ref& ref, ExpectSpec* expect,
                     std::map<IsolationLevel, ExpectSpec>* expect_at,
                     std::map<IsolationLevel, Ref>* at_refs);

// expect_parser.cc, for the expect readers in other files: one expect mapping's keys (no `at`), the
// keys it allows, whether it checks anything, and references to roles and steps (an unknown one is
// reported at `ref`; ReadStepRef still returns it so that dependent checks do not report it again).
ExpectSpec ReadExpectFields(LoadContext& ctx, const Fields& f);
std::vector<std::string_view> ExpectKeys();
bool HasCheck(const ExpectSpec& e);
const SessionSpec* FindRole(const Scenario& s, const std::string& role);
std::vector<std::string> RoleNames(const Scenario& s);  // the sessions' names, in file order
std::optional<std::string> ReadStepRef(LoadContext& ctx, const Ref& ref, const SessionSpec* role);
std::optional<std::string> ReadRoleRef(LoadContext& ctx, const Ref& ref);

// expect_values.cc: a count an expectation checks — an expression, or {at_least, at_most} — one
// `errors` entry, and a final entry's `any_of` values (issue 11 items 3, 4a, 10).
std::optional<CountExpr> ReadCount(LoadContext& ctx, const Ref& ref);
void ReadError(LoadContext& ctx, const Ref& item, ErrorSpec& out);
void ReadFinalAnyOf(LoadContext& ctx, const Ref& ref, FinalCheck& out);

// expect_alternatives.cc: `one_of`, a list of at least two alternatives (issue 11 item 4b/c).
std::optional<std::vector<ExpectAlternative>> ReadOneOf(LoadContext& ctx, const Ref& ref);

// order_parser.cc: `order` into ctx.scenario.order; REQUIRES: sessions, outcome and params are
// read.
void ReadOrder(LoadContext& ctx, const Ref& ref);

// A hint for a YAML syntax error at 1-based `line` of `text`, or "".
std::string SyntaxHint(const std::string& text, int line);

// True when `code` is 5 characters from [0-9A-Z] (a SQLSTATE).
bool IsSqlState(const std::string& code);
// A SQLSTATE, or an engine's own error code of an engine in `engines` (IsOwnErrorCode,
// harness/model/engine_traits.h: a MariaDB error number "1213", a SQLite result code name
// "SQLITE_BUSY_SNAPSHOT") — what `sqlstates` and `retry.sqlstates` accept. (A PostgreSQL-only file
// keeps "4001" a typo of 40001.)
bool IsErrorKey(const std::string& code, const std::vector<std::string>& engines);
// The error for a `code` that is not IsErrorKey: what a SQLSTATE is and every engine's own codes.
std::string NotAnErrorKey(const std::string& code);
// The text at `ref` when it is "" or an error key (IsErrorKey for the scenario's engines); else an
// error at `ref` saying what a SQLSTATE is, and the text anyway. Shared by step_rows and errors.
std::string ReadErrorKey(LoadContext& ctx, const Ref& ref);
// True when `name` matches [a-z][a-z0-9_]* (role names).
bool IsRoleName(const std::string& name);
// True when `name` matches [A-Za-z][A-Za-z0-9_-]* (step and barrier names).
bool IsStepName(const std::string& name);

}  // namespace racelab::internal
