// `racelab bench SCENARIO…`: each scenario's rounds as a workload (docs/bench.md) per engine ×
// isolation level × client count, K repeats each, in an open loop at a fixed arrival rate (default)
// or a closed loop; a console table on stdout and bench.json in --out.
//
// Orchestration only: the plan is `run`'s (run_plan.h), the workload model and driver are
// harness/workload/, the output is bench_output.h. One engine's server at a time, as `run` does.
// Exit codes (exit_codes.h "bench"): 0 measured, every claim invariant held · 1 a double claim (the
// invariant failed) · 2 usage or scenario-file error · 3 database/connection error · 130/143
// interrupted (the cells measured so far are written).
// Thread-safety: main thread.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "harness/cli/app.h"
#include "harness/model/stop_flag.h"

namespace racelab::cli {

struct BenchArgs {
  RunArgs run;  // selection, --isolation, --set, --engine, --dsn, timeouts, --quiet, confinement
  std::string clients = "1,2,4";
  double rate_per_s = 200;  // --rate: transactions/s over all clients (open loop)
  bool closed = false;      // --closed
  double duration_s = 5;
  double warmup_s = 1;
  int repeats = 3;
  std::string formats = "console,json";
  std::string out = "racelab-bench";
};

// Adds `bench` to `app`; `scenario_dir` is the shared --scenarios value.
CLI::App* AddBenchSubcommand(CLI::App& app, BenchArgs* args, std::string* scenario_dir);
int BenchCommand(BenchArgs args, const StopFlag* stop);

}  // namespace racelab::cli
