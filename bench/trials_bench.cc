// racelab-trials-bench: trials per second of the whole runner — the speed goal of issue 12 ("≥ 300
// trials/s for guarded-cas-claim at 2 workers"), measured here rather than in a timed test.
//
// trials/<scenario>/<level>/workers:<N>/real_time — one benchmark iteration runs 100 trials of the
// catalogue scenario (scenarios/<scenario>.yaml) at <level> through the same pipeline as `racelab
// run` (harness/pipeline/pipeline.h: clean start, workspace reset and setup, workers, barriers,
// wait monitor, server log, final checks, evaluation), on $RACELAB_BENCH_DSN or an embedded server
// (bench/bench_target.h; scenario SQL is not confined, unlike `racelab run`'s default).
// Counters: trials_per_second (rate over wall time); failed (runs of 100 whose verdict was not
// pass: any makes the benchmark an error, since a fast wrong run measures nothing).
//   build/bench/racelab-trials-bench --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "bench/bench_target.h"
#include "harness/loader/planner.h"
#include "harness/loader/scenario_loader.h"
#include "harness/pipeline/pipeline.h"

namespace racelab {
namespace {

constexpr int kTrialsPerIteration = 100;
Engine* g_engine = nullptr;  // set in main() before any benchmark runs

void Trials(benchmark::State& state, const std::string& scenario_name, IsolationLevel level) {
  auto scenario =
      LoadScenarioFile(std::string(RACELAB_SOURCE_DIR) + "/scenarios/" + scenario_name + ".yaml");
  if (!scenario.ok()) {
    state.SkipWithError(scenario.status().message().c_str());
    return;
  }
  PlanOptions po;
  po.trials = kTrialsPerIteration;
  po.isolation = {level};
  po.set = {{"workers", std::to_string(state.range(0))}};
  auto items = ExpandScenario(*scenario, po);
  if (!items.ok()) {
    state.SkipWithError(items.status().message().c_str());
    return;
  }
  RunOptions ro;
  ro.engine = g_engine;
  int64_t trials = 0, failed = 0;
  for (auto _ : state) {
    PipelineResult r = RunItems(*items, ro, {}, DetailsPolicy::kNone);
    for (const auto& summary : r.results) {
      trials += summary.trials;
      if (summary.verdict != Verdict::kPass) ++failed;
    }
  }
  state.counters["trials_per_second"] =
      benchmark::Counter(static_cast<double>(trials), benchmark::Counter::kIsRate);
  state.counters["failed"] = static_cast<double>(failed);
  if (failed > 0) state.SkipWithError("some trials did not pass");
}

}  // namespace
}  // namespace racelab

int main(int argc, char** argv) {
  using namespace racelab;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  std::unique_ptr<Engine> engine = BenchEngine("racelab-trials-bench");
  if (!engine) return 3;
  g_engine = engine.get();
  benchmark::RegisterBenchmark("trials/guarded-cas-claim/read_committed", Trials,
                               "guarded-cas-claim", IsolationLevel::kReadCommitted)
      ->ArgName("workers")
      ->Arg(2)
      ->Arg(4)
      ->Iterations(1)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
