// racelab-mariadb-bench: the claim benchmark on MariaDB (InnoDB), through the Engine/Session
// interface (harness/engine/, the MariaDB engine: docs/mariadb.md), so that its numbers sit beside
// racelab-bench's PostgreSQL ones and racelab-sqlite-bench's SQLite ones.
//
// mariadb_claim/<strategy>/<level>/iterations:1/manual_time/threads:N — N threads, one connection
// each to the embedded MariaDB server (innodb_lock_wait_timeout 5 s), claim the head of a queue of
// kQueueRows InnoDB rows for $RACELAB_BENCH_SECONDS (default 1 s) as pgbench -T would, each on a new
// database (workspace). Each claim is one transaction at <level> (repeatable_read, InnoDB's default,
// or read_committed), begun with the engine's BeginSql:
//   naive_select_then_update  SELECT id … 'queued' ORDER BY id LIMIT 1; UPDATE runs … WHERE id = ?
//   for_update                the same SELECT … FOR UPDATE
//   skip_locked               the same SELECT … FOR UPDATE SKIP LOCKED (MariaDB 10.6+)
//   guarded_cas               plain SELECT, then UPDATE … WHERE id = ? AND status = 'queued'; the
//                             claim is won when the UPDATE matched 1 row (MariaDB 10.11 has no
//                             UPDATE … RETURNING; the engine connects with CLIENT_FOUND_ROWS)
// A deadlock (1213) or lock wait timeout (1205) rolls the transaction back and the thread tries again.
// Counters: claims, lost (the claim found the row taken: 0 rows), deadlocks, lock_wait_timeouts as
// rates per second of the timed section; double_claims (rows claimed more than once, checked after
// the run: 0 except for the naive strategy — InnoDB's UPDATE reads the newest committed row even at
// repeatable read, docs/mariadb.md) and queue_emptied (1 when the queue ran out before the time did)
// as plain numbers. items_per_second = claims per s.
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
#include "harness/engine/open_engine.h"
#include "harness/model/isolation.h"

