// racelab-reset-bench: what a clean start of each trial costs (docs/scenario-format.md "Every trial
// starts clean"). Against the embedded cluster, or $RACELAB_BENCH_DSN.
//
// session_start/discard_all — Session::StartClean (harness/engines/postgresql/session_reset.h):
// DISCARD ALL, then
//   search_path and two settings; what racelab runs per session per trial.
// session_start/reconnect   — the alternative: open a new connection, then search_path and
// settings. round_trip/select_1       — one `SELECT 1`, for scale. Each iteration first leaves some
// state to clean (a SET and a session advisory lock).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include "bench/bench_target.h"
#include "harness/engines/postgresql/session_reset.h"

namespace racelab {
namespace {

Engine* g_engine = nullptr;  // set once in main() before any benchmark runs (one thread each)

SteadyTime In(int seconds) {
  return std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
}

const SessionStart kStart{
    "bench", "racelab_bench_reset", {{"lock_timeout", "200ms"}, {"statement_timeout", "30s"}}};

std::unique_ptr<Session> Connect(benchmark::State& state) {
  auto c = g_engine->OpenSession(kServerNode, "bench", In(10), nullptr);
  if (!c.ok()) {
    state.SkipWithError(c.status().message().c_str());
    return nullptr;
  }
  return std::move(c.value());
}

void DiscardAll(benchmark::State& state) {
  auto conn = Connect(state);
  if (!conn) return;
  for (auto _ : state) {
    state.PauseTiming();
    conn->Exec("SET lock_timeout = '50ms'; SELECT pg_advisory_lock(1)", In(10));
    state.ResumeTiming();
    bool lost = false;
    Status s = conn->StartClean(kStart, In(10), "bench", &lost);
    if (!s.ok()) {
      state.SkipWithError(s.message().c_str());
      break;
    }
  }
}

void Reconnect(benchmark::State& state) {
  for (auto _ : state) {
    auto conn = Connect(state);
    if (!conn) break;
    conn->Exec(pg::SessionStartSql(kStart), In(10));
    state.PauseTiming();
    conn.reset();  // closing is not part of the next trial's start
    state.ResumeTiming();
  }
}

void Select1(benchmark::State& state) {
  auto conn = Connect(state);
  if (!conn) return;
  for (auto _ : state) conn->Exec("SELECT 1", In(10));
}

}  // namespace
}  // namespace racelab

int main(int argc, char** argv) {
  using namespace racelab;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  std::unique_ptr<Engine> engine = BenchEngine("racelab-reset-bench");
  if (!engine) return 3;
  g_engine = engine.get();
  benchmark::RegisterBenchmark("session_start/discard_all", DiscardAll)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("session_start/reconnect", Reconnect)->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("round_trip/select_1", Select1)->Unit(benchmark::kMicrosecond);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
