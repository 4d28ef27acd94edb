// The CI options of `racelab run`: --shard K/N (shard.h) and --baseline FILE (compare_command.h),
// kept here so that run_command.cc only calls three functions.
//
// Order in a run: PrepareRunGate before anything runs (a bad --shard or an unreadable/invalid
// baseline exits 2 at once), KeepShard on the plan's items, FinishRunGate after the reports are
// written. Exit codes: docs/compare.md "run --baseline FILE". Thread-safety: main thread only.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/compare/compare_command.h"
#include "harness/compare/report_view.h"
#include "harness/compare/shard.h"
#include "harness/model/plan.h"
#include "harness/model/status.h"
#include "harness/model/summary.h"

namespace racelab::compare {

struct RunGateArgs {
  std::string shard;     // "K/N" or empty
  std::string baseline;  // a racelab.json or empty
  CompareArgs compare;   // --alpha, --timing
};

struct RunGate {
  std::optional<Shard> shard;
  std::optional<ReportView> baseline;
  CompareArgs compare;
};

// Registers --shard, --baseline, --alpha and --timing on `run`.
void AddRunGateOptions(CLI::App* run, RunGateArgs* args);

// Parses --shard and reads the baseline. kUsage on any problem (the message names the file/option).
// `stop`: SIGINT/SIGTERM end reading the baseline (then stop->stop_requested() is true).
Result<RunGate> PrepareRunGate(const RunGateArgs& args, const StopFlag* stop = nullptr);

// Keeps the items of `shard` (InShard on plan order), when there is one; notes the split on stderr
// unless `quiet`. With a baseline too, the baseline's results that belong to the other shards (same
// scenario, engine, level and params as an item left out) are dropped from it, so that the
// comparison judges this shard's results only and does not warn of the others as missing.
void KeepShard(RunGate* gate, std::vector<PlanItem>* items, bool quiet);

// Without a baseline: returns `run_exit`. With one: the run's own 2, 3 and 128+ come first;
// otherwise compares `report` with the baseline, writes the comparison (console to stdout, md/junit
// files to `out` when in `formats`) and returns 0 (no regression) or 1.
int FinishRunGate(const RunGate& gate, const RunReport& report, const std::string& formats,
                  const std::string& out, int run_exit);

}  // namespace racelab::compare
