// racelab-sqlite-bench: the claim benchmark on SQLite, through the Engine/Session interface
// (harness/engine/, the SQLite engine: docs/sqlite.md), so that its numbers sit beside
// racelab-bench's PostgreSQL ones.
//
// sqlite_claim/<strategy>/<journal>/iterations:1/manual_time/threads:N — N threads, one SQLite
// connection each (busy_timeout 5000 ms, synchronous as $RACELAB_BENCH_SQLITE_SYNCHRONOUS, default
// off like the embedded servers' durability settings), claim the head of a queue of kQueueRows runs
// for $RACELAB_BENCH_SECONDS (default 2 s) as pgbench -T would, each on a new database file:
//   naive_select_then_update  BEGIN; SELECT min(id) … 'queued'; UPDATE runs … WHERE id = ?; COMMIT
//   begin_immediate           the same after BEGIN IMMEDIATE (the write lock first)
//   guarded_cas               BEGIN; UPDATE … WHERE id = (SELECT min(id) …) AND status = 'queued'
//                             RETURNING id; COMMIT
// and <journal> delete (rollback journal) or wal. A SQLITE_BUSY* answer rolls the transaction back
// and the thread tries again (SQLite leaves the transaction open: lang_transaction.html).
// Counters: claims, busy (SQLITE_BUSY or SQLITE_BUSY_SNAPSHOT answers), lost (the claim found the
// row taken: 0 rows) as rates per second of the timed section; double_claims (rows claimed more
// than once, checked after the run: must be 0 — SQLite has one writer at a time) and queue_emptied
// (1 when the queue ran out before the time did) as plain numbers. items_per_second = claims per s.
// Thread-safety: benchmark threads are this file's own std::threads, one Session each.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench/engine_claim_cell.h"
#include "harness/engine_registry/open_engine.h"