namespace racelab {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kQueueRows = 50000;
constexpr const char* kLockWaitTimeoutS = "5";  // innodb_lock_wait_timeout, whole seconds

Engine* g_engine = nullptr;  // set once in main() before any benchmark runs
std::atomic<int> g_workspaces{0};

enum class Strategy { kNaive, kForUpdate, kSkipLocked, kGuardedCas };

const char* StrategyName(Strategy s) {
  switch (s) {
    case Strategy::kNaive:
      return "naive_select_then_update";
    case Strategy::kForUpdate:
      return "for_update";
    case Strategy::kSkipLocked:
      return "skip_locked";
    case Strategy::kGuardedCas:
      return "guarded_cas";
  }
  return "?";
}

SteadyTime In(int seconds) { return Clock::now() + std::chrono::seconds(seconds); }

std::chrono::duration<double> RunSeconds() {
  const char* v = std::getenv("RACELAB_BENCH_SECONDS");
  double s = v != nullptr ? std::atof(v) : 0;
  return std::chrono::duration<double>(s > 0 ? s : 1.0);
}

// A number from the first row of `sql`, or -1.
long Number(Session* s, const std::string& sql) {
  QueryResult r = s->Exec(sql, In(60));
  return r.ok() && !r.values.empty() && r.values[0][0] ? std::atol(r.values[0][0]->c_str()) : -1;
}

struct Tally {
  double claims = 0, lost = 0, deadlocks = 0, lock_wait_timeouts = 0;
  bool emptied = false;
  std::string error;  // the first answer that is neither success nor 1213/1205
};

std::string HeadSql(Strategy strategy) {
  std::string sql = "SELECT id FROM runs WHERE status = 'queued' ORDER BY id LIMIT 1";
  if (strategy == Strategy::kForUpdate) sql += " FOR UPDATE";
  if (strategy == Strategy::kSkipLocked) sql += " FOR UPDATE SKIP LOCKED";
  return sql;
}

// One thread's claims until `until`. Each claim is one transaction; 1213/1205 roll it back.
void ClaimLoop(Session* s, Strategy strategy, const std::string& begin, SteadyTime until, Tally* t) {
  const std::string head_sql = HeadSql(strategy);
  const std::string guard = strategy == Strategy::kGuardedCas ? " AND status = 'queued'" : "";
  auto failed = [&](const QueryResult& r) {
    if (r.ok()) return false;
    s->Exec("ROLLBACK", In(30));  // 1205 rolls back the statement only (docs/mariadb.md)
    if (r.error_code == "1213") {
      ++t->deadlocks;
    } else if (r.error_code == "1205") {
      ++t->lock_wait_timeouts;
    } else if (t->error.empty()) {
      t->error = r.error_code + " " + r.message;
    }
    return true;
  };
  while (Clock::now() < until && t->error.empty()) {
    if (failed(s->Exec(begin, In(30)))) continue;
    QueryResult head = s->Exec(head_sql, In(30));
    if (failed(head)) continue;
    if (head.values.empty() || !head.values[0][0]) {
      s->Exec("ROLLBACK", In(30));
      // SKIP LOCKED finds nothing when every queued row is locked by another claimer.
      if (Number(s, "SELECT count(*) FROM runs WHERE status = 'queued'") == 0) {
        t->emptied = true;
        break;
      }
      ++t->lost;
      continue;
    }
    QueryResult r = s->Exec("UPDATE runs SET status = 'running', attempts = attempts + 1 WHERE id = " +
                                *head.values[0][0] + guard,
                            In(30));
    if (failed(r)) continue;
    QueryResult commit = s->Exec("COMMIT", In(30));
    if (failed(commit)) continue;
    if (!g_engine->Committed(commit)) {
      ++t->deadlocks;  // a COMMIT after 1213 commits nothing (docs/mariadb.md); not expected here
      continue;
    }
    if (r.rows == 1) {
      ++t->claims;
    } else {
      ++t->lost;
    }
  }
}

void Claim(benchmark::State& state, Strategy strategy, IsolationLevel level) {
  const int threads = static_cast<int>(state.range(0));
  const std::vector<std::pair<std::string, std::string>> settings = {
      {"innodb_lock_wait_timeout", kLockWaitTimeoutS}};
  const std::string begin = g_engine->BeginSql(level);
  Tally total;
  long double_claims = 0;
  // seq_1_to_N: MariaDB's Sequence engine (built in since 10.1).
  ClaimCellSetup setup{g_engine, &g_workspaces, "mariadb_claim_bench", settings,
                       "CREATE TABLE runs (id INT PRIMARY KEY, status VARCHAR(16) NOT NULL, attempts INT NOT NULL DEFAULT 0,"
        " KEY runs_status_id (status, id)) ENGINE = InnoDB;"
        " INSERT INTO runs (id, status) SELECT seq, 'queued' FROM seq_1_to_" +
            std::to_string(kQueueRows) + "; ANALYZE TABLE runs",
                       RunSeconds()};
  for (auto _ : state) {
    // A new database: a workspace of its own, its queue made by the control session.
    const bool ran = RunClaimCell<Tally>(
        state, setup, threads,
        [&](Session* s, SteadyTime until, Tally* tally) { ClaimLoop(s, strategy, begin, until, tally); },
        [&](Session* control, const std::vector<Tally>& tallies) {
      for (const Tally& t : tallies) {
        total.claims += t.claims;
        total.lost += t.lost;
        total.deadlocks += t.deadlocks;
        total.lock_wait_timeouts += t.lock_wait_timeouts;
        total.emptied = total.emptied || t.emptied;
        if (total.error.empty()) total.error = t.error;
      }
      double_claims += Number(control, "SELECT count(*) FROM runs WHERE attempts > 1");
      // Every committed claim added 1 to one row's attempts (a row may be claimed 3 or more times).
      const long attempts = Number(control, "SELECT coalesce(sum(attempts), 0) FROM runs");
      if (attempts != static_cast<long>(total.claims) && total.error.empty()) {
        total.error = "attempts in the table " + std::to_string(attempts) + " differ from claims " +
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
  state.counters["lost"] = benchmark::Counter(total.lost, benchmark::Counter::kIsRate);
  state.counters["deadlocks"] = benchmark::Counter(total.deadlocks, benchmark::Counter::kIsRate);
  state.counters["lock_wait_timeouts"] = benchmark::Counter(total.lock_wait_timeouts, benchmark::Counter::kIsRate);
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
  options.engine = "mariadb";
  auto engine = OpenEngine(options);
  if (!engine.ok()) {
    std::cerr << "racelab-mariadb-bench: " << engine.status().message() << "\n";
    return 3;
  }
  g_engine = engine->get();
  benchmark::AddCustomContext("mariadb_version", g_engine->info().server_version);
  benchmark::AddCustomContext("innodb_lock_wait_timeout_s", kLockWaitTimeoutS);
  for (Strategy strategy : {Strategy::kNaive, Strategy::kForUpdate, Strategy::kSkipLocked, Strategy::kGuardedCas}) {
    for (IsolationLevel level : {IsolationLevel::kRepeatableRead, IsolationLevel::kReadCommitted}) {
      const std::string name = std::string("mariadb_claim/") + StrategyName(strategy) + "/" +
                               (level == IsolationLevel::kRepeatableRead ? "repeatable_read" : "read_committed");
      benchmark::RegisterBenchmark(name.c_str(), Claim, strategy, level)
          ->ArgName("threads")->Arg(1)->Arg(2)->Arg(4)->Iterations(1)->UseManualTime();
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  Status closed = g_engine->Close();  // stops the server and removes its run folder
  return closed.ok() ? 0 : 3;
}
