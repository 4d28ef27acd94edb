// `racelab merge a.json b.json … --out DIR`: joins the racelab.json of shard jobs (`run --shard K/N`)
// into one set of reports, written by the same reporters as `run` (every --format). Results keep the
// plan order when every input names its shard in its `command` (result i of shard K of N was plan
// result K-1 + i·N); otherwise they follow the inputs' order. Two inputs holding the same result
// (scenario × engine × isolation level × params) is a usage error; inputs from another racelab version,
// engine, server or seed are joined with a warning.
//
// Exit codes, as `run` would have exited on the joined results: 0 every expectation held, 1 one
// failed, 3 a result is `error` or an input holds results not run (its run ended early: run_error, or an
// interrupt); 2 usage (an unreadable or invalid input, named with its file and field;
// overlapping shards; a bad --format; --out not writable).
// Thread-safety: main thread only.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "harness/model/stop_flag.h"

namespace racelab::compare {

struct MergeArgs {
  std::vector<std::string> inputs;
  std::string out = "racelab-reports";
  std::string formats = "console,json,md,junit,html";
  std::string command_line;  // for the joined report's `command` (already redacted by the caller)
  const StopFlag* stop = nullptr;  // SIGINT/SIGTERM end reading the inputs (exit 130/143)
};

CLI::App* AddMergeSubcommand(CLI::App& app, MergeArgs* args);

int MergeCommand(const MergeArgs& args);

}  // namespace racelab::compare
