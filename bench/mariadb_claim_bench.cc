// racelab-mariadb-bench: the claim-strategy suite of racelab-bench (bench/claim_strategies.h) on
// MariaDB (InnoDB), through the Engine/Session interface (harness/engine/, the MariaDB engine:
// docs/mariadb.md), so that its figures sit beside PostgreSQL's and bench/plot_strategies.py draws
// them the same way.
//
// strategy/<strategy>/<level>/threads:N/iterations:1/manual_time — N threads, one connection each
// to the embedded MariaDB server (innodb_lock_wait_timeout 5 s), claim the head of a queue of
// kQueueRows InnoDB rows for $RACELAB_BENCH_SECONDS (default 1 s) as pgbench -T would, each cell on
// a new database (workspace). One attempt is one transaction at <level> (read_committed,
// repeatable_read — InnoDB's default — or serializable), begun with the engine's BeginSql:
//   naive         SELECT id … 'queued' ORDER BY id LIMIT 1; UPDATE runs … WHERE id = ?
//   for_update    the SELECT … FOR UPDATE, then the UPDATE
//   nowait        the SELECT … FOR UPDATE NOWAIT (MariaDB 10.3+: fails at once with 1205 when the
//   head
//                 is locked, as WAIT 0 — MariaDB docs "WAIT and NOWAIT"), then the UPDATE
//   skip_locked   the SELECT … FOR UPDATE SKIP LOCKED (MariaDB 10.6+), then the UPDATE
//   guarded_cas   one UPDATE … WHERE id = (SELECT min(id) … 'queued') AND status = 'queued'
//   (MariaDB
//                 10.3.2+ lets an UPDATE read its own table in a subquery); won when it matched 1
//                 row (10.11 has no UPDATE … RETURNING; the engine connects with CLIENT_FOUND_ROWS)
//   advisory      SELECT GET_LOCK('racelab_queue', 5) first — one named lock for the queue, held by
//   the
//                 session, released with RELEASE_LOCK after COMMIT or ROLLBACK (GET_LOCK outlives a
//                 transaction: docs/mariadb.md) — then naive's SELECT and UPDATE
// Every UPDATE sets status 'running' and attempts = attempts + 1. A failed attempt (1213 deadlock,
// 1205 lock wait timeout or NOWAIT) is rolled back and retried. Counters, named as racelab-bench's
// (rates per second of the timed section):
//   claims                  rows claimed (attempts >= 1 in the table after the run)
//   double_claims           claims of a row already claimed (sum(attempts) - claims: naive, whose
//   UPDATE
//                           reads the newest committed row even at repeatable read,
//                           docs/mariadb.md)
//   lost                    attempts that claimed nothing without an error (a 0-row UPDATE)
//   serialization_failures  1213 deadlocks (InnoDB's answer where PostgreSQL says 40001), retried
//   lock_not_available      1205 (NOWAIT, or innodb_lock_wait_timeout passed), retried
//   retries                 serialization_failures + lock_not_available
//   latency_{p50,p90,p99,p999,max}_us  first attempt to committed UPDATE of 1 row, over all
//                           threads (harness/metrics/latency_histogram.h)
//   items_per_second        attempts per second
// and queue_emptied (1 when the queue ran out before the time did).
// Thread-safety: benchmark threads are engine_claim_cell.h's own std::threads, one Session each.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_context.h"
#include "bench/claim_strategy.h"
#include "bench/context_last.h"
#include "bench/engine_claim_cell.h"
#include "harness/engine_registry/open_engine.h"
#include "harness/metrics/confidence.h"
#include "harness/metrics/latency_histogram.h"
#include "harness/model/isolation.h"

