// One timed cell of an engine claim benchmark (racelab-sqlite-bench, racelab-mariadb-bench), run
// through the Engine/Session interface (harness/engine/): a new workspace whose queue `setup_sql`
// makes on a control session; `threads` sessions started clean with `settings`; each thread runs
// `loop(Session*, SteadyTime until, Tally*)` from one common release until `run_for` has passed;
// the iteration time is set from that release; then `after(Session* control, const
// std::vector<Tally>&)` folds the tallies and checks the table on the control session; sessions
// close and the workspace is dropped. Returns false after state.SkipWithError on a setup error
// (workspace, connection, StartClean, setup SQL). Deadlines: 10 s per connection, 30 s per
// start/reset/drop, 120 s for the setup SQL. Thread-safety: call from the benchmark's thread;
// `loop` runs on this function's own std::threads, one Session and one Tally each.
#pragma once

#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "harness/engine/engine.h"

namespace racelab {

struct ClaimCellSetup {
  Engine* engine = nullptr;
  std::atomic<int>* workspaces = nullptr;  // counter for new workspace names
  const char* bench_name = "";             // the "file" StartClean names in its errors
  std::vector<std::pair<std::string, std::string>> settings;
  std::string setup_sql;
  std::chrono::duration<double> run_for{};
};

template <typename Tally, typename Loop, typename After>
bool RunClaimCell(benchmark::State& state, const ClaimCellSetup& setup, int threads, Loop loop,
                  After after) {
  using Clock = std::chrono::steady_clock;
  auto in = [](int seconds) { return Clock::now() + std::chrono::seconds(seconds); };
  Engine* engine = setup.engine;
  const std::string ws = engine->WorkspaceName(++*setup.workspaces);
  Status st = engine->ResetWorkspace(ws, in(30), nullptr);
  auto control = engine->OpenSession(kServerNode, "bench:control", in(10), nullptr);
  if (!st.ok() || !control.ok()) {
    state.SkipWithError((st.ok() ? control.status() : st).message().c_str());
    return false;
  }
  Session* c = control->get();
  st = c->StartClean(SessionStart{"bench:control", ws, setup.settings}, in(30), setup.bench_name,
                     nullptr);
  QueryResult made = st.ok() ? c->Exec(setup.setup_sql, in(120)) : QueryResult{};
  if (!st.ok() || !made.ok()) {
    state.SkipWithError((st.ok() ? "setup: " + made.message : st.message()).c_str());
    return false;
  }
  std::vector<std::unique_ptr<Session>> sessions;
  for (int i = 0; i < threads; ++i) {
    const std::string label = "bench." + std::to_string(i + 1);
    auto s = engine->OpenSession(kServerNode, label, in(10), nullptr);
    if (s.ok())
      st = (*s)->StartClean(SessionStart{label, ws, setup.settings}, in(30), setup.bench_name,
                            nullptr);
    if (!s.ok() || !st.ok()) {
      state.SkipWithError((s.ok() ? st : s.status()).message().c_str());
      return false;
    }
    sessions.push_back(std::move(s.value()));
  }
  std::vector<Tally> tallies(threads);
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  SteadyTime until;
  for (int i = 0; i < threads; ++i) {
    pool.emplace_back([&, i] {
      ++ready;
      while (!go.load()) std::this_thread::yield();
      loop(sessions[i].get(), until, &tallies[i]);
    });
  }
  while (ready.load() < threads) std::this_thread::yield();
  const SteadyTime start = Clock::now();
  until = start + std::chrono::duration_cast<Clock::duration>(setup.run_for);
  go.store(true);
  for (auto& t : pool) t.join();
  state.SetIterationTime(std::chrono::duration<double>(Clock::now() - start).count());
  after(c, tallies);
  for (auto& s : sessions) s->Close();
  c->Close();
  engine->DropWorkspace(ws, in(30));
  return true;
}

}  // namespace racelab
