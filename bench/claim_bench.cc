// racelab-bench: Google Benchmark suite — claim strategies × isolation levels × workers
// (strategy/…: bench/claim_strategies.h; by wire protocol: bench/protocol_claims.h).
//
// guarded_cas_claim/<level>/threads:N — N threads, one libpq connection each, claim the head of a
// queue of 100,000 runs with the guarded compare-and-swap
//   UPDATE runs SET status='running', attempts=attempts+1
//   WHERE id = (SELECT min(id) FROM runs WHERE status='queued') AND status='queued' RETURNING id
// in a transaction at <level>. All threads aim at the same head row, so this measures the claim
// under contention. Counters (rates, per second of wall time): claims (a row returned and COMMIT
// succeeded), lost (0 rows: another worker won the row; read committed), serialization_failures
// (SQLSTATE 40001). Target: the embedded cluster, or $RACELAB_BENCH_DSN. Run `racelab-bench --help`
// for Google Benchmark's own flags (--benchmark_min_time, --benchmark_format=json, …).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include "bench/bench_target.h"
#include "bench/claim_strategies.h"
#include "bench/protocol_claims.h"
#include "harness/engines/postgresql/cluster.h"
#include "harness/engines/postgresql/connection.h"
#include "harness/model/isolation.h"

namespace racelab {
namespace {

using pg::Connection;

std::string g_conninfo;  // set once in main() before any benchmark runs; read-only afterwards
constexpr const char* kSchema = "racelab_bench";
constexpr int kQueueRows = 100000;

SteadyTime In(int seconds) {
  return std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
}

std::unique_ptr<Connection> MustConnect(benchmark::State& state) {
  auto c = Connection::Open(g_conninfo, "racelab:bench", In(10), nullptr);
  if (!c.ok()) {
    state.SkipWithError(c.status().message().c_str());
    return nullptr;
  }
  (*c)->Exec(std::string("SET search_path TO ") + kSchema, In(10));
  return std::move(c.value());
}

void GuardedCasClaim(benchmark::State& state, IsolationLevel level) {
  auto conn = MustConnect(state);
  if (!conn) return;
  if (state.thread_index() ==
      0) {  // before the loop: Google Benchmark starts all threads together after
    conn->Exec("UPDATE runs SET status = 'queued', attempts = 0 WHERE status <> 'queued'", In(60));
  }
  const std::string begin =
      std::string("BEGIN ISOLATION LEVEL ") + std::string(IsolationName(level));
  const std::string claim =
      "UPDATE runs SET status = 'running', attempts = attempts + 1 "
      "WHERE id = (SELECT min(id) FROM runs WHERE status = 'queued') AND status = 'queued' "
      "RETURNING id";
  double claims = 0, lost = 0, failures = 0;
  for (auto _ : state) {
    conn->Exec(begin, In(30));
    QueryResult r = conn->Exec(claim, In(30));
    if (!r.ok()) {
      conn->Exec("ROLLBACK", In(30));
      if (r.sqlstate == "40001") {
        ++failures;
        continue;
      }
      state.SkipWithError(("claim failed: " + r.sqlstate + " " + r.message).c_str());
      break;
    }
    QueryResult c = conn->Exec("COMMIT", In(30));
    if (!c.ok() && c.sqlstate == "40001") {
      ++failures;
    } else if (r.rows == 1 && c.command_tag == "COMMIT") {
      ++claims;
    } else {
      ++lost;
    }
  }
  state.counters["claims"] = benchmark::Counter(claims, benchmark::Counter::kIsRate);
  state.counters["lost"] = benchmark::Counter(lost, benchmark::Counter::kIsRate);
  state.counters["serialization_failures"] =
      benchmark::Counter(failures, benchmark::Counter::kIsRate);
}

bool PrepareSchema() {
  auto c = Connection::Open(g_conninfo, "racelab:bench", In(10), nullptr);
  if (!c.ok()) {
    std::cerr << "racelab-bench: " << c.status().message() << "\n";
    return false;
  }
  QueryResult r =
      (*c)->Exec(std::string("DROP SCHEMA IF EXISTS ") + kSchema + " CASCADE; CREATE SCHEMA " +
                     kSchema + "; SET search_path TO " + kSchema +
                     "; CREATE TABLE runs (id bigint PRIMARY KEY, status text NOT NULL, attempts "
                     "int NOT NULL DEFAULT 0);"
                     " CREATE INDEX runs_queued ON runs (id) WHERE status = 'queued';"
                     " INSERT INTO runs (id, status) SELECT g, 'queued' FROM generate_series(1, " +
                     std::to_string(kQueueRows) + ") g; ANALYZE runs;",
                 In(120));
  if (!r.ok()) std::cerr << "racelab-bench: setup failed: " << r.message << "\n";
  return r.ok();
}

void DropSchema() {
  auto c = Connection::Open(g_conninfo, "racelab:bench", In(10), nullptr);
  if (c.ok()) (*c)->Exec(std::string("DROP SCHEMA IF EXISTS ") + kSchema + " CASCADE", In(60));
}

}  // namespace
}  // namespace racelab

int main(int argc, char** argv) {
  using namespace racelab;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  std::unique_ptr<pg::EmbeddedCluster> cluster;
  std::optional<std::string> target = BenchTarget("racelab-bench", &cluster);
  if (!target) return 3;
  g_conninfo = *target;
  if (!PrepareSchema()) return 3;
  for (IsolationLevel level : AllIsolationLevels()) {
    std::string name = "guarded_cas_claim/" + std::string(IsolationName(level));
    for (char& ch : name) ch = ch == ' ' ? '_' : ch;
    benchmark::RegisterBenchmark(name.c_str(), GuardedCasClaim, level)
        ->Threads(1)
        ->Threads(2)
        ->Threads(4)
        ->Threads(8)
        ->UseRealTime();
  }
  bench::RegisterProtocolClaims(&g_conninfo);   // guarded_cas_claim/<level>/<protocol>/threads:N
  bench::RegisterClaimStrategies(&g_conninfo);  // strategy/<strategy>/<level>/threads:N
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  DropSchema();
  return 0;
}
