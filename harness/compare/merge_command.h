// `racelab merge a.json b.json … --out DIR`: joins the racelab.json of shard jobs (`run --shard
// K/N`) into one set of reports, written by the same reporters as `run` (every --format). Results
// keep the plan order when every input names its shard in its `command` (result i of shard K of N
// was plan result K-1 + i·N); otherwise they follow the inputs' order. Two inputs holding the same
// result (scenario × engine × isolation level × params) is a usage error; inputs from another
// racelab version, engine, server or seed are joined with a warning.
//
// Merge joins; it does not judge (`racelab compare` / `run --baseline` gate). It says the merged
// verdict on stdout (MergedVerdictLine). Exit codes: 0 joined, whatever the results' verdicts (a
// `fail` or an `error` result included: each is a verdict for compare to judge); 3 the join is
// incomplete — an input's run ended early (its `run_error`: results not run) or an interrupt left
// results not run or cut short; 2 usage (an unreadable or invalid input, named with its file and
// field; overlapping shards; a bad --format; --out not writable).
// Thread-safety: main thread only.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "harness/model/stop_flag.h"
#include "harness/model/summary.h"

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

// "racelab merge: 12 results joined from 4 reports (11 pass, 1 fail); merged verdict: fail (merge
// does not gate: …)": the worst verdict by a run's precedence (error, fail, interrupted, pass), or
// "incomplete" when results did not run or an interrupt cut one short (merge then exits 3).
std::string MergedVerdictLine(const RunReport& merged, size_t inputs);

}  // namespace racelab::compare