namespace racelab {
namespace {

using bench::kAllStrategies;
using bench::PickSql;
using bench::Strategy;
using bench::StrategyName;
using Clock = std::chrono::steady_clock;

constexpr int kQueueRows = 50000;
constexpr const char* kLockWaitTimeoutS = "5";  // innodb_lock_wait_timeout, whole seconds

Engine* g_engine = nullptr;  // set once in main() before any benchmark runs
std::atomic<int> g_workspaces{0};

SteadyTime In(int seconds) { return Clock::now() + std::chrono::seconds(seconds); }

std::chrono::duration<double> RunSeconds() { return bench::BenchSeconds(1.0); }

// A number from the first row of `sql`, or -1.
long Number(Session* s, const std::string& sql) {
  QueryResult r = s->Exec(sql, In(60));
  return r.ok() && !r.values.empty() && r.values[0][0] ? std::atol(r.values[0][0]->c_str()) : -1;
}

struct Tally {
  double committed = 0, lost = 0, deadlocks = 0, not_available = 0;
  int64_t attempts = 0;
  metrics::LatencyHistogram latencies;  // first attempt to committed claim, µs
  bool emptied = false;
  std::string error;  // the first answer that is neither success nor 1213/1205
};

constexpr const char* kGuardedCasSql =
    "UPDATE runs SET status = 'running', attempts = attempts + 1 "
    "WHERE id = (SELECT min(id) FROM runs WHERE status = 'queued') AND status = 'queued'";

enum class Outcome { kClaimed, kLost, kRetry, kEmpty, kError };

// One attempt: BEGIN … COMMIT; an error rolls the transaction back (and releases the named lock).
Outcome Attempt(Session* s, Strategy strategy, const std::string& begin, Tally* t) {
  const bool advisory = strategy == Strategy::kAdvisory;
  auto release = [&] {
    if (advisory) s->Exec("SELECT RELEASE_LOCK('racelab_queue')", In(30));
  };
  auto failed = [&](const QueryResult& r) {
    s->Exec("ROLLBACK", In(30));  // 1205 rolls back the statement only (docs/mariadb.md)
    release();
    if (r.error_code == "1213") {
      ++t->deadlocks;
      return Outcome::kRetry;
    }
    if (r.error_code == "1205") {
      ++t->not_available;
      return Outcome::kRetry;
    }
    if (t->error.empty()) t->error = r.error_code + " " + r.message;
    return Outcome::kError;
  };
  QueryResult r = s->Exec(begin, In(30));
  if (!r.ok()) return failed(r);
  if (advisory) {
    r = s->Exec("SELECT GET_LOCK('racelab_queue', " + std::string(kLockWaitTimeoutS) + ")", In(30));
    if (!r.ok()) return failed(r);
    if (r.values.empty() || !r.values[0][0] || *r.values[0][0] != "1") {  // 0: timed out
      s->Exec("ROLLBACK", In(30));
      ++t->not_available;
      return Outcome::kRetry;
    }
  }
  if (strategy == Strategy::kGuardedCas) {
    r = s->Exec(kGuardedCasSql, In(30));
  } else {
    QueryResult head = s->Exec(PickSql(strategy), In(30));
    if (!head.ok()) return failed(head);
    if (head.values.empty() || !head.values[0][0]) {
      s->Exec("ROLLBACK", In(30));
      release();
      // SKIP LOCKED finds nothing when every queued row is locked by another claimer.
      return Number(s, "SELECT count(*) FROM runs WHERE status = 'queued'") == 0 ? Outcome::kEmpty
                                                                                 : Outcome::kLost;
    }
    r = s->Exec("UPDATE runs SET status = 'running', attempts = attempts + 1 WHERE id = " +
                    *head.values[0][0],
                In(30));
  }
  if (!r.ok()) return failed(r);
  QueryResult commit = s->Exec("COMMIT", In(30));
  if (!commit.ok()) return failed(commit);
  release();
  if (!g_engine->Committed(commit)) {
    ++t->deadlocks;  // a COMMIT after 1213 commits nothing (docs/mariadb.md); not expected here
    return Outcome::kRetry;
  }
  if (r.rows == 1) return Outcome::kClaimed;
  if (strategy == Strategy::kGuardedCas &&
      Number(s, "SELECT count(*) FROM runs WHERE status = 'queued'") == 0) {
    return Outcome::kEmpty;
  }
  return Outcome::kLost;
}

// One thread's claims until `until`; a retried attempt keeps the claim's start time.
void ClaimLoop(Session* s, Strategy strategy, const std::string& begin, SteadyTime until,
               Tally* t) {
  auto first_attempt = Clock::now();
  while (Clock::now() < until && t->error.empty()) {
    ++t->attempts;
    const Outcome o = Attempt(s, strategy, begin, t);
    const auto now = Clock::now();
    if (o == Outcome::kClaimed) {
      ++t->committed;
      t->latencies.Record(std::chrono::duration<double, std::micro>(now - first_attempt).count());
    } else if (o == Outcome::kLost) {
      ++t->lost;
    } else if (o == Outcome::kEmpty) {
      t->emptied = true;
      break;
    }
    if (o != Outcome::kRetry) first_attempt = now;
  }
}

// server_version and the settings that decide a commit's and a read's cost, into the context.
bool AddServerContext() {
  static const bench::ServerFacts kFacts = {
      {"server_version", "@@version"},
      {"setting_innodb_flush_log_at_trx_commit", "@@innodb_flush_log_at_trx_commit"},
      {"setting_innodb_doublewrite", "@@innodb_doublewrite"},
      {"setting_innodb_buffer_pool_size", "@@innodb_buffer_pool_size"},
  };
  auto session = g_engine->OpenSession(kServerNode, "bench:context", In(10), nullptr);
  auto facts = session.ok() ? bench::ServerContext(session->get(), kFacts)
                            : Result<std::map<std::string, std::string>>(session.status());
  if (session.ok()) (*session)->Close();
  if (!facts.ok()) {
    std::cerr << "racelab-mariadb-bench: " << facts.status().message() << "\n";
    return false;
  }
  bench::AddContext(*facts);
  return true;
}

void Claim(benchmark::State& state, Strategy strategy, IsolationLevel level) {
  const int threads = static_cast<int>(state.range(0));
  const std::vector<std::pair<std::string, std::string>> settings = {
      {"innodb_lock_wait_timeout", kLockWaitTimeoutS}};
  const std::string begin = g_engine->BeginSql(level);
  Tally total;
  long claims = 0, double_claims = 0;
  // seq_1_to_N: MariaDB's Sequence engine (built in since 10.1).
  ClaimCellSetup setup{
      g_engine,
      &g_workspaces,
      "mariadb_claim_bench",
      settings,
      "CREATE TABLE runs (id INT PRIMARY KEY, status VARCHAR(16) NOT NULL, attempts INT NOT NULL "
      "DEFAULT 0, KEY runs_status_id (status, id)) ENGINE = InnoDB;"
      " INSERT INTO runs (id, status) SELECT seq, 'queued' FROM seq_1_to_" +
          std::to_string(kQueueRows) + "; ANALYZE TABLE runs",
      RunSeconds()};
  for (auto _ : state) {
    // A new database: a workspace of its own, its queue made by the control session.
    const bool ran = RunClaimCell<Tally>(
        state, setup, threads,
        [&](Session* s, SteadyTime until, Tally* tally) {
          ClaimLoop(s, strategy, begin, until, tally);
        },
        [&](Session* control, const std::vector<Tally>& tallies) {
          for (const Tally& t : tallies) {
            total.committed += t.committed;
            total.lost += t.lost;
            total.deadlocks += t.deadlocks;
            total.not_available += t.not_available;
            total.attempts += t.attempts;
            total.latencies.Merge(t.latencies);
            total.emptied = total.emptied || t.emptied;
            if (total.error.empty()) total.error = t.error;
          }
          claims = Number(control, "SELECT count(*) FROM runs WHERE attempts >= 1");
          // Every committed UPDATE of one row added 1 to that row's attempts.
          const long sum = Number(control, "SELECT coalesce(sum(attempts), 0) FROM runs");
          double_claims = sum - claims;
          if (sum != static_cast<long>(total.committed) && total.error.empty()) {
            total.error = "attempts in the table " + std::to_string(sum) +
                          " differ from committed claims " +
                          std::to_string(static_cast<long>(total.committed));
          }
        });
    if (!ran) return;
  }
  if (!total.error.empty()) {
    state.SkipWithError(total.error.c_str());
    return;
  }
  using benchmark::Counter;
  state.SetItemsProcessed(total.attempts);
  state.counters["claims"] = Counter(static_cast<double>(claims), Counter::kIsRate);
  state.counters["double_claims"] = Counter(static_cast<double>(double_claims), Counter::kIsRate);
  state.counters["lost"] = Counter(total.lost, Counter::kIsRate);
  state.counters["serialization_failures"] = Counter(total.deadlocks, Counter::kIsRate);
  state.counters["lock_not_available"] = Counter(total.not_available, Counter::kIsRate);
  state.counters["retries"] = Counter(total.deadlocks + total.not_available, Counter::kIsRate);
  const metrics::LatencyPercentiles p = total.latencies.Percentiles();
  state.counters["latency_p50_us"] = p.p50_us;
  state.counters["latency_p90_us"] = p.p90_us;
  state.counters["latency_p99_us"] = p.p99_us;
  state.counters["latency_p999_us"] = p.p999_us;
  state.counters["latency_max_us"] = p.max_us;
  state.counters["queue_emptied"] = total.emptied ? 1 : 0;
}

}  // namespace
}  // namespace racelab

