// The racelab command line: `racelab list | explain | run` (CLI11). main() only calls Main().
//
// Exit codes (README "Exit codes"): 0 every expectation held · 1 an expectation failed · 2 usage or
// scenario-file error (including scenario SQL that cannot run, SQLSTATE class 42) · 3
// database/connection error or a deadline passed · 130/143 interrupted by SIGINT/SIGTERM (reports
// of what ran are still written; nothing is left behind).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/compare/run_gate.h"
#include "harness/model/stop_flag.h"

namespace racelab::cli {

struct RunArgs {
  std::vector<std::string> selectors;  // names, files, folders; empty: the whole catalogue
  std::vector<std::string> tags;
  std::string isolation;  // "" (scenario defaults) | "all" | "rc,rr,ser" | full names
  int trials = 20;
  std::vector<std::string> set;   // k=v
  std::string dsn;                // the first --dsn ("" for none)
  std::vector<std::string> dsns;  // every --dsn, in order: at most one per engine
  std::string engine;             // --engine: "" = the DSN's, else postgresql
  std::string pg_bindir;
  std::string out = "racelab-reports";
  bool out_given = false;  // --out was on the command line (a spec run refuses it)
  std::string formats = "console,json,md,md-summary,junit,html";
  std::string details =
      "failed";  // --details: none | failed | all (harness/eval/result_accumulator.h)
  uint64_t seed = 0;
  long statement_timeout_ms = 30000;
  long trial_timeout_ms = 120000;
  long connect_timeout_ms = 5000;
  bool quiet = false;
  bool no_confine = false;       // run scenario SQL as the --dsn role itself
  bool allow_superuser = false;  // accept a --dsn that connects as a superuser
  std::string command_line;      // for the report, password redacted
  compare::RunGateArgs gate;     // --shard, --baseline, --alpha, --timing (docs/compare.md)
  std::vector<std::string>
      permutations;  // --permutation: of ordered scenarios, only these (number or name)
};

int Main(int argc, char** argv);
int RunCommand(const RunArgs& args, const StopFlag* stop);
// `stop` ends loading early: the commands then return 128 + the signal number (130, 143).
int ListCommand(const std::vector<std::string>& tags, const StopFlag* stop);
int ExplainCommand(const std::string& name, const StopFlag* stop);
// Drops racelab_<pid>_<n> schemas left on `dsn` by a run killed with SIGKILL (only when no racelab
// runs against that server) and removes orphaned embedded clusters. `dry_run` only lists them.
int CleanCommand(const std::string& dsn, long connect_timeout_ms, bool dry_run);

// Exit code of a usage error after printing "racelab: <message>" to stderr.
int UsageError(const std::string& message);

// 128 + the signal that requested `stop` (SIGINT when none was recorded).
int InterruptedExitCode(const StopFlag* stop);

}  // namespace racelab::cli
