// `racelab convert X.spec` and `racelab run X.spec` (docs/scenario-format.md, "PostgreSQL isolation
// spec files"). Exit codes as every command (README "Exit codes"). Thread-safety: main thread only.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "harness/cli/app.h"
#include "harness/model/stop_flag.h"

namespace racelab::cli {

struct ConvertArgs {
  std::string spec;                       // the .spec file
  std::vector<std::string> permutations;  // 1-based numbers or names ("s1a s2a s1c"); empty: all
  std::string out_dir;                    // where <name>.yaml goes; empty: stdout
};

// Adds `racelab convert` to `app`.
CLI::App* AddConvertSubcommand(CLI::App& app, ConvertArgs* args);

// Writes the scenario YAML of the selected permutations (one file, `order:`). 0 on success, 2 on a
// bad spec, selection or output folder.
int ConvertCommand(const ConvertArgs& args);

// The options `racelab run` takes for spec files only.
struct SpecRunArgs {
  std::vector<std::string> permutations;  // as ConvertArgs
  std::string expected;  // compare the transcript with this file: exit 1 when it differs
  long step_timeout_ms = 300000;
  bool wait_detail = false;
};

// Adds the spec-only options to `racelab run`.
void AddSpecRunOptions(CLI::App* run, SpecRunArgs* args);

// True when `racelab run` was given spec files (selectors ending in ".spec").
bool IsSpecRun(const RunArgs& args);

// Runs the one spec file of `run` on the engine --dsn / --engine selects (the embedded PostgreSQL
// cluster by default) and prints its isolationtester transcript on stdout. 0 (with --expected: the
// transcript matched), 1 it differed, 2 bad spec, selection or options (another selector, a report
// format, an engine that cannot run specs), 3 database error or a step past twice its timeout,
// 130/143 interrupted.
int SpecRunCommand(const RunArgs& run, const SpecRunArgs& args, const StopFlag* stop);

}  // namespace racelab::cli
