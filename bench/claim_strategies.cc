#include "bench/claim_strategies.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "bench/bench_context.h"
#include "bench/claim_sql.h"
#include "bench/claim_strategy.h"
#include "bench/latency_counters.h"
#include "harness/engines/postgresql/connection.h"
#include "harness/metrics/confidence.h"
#include "harness/metrics/latency_histogram.h"
#include "harness/model/isolation.h"

namespace racelab::bench {
namespace {

using pg::Connection;

SteadyTime In(std::chrono::seconds s) { return std::chrono::steady_clock::now() + s; }

enum class Outcome { kClaimed, kDouble, kLost, kSerialization, kLockNotAvailable, kError };

// One attempt: BEGIN … COMMIT; on an error the transaction is rolled back.
Outcome Attempt(Connection* c, Strategy s, const std::string& begin, std::string* error) {
  constexpr std::chrono::seconds kTimeout{30};
  auto failed = [&](const QueryResult& r) {
    c->Exec("ROLLBACK", In(kTimeout));
    if (r.sqlstate == "40001" || r.sqlstate == "40P01") return Outcome::kSerialization;
    if (r.sqlstate == "55P03") return Outcome::kLockNotAvailable;
    *error = r.sqlstate + " " + r.message;
    return Outcome::kError;
  };
  QueryResult r = c->Exec(begin, In(kTimeout));
  if (!r.ok()) return failed(r);
  if (s == Strategy::kAdvisory) {
    r = c->Exec(kAdvisoryLockSql, In(kTimeout));
    if (!r.ok()) return failed(r);
  }
  if (s == Strategy::kGuardedCas) {
    r = c->Exec(kStrategyCasSql, In(kTimeout));
  } else {
    r = c->Exec(PickSql(s), In(kTimeout));
    if (!r.ok()) return failed(r);
    if (r.values.empty() || !r.values[0][0]) {
      c->Exec("COMMIT", In(kTimeout));
      return Outcome::kLost;
    }
    r = c->Exec(StrategyUpdateSql(*r.values[0][0]), In(kTimeout));
  }
  if (!r.ok()) return failed(r);
  const bool got = !r.values.empty() && r.values[0][0].has_value();
  const bool first = got && *r.values[0][0] == "1";
  QueryResult commit = c->Exec("COMMIT", In(kTimeout));
  if (!commit.ok()) return failed(commit);
  if (commit.command_tag != "COMMIT") return Outcome::kSerialization;  // PostgreSQL: tag ROLLBACK
  if (!got) return Outcome::kLost;
  return first ? Outcome::kClaimed : Outcome::kDouble;
}

// Claim latencies of all threads of the running benchmark (bench/latency_counters.h).
SharedLatencies g_latencies;

void Run(benchmark::State& state, const std::string* conninfo, Strategy strategy,
         IsolationLevel level) {
  auto opened = Connection::Open(*conninfo, "racelab:bench", In(std::chrono::seconds(10)), nullptr);
  if (!opened.ok()) {
    state.SkipWithError(opened.status().message().c_str());
    return;
  }
  std::unique_ptr<Connection> conn = std::move(opened.value());
  conn->Exec(std::string("SET search_path TO ") + kBenchSchema, In(std::chrono::seconds(10)));
  if (state.thread_index() == 0) {  // before the synchronised start of the loop
    g_latencies.Clear();
    QueryResult r =
        conn->Exec("UPDATE runs SET status = 'queued', attempts = 0 WHERE status <> 'queued'",
                   In(std::chrono::seconds(120)));
    if (r.ok()) r = conn->Exec("VACUUM runs", In(std::chrono::seconds(120)));
    if (!r.ok()) {
      state.SkipWithError(("reset: " + r.message).c_str());
      return;
    }
  }
  const std::string begin = BeginSql(level);
  double claims = 0, doubles = 0, lost = 0, serialization = 0, not_available = 0;
  int64_t attempts = 0;
  metrics::LatencyHistogram latencies;
  std::string error;
  for (auto _ : state) {
    const auto until = std::chrono::steady_clock::now() + BenchSeconds(kSecondsDefault);
    auto first_attempt = std::chrono::steady_clock::now();
    while (error.empty() && std::chrono::steady_clock::now() < until) {
      ++attempts;
      const Outcome o = Attempt(conn.get(), strategy, begin, &error);
      const auto now = std::chrono::steady_clock::now();
      switch (o) {
        case Outcome::kClaimed:
          ++claims;
          latencies.Record(std::chrono::duration<double, std::micro>(now - first_attempt).count());
          first_attempt = now;
          break;
        case Outcome::kDouble:
          ++doubles;
          first_attempt = now;
          break;
        case Outcome::kLost:
          ++lost;
          first_attempt = now;
          break;
        case Outcome::kSerialization:
          ++serialization;
          break;  // retried: the claim goes on
        case Outcome::kLockNotAvailable:
          ++not_available;
          break;  // retried
        case Outcome::kError:
          break;
      }
    }
    g_latencies.Merge(latencies);  // in the loop body: before the threads' end barrier
  }
  if (!error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  using benchmark::Counter;
  state.SetItemsProcessed(attempts);
  state.counters["claims"] = Counter(claims, Counter::kIsRate);
  state.counters["double_claims"] = Counter(doubles, Counter::kIsRate);
  state.counters["lost"] = Counter(lost, Counter::kIsRate);
  state.counters["serialization_failures"] = Counter(serialization, Counter::kIsRate);
  state.counters["lock_not_available"] = Counter(not_available, Counter::kIsRate);
  state.counters["retries"] = Counter(serialization + not_available, Counter::kIsRate);
  g_latencies.SetCounters(state, "latency");
}

}  // namespace

void RegisterClaimStrategies(const std::string* conninfo) {
  for (Strategy s : kAllStrategies) {
    for (IsolationLevel level : AllIsolationLevels()) {
      const std::string name = std::string("strategy/") + StrategyName(s) + "/" + LevelSlug(level);
      benchmark::RegisterBenchmark(name.c_str(), Run, conninfo, s, level)
          ->Iterations(1)
          ->Threads(1)
          ->Threads(2)
          ->Threads(4)
          ->Threads(8)
          ->UseRealTime()
          ->Unit(benchmark::kSecond)
          ->ComputeStatistics("ci95", metrics::HalfWidth95);
    }
  }
}

}  // namespace racelab::bench
