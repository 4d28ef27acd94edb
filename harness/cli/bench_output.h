// The output of `racelab bench` (docs/bench.md "Output"): the console table and the JSON file
// (schema "racelab-bench/1", documented there), both from one BenchReport. Every figure over the
// repeats is "mean ± half-width of its 95 % Student-t interval" (no ± with one repeat).
// Thread-safety: pure functions of the report.
#pragma once

#include <array>
#include <ostream>
#include <string>
#include <vector>

#include "harness/model/summary.h"
#include "harness/workload/repeats.h"

namespace racelab::cli {

// One engine × scenario × level × client count.
struct BenchCell {
  std::string engine;
  std::string scenario;
  std::string isolation;
  int clients = 0;
  std::vector<std::string> sessions;  // the clients: session labels, in plan order
  std::string dropped;                // workload::DroppedSteps
  workload::CellFigures figures;
  std::string error;  // non-empty: the cell could not be measured (then figures are partial)
};

struct BenchReport {
  std::string racelab_version;
  std::string created_at;
  std::string command;
  bool open_loop = true;
  double rate_per_s = 0;
  double duration_s = 0;
  double warmup_s = 0;
  int repeats = 0;
  std::vector<int> clients;
  unsigned cores = 0;
  bool load_known = false;
  std::array<double, 3> load_before{}, load_after{};  // 1, 5, 15 min (getloadavg)
  std::vector<TargetInfo> targets;
  std::vector<BenchCell> cells;
  std::string run_error;
};

void WriteBenchConsole(const BenchReport& report, std::ostream& out);
// The JSON text (pretty, 2 spaces, one trailing newline).
std::string BenchJson(const BenchReport& report);

}  // namespace racelab::cli
