// `racelab step SCENARIO`: a scenario walked one statement per key press (docs/step.md). The walk
// itself is harness/step/ (StepSession); this file is its command line — the plan and the engine
// opened as `racelab run` opens them (run_plan.h; the engine as engine_runs.cc does), then either
// the full-screen view (stdout and stdin a terminal: step_screen.h) or the transcript
// (step_pipe.h). Thread-safety: main thread.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "harness/model/stop_flag.h"

namespace racelab::cli {

struct StepArgs {
  std::string scenario;
  std::string engine;     // "" = postgresql
  std::string isolation;  // one level; "" = the scenario's first
  std::vector<std::string> set;
  int order = 0;            // --order N: an ordered scenario's permutation N (0: the first)
  std::string permutation;  // --permutation "a.x b.y": the order Next() follows
  bool keep = false;
  std::string web;        // --web [HOST:]PORT: serve the walk as a page (step_web.h); "" = no
  std::string web_token;  // --web-token: the page's URL carries ?token=…; needed off loopback
  std::string pg_bindir;
  long connect_timeout_ms = 10000;
};

// What `racelab step --help` teaches above its exit codes (keys, the pipe's commands, examples).
const char* StepHelpText();
// Adds `step` to `app`; its options fill *args.
CLI::App* AddStepSubcommand(CLI::App& app, StepArgs* args);
// Exit codes: 0 quit, 2 usage or scenario error, 3 the engine could not start or a walk failed to
// start, 130/143 interrupted.
int StepCommand(const StepArgs& args, const StopFlag* stop);

}  // namespace racelab::cli
