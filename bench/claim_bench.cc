// racelab-bench: Google Benchmark suite — claim strategies × isolation levels × workers
// (strategy/…: bench/claim_strategies.h; by wire protocol: bench/protocol_claims.h). `racelab-bench
// --help` explains the families, counters, context and environment (bench/bench_help.cc).
//
// guarded_cas_claim/<level>/threads:N — N threads, one libpq connection each, claim the head of a
// queue of 100,000 runs with the guarded compare-and-swap kClaimSql (bench/claim_sql.h)
// in a transaction at <level>. All threads aim at the same head row, so this measures the claim
// under contention. Counters (rates, per second of wall time): claims (a row returned and COMMIT
// succeeded), lost (0 rows: another worker won the row; read committed), serialization_failures
// (SQLSTATE 40001); txn_latency_*_us (bench/latency_counters.h), BEGIN sent to COMMIT answered.
// Target: the embedded cluster, or $RACELAB_BENCH_DSN. The JSON context is written after the last
// benchmark (bench/context_last.h): the server, its settings, the machine's load before and after,
// and the SQL of the families that ran.
#include <benchmark/benchmark.h>

#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench_context.h"
#include "bench/bench_help.h"
#include "bench/bench_target.h"
#include "bench/claim_sql.h"
#include "bench/claim_strategies.h"
#include "bench/context_last.h"
#include "bench/latency_counters.h"
#include "bench/protocol_claims.h"
#include "harness/engines/postgresql/cluster.h"
#include "harness/engines/postgresql/connection.h"
#include "harness/metrics/confidence.h"
#include "harness/model/isolation.h"

namespace racelab {
namespace {

using pg::Connection;

using bench::kBenchSchema;

std::string g_conninfo;  // set once in main() before any benchmark runs; read-only afterwards
bench::SharedLatencies g_txn_latencies;
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
  (*c)->Exec(std::string("SET search_path TO ") + kBenchSchema, In(10));
  return std::move(c.value());
}

void GuardedCasClaim(benchmark::State& state, IsolationLevel level) {
  auto conn = MustConnect(state);
  if (!conn) return;
  if (state.thread_index() == 0) {
    // Before the loop: Google Benchmark starts all threads' loops together after this.
    g_txn_latencies.Clear();
    conn->Exec("UPDATE runs SET status = 'queued', attempts = 0 WHERE status <> 'queued'", In(60));
  }
  const std::string begin = bench::BeginSql(level);
  double claims = 0, lost = 0, failures = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    conn->Exec(begin, In(30));
    QueryResult r = conn->Exec(bench::kClaimSql, In(30));
    if (!r.ok()) {
      conn->Exec("ROLLBACK", In(30));
      if (r.sqlstate == "40001") {
        ++failures;
        g_txn_latencies.Record(bench::MicrosSince(start));
        continue;
      }
      state.SkipWithError(("claim failed: " + r.sqlstate + " " + r.message).c_str());
      break;
    }
    QueryResult c = conn->Exec("COMMIT", In(30));
    g_txn_latencies.Record(bench::MicrosSince(start));
    if (!c.ok() && c.sqlstate == "40001") {
      ++failures;
    } else if (r.rows == 1 && c.command_tag == "COMMIT") {
      ++claims;
    } else {
      ++lost;
    }
  }
  g_txn_latencies.SetCounters(state, "txn_latency");
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
      (*c)->Exec(std::string("DROP SCHEMA IF EXISTS ") + kBenchSchema + " CASCADE; CREATE SCHEMA " +
                     kBenchSchema + "; SET search_path TO " + kBenchSchema +
                     "; CREATE TABLE runs (id bigint PRIMARY KEY, status text NOT NULL, attempts "
                     "int NOT NULL DEFAULT 0);"
                     " CREATE INDEX runs_queued ON runs (id) WHERE status = 'queued';"
                     " INSERT INTO runs (id, status) SELECT g, 'queued' FROM generate_series(1, " +
                     std::to_string(kQueueRows) + ") g; ANALYZE runs;",
                 In(120));
  if (!r.ok()) std::cerr << "racelab-bench: setup failed: " << r.message << "\n";
  return r.ok();
}

// server_version and the settings that matter (bench/bench_context.h) into the context.
bool AddServerContext() {
  auto c = Connection::Open(g_conninfo, "racelab:bench", In(10), nullptr);
  auto facts = c.ok() ? bench::ServerContext(c->get(), bench::PostgresServerFacts())
                      : Result<std::map<std::string, std::string>>(c.status());
  if (!facts.ok()) {
    std::cerr << "racelab-bench: " << facts.status().message() << "\n";
    return false;
  }
  bench::AddContext(*facts);
  return true;
}

void DropSchema() {
  auto c = Connection::Open(g_conninfo, "racelab:bench", In(10), nullptr);
  if (c.ok()) (*c)->Exec(std::string("DROP SCHEMA IF EXISTS ") + kBenchSchema + " CASCADE", In(60));
}

}  // namespace
}  // namespace racelab

int main(int argc, char** argv) {
  using namespace racelab;
  benchmark::Initialize(&argc, argv, bench::PrintHelp);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  bench::AddContext(bench::MachineContextBefore());  // before the embedded server starts
  std::unique_ptr<pg::EmbeddedCluster> cluster;
  std::optional<std::string> target = BenchTarget("racelab-bench", &cluster);
  if (!target) return 3;
  g_conninfo = *target;
  if (!AddServerContext() || !PrepareSchema()) return 3;
  benchmark::AddCustomContext("engine", "postgresql");
  benchmark::AddCustomContext("bench_seconds",
                              std::to_string(bench::BenchSeconds(bench::kSecondsDefault).count()));
  for (IsolationLevel level : AllIsolationLevels()) {
    const std::string name = "guarded_cas_claim/" + bench::LevelSlug(level);
    benchmark::RegisterBenchmark(name.c_str(), GuardedCasClaim, level)
        ->Threads(1)
        ->Threads(2)
        ->Threads(4)
        ->Threads(8)
        ->UseRealTime()
        ->ComputeStatistics("ci95", metrics::HalfWidth95);
  }
  bench::RegisterProtocolClaims(&g_conninfo);   // guarded_cas_claim/<level>/<protocol>/threads:N
  bench::RegisterClaimStrategies(&g_conninfo);  // strategy/<strategy>/<level>/threads:N
  bench::RunBenchmarksContextLast([](const std::vector<std::string>& families) {
    std::map<std::string, std::string> late = bench::SqlContext(families);
    late.merge(bench::MachineContextAfter());
    return late;
  });
  benchmark::Shutdown();
  DropSchema();
  return 0;
}