namespace racelab {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kQueueRows = 200000;
constexpr const char* kBusyTimeoutMs = "5000";

Engine* g_engine = nullptr;  // set once in main() before any benchmark runs
std::atomic<int> g_workspaces{0};

enum class Strategy { kNaive, kImmediate, kGuardedCas };

const char* StrategyName(Strategy s) {
  switch (s) {
    case Strategy::kNaive:
      return "naive_select_then_update";
    case Strategy::kImmediate:
      return "begin_immediate";
    case Strategy::kGuardedCas:
      return "guarded_cas";
  }
  return "?";
}

SteadyTime In(int seconds) { return Clock::now() + std::chrono::seconds(seconds); }

std::chrono::duration<double> RunSeconds() {
  const char* v = std::getenv("RACELAB_BENCH_SECONDS");
  double s = v != nullptr ? std::atof(v) : 0;
  return std::chrono::duration<double>(s > 0 ? s : 2.0);
}

std::string Synchronous() {
  const char* v = std::getenv("RACELAB_BENCH_SQLITE_SYNCHRONOUS");
  return v != nullptr && *v != '\0' ? v : "off";
}

bool IsBusy(const QueryResult& r) { return r.error_code.rfind("SQLITE_BUSY", 0) == 0; }

// A number from the first row of `sql`, or -1.
long Number(Session* s, const std::string& sql) {
  QueryResult r = s->Exec(sql, In(60));
  return r.ok() && !r.values.empty() && r.values[0][0] ? std::atol(r.values[0][0]->c_str()) : -1;
}

struct Tally {
  double claims = 0, busy = 0, lost = 0;
  bool emptied = false;
  std::string error;  // the first answer that is neither success nor SQLITE_BUSY*
};

// One thread's claims until `until`. Each claim is one transaction; a busy answer rolls it back.
void ClaimLoop(Session* s, Strategy strategy, SteadyTime until, Tally* t) {
  const std::string guarded =
      "UPDATE runs SET status = 'running', attempts = attempts + 1 "
      "WHERE id = (SELECT min(id) FROM runs WHERE status = 'queued') AND status = 'queued' "
      "RETURNING id";
  auto failed = [&](const QueryResult& r) {
    if (r.ok()) return false;
    if (s->in_transaction()) s->Exec("ROLLBACK", In(30));
    if (IsBusy(r)) {
      ++t->busy;
    } else if (t->error.empty()) {
      t->error = r.error_code + " " + r.message;
    }
    return true;
  };
  while (Clock::now() < until && t->error.empty()) {
    if (failed(s->Exec("BEGIN", In(30)))) continue;  // the session's `begin` setting adds IMMEDIATE
    long rows = 0;
    if (strategy == Strategy::kGuardedCas) {
      QueryResult r = s->Exec(guarded, In(30));
      if (failed(r)) continue;
      rows = r.rows;
    } else {
      QueryResult head = s->Exec("SELECT min(id) FROM runs WHERE status = 'queued'", In(30));
      if (failed(head)) continue;
      if (head.values.empty() || !head.values[0][0]) {
        s->Exec("ROLLBACK", In(30));
        t->emptied = true;
        break;
      }
      QueryResult r =
          s->Exec("UPDATE runs SET status = 'running', attempts = attempts + 1 WHERE id = " +
                      *head.values[0][0],
                  In(30));
      if (failed(r)) continue;
      rows = r.rows;
    }
    if (failed(s->Exec("COMMIT", In(30)))) continue;
    if (rows == 1) {
      ++t->claims;
    } else if (Number(s, "SELECT count(*) FROM runs WHERE status = 'queued'") == 0) {
      t->emptied = true;
      break;
    } else {
      ++t->lost;
    }
  }
}

void Claim(benchmark::State& state, Strategy strategy, std::string journal) {
  const int threads = static_cast<int>(state.range(0));
  const std::vector<std::pair<std::string, std::string>> settings = {
      {"journal_mode", journal},
      {"busy_timeout", kBusyTimeoutMs},
      {"begin", strategy == Strategy::kImmediate ? "immediate" : "deferred"},
      {"synchronous", Synchronous()}};
  Tally total;
  long double_claims = 0;
  ClaimCellSetup setup{g_engine,
                       &g_workspaces,
                       "sqlite_claim_bench",
                       settings,
                       "CREATE TABLE runs (id INTEGER PRIMARY KEY, status TEXT NOT NULL, attempts "
                       "INTEGER NOT NULL DEFAULT 0);"
                       " CREATE INDEX runs_queued ON runs (id) WHERE status = 'queued';"
                       " INSERT INTO runs (id, status) WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL "
                       "SELECT i + 1 FROM g WHERE i < " +
                           std::to_string(kQueueRows) + ") SELECT i, 'queued' FROM g; ANALYZE",
                       RunSeconds()};
  for (auto _ : state) {
    // A new database file: a workspace of its own, its queue made by the control session.
    const bool ran = RunClaimCell<Tally>(
        state, setup, threads,
        [&](Session* s, SteadyTime until, Tally* tally) { ClaimLoop(s, strategy, until, tally); },
        [&](Session* control, const std::vector<Tally>& tallies) {
          for (const Tally& t : tallies) {
            total.claims += t.claims;
            total.busy += t.busy;
            total.lost += t.lost;
            total.emptied = total.emptied || t.emptied;
            if (total.error.empty()) total.error = t.error;
          }
          double_claims += Number(control, "SELECT count(*) FROM runs WHERE attempts > 1");
          const long running =
              Number(control, "SELECT count(*) FROM runs WHERE status = 'running'");
          if (running != static_cast<long>(total.claims) - double_claims && total.error.empty()) {
            total.error = "claimed rows " + std::to_string(running) + " differ from claims " +
                          std::to_string(static_cast<long>(total.claims));
          }
        });
    if (!ran) return;
  }
  if (!total.error.empty()) {
    state.SkipWithError(total.error.c_str());
    return;
  }
  state.SetItemsProcessed(static_cast<int64_t>(total.claims));
  state.counters["claims"] = benchmark::Counter(total.claims, benchmark::Counter::kIsRate);
  state.counters["busy"] = benchmark::Counter(total.busy, benchmark::Counter::kIsRate);
  state.counters["lost"] = benchmark::Counter(total.lost, benchmark::Counter::kIsRate);
  state.counters["double_claims"] = static_cast<double>(double_claims);
  state.counters["queue_emptied"] = total.emptied ? 1 : 0;
}

}  // namespace
}  // namespace racelab

int main(int argc, char** argv) {
  using namespace racelab;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  EngineOptions options;
  options.engine = "sqlite";
  auto engine = OpenEngine(options);
  if (!engine.ok()) {
    std::cerr << "racelab-sqlite-bench: " << engine.status().message() << "\n";
    return 3;
  }
  g_engine = engine->get();
  benchmark::AddCustomContext("sqlite_version", g_engine->info().server_version);
  benchmark::AddCustomContext("synchronous", Synchronous());
  for (Strategy strategy : {Strategy::kNaive, Strategy::kImmediate, Strategy::kGuardedCas}) {
    for (const char* journal : {"delete", "wal"}) {
      const std::string name =
          std::string("sqlite_claim/") + StrategyName(strategy) + "/" + journal;
      benchmark::RegisterBenchmark(name.c_str(), Claim, strategy, std::string(journal))
          ->ArgName("threads")
          ->Arg(1)
          ->Arg(2)
          ->Arg(4)
          ->Iterations(1)
          ->UseManualTime();
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  Status closed = g_engine->Close();  // removes the run folder
  return closed.ok() ? 0 : 3;
}