int main(int argc, char** argv) {
  using namespace racelab;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  bench::AddContext(bench::MachineContextBefore());  // before the embedded server starts
  EngineOptions options;
  options.engine = "mariadb";
  auto engine = OpenEngine(options);
  if (!engine.ok()) {
    std::cerr << "racelab-mariadb-bench: " << engine.status().message() << "\n";
    return 3;
  }
  g_engine = engine->get();
  benchmark::AddCustomContext("engine", "mariadb");
  benchmark::AddCustomContext("innodb_lock_wait_timeout_s", kLockWaitTimeoutS);
  if (!AddServerContext()) {
    g_engine->Close();
    return 3;
  }
  for (bench::Strategy strategy : bench::kAllStrategies) {
    for (IsolationLevel level : {IsolationLevel::kReadCommitted, IsolationLevel::kRepeatableRead,
                                 IsolationLevel::kSerializable}) {
      std::string slug(IsolationName(level));
      std::replace(slug.begin(), slug.end(), ' ', '_');
      const std::string name =
          std::string("strategy/") + bench::StrategyName(strategy) + "/" + slug;
      benchmark::RegisterBenchmark(name.c_str(), racelab::Claim, strategy, level)
          ->ArgName("threads")
          ->Arg(1)
          ->Arg(2)
          ->Arg(4)
          ->Arg(8)
          ->Iterations(1)
          ->UseManualTime()
          ->ComputeStatistics("ci95", metrics::HalfWidth95);
    }
  }
  bench::RunBenchmarksContextLast(
      [](const std::vector<std::string>&) { return bench::MachineContextAfter(); });
  benchmark::Shutdown();
  Status closed = g_engine->Close();  // stops the server and removes its run folder
  return closed.ok() ? 0 : 3;
}
