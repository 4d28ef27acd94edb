#include "bench/protocol_claims.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "bench/bench_context.h"
#include "bench/latency_counters.h"
#include "bench/pg_claim_client.h"
#include "harness/metrics/confidence.h"
#include "harness/model/isolation.h"

namespace racelab::bench {

namespace {

constexpr std::chrono::seconds kStatementTimeout{30};
constexpr std::chrono::seconds kResetTimeout{120};

SharedLatencies g_txn_latencies;

void Claim(benchmark::State& state, const std::string* conninfo, IsolationLevel level,
           Protocol protocol) {
  std::string error;
  auto client =
      ClaimClient::Connect(*conninfo, protocol, std::string("SET search_path TO ") + kBenchSchema,
                           BeginSql(level), kClaimSql, &error);
  if (!client) {
    state.SkipWithError(error.c_str());
    return;
  }
  if (state.thread_index() == 0) g_txn_latencies.Clear();  // before the loops start together
  if (state.thread_index() == 0 &&
      (!client->Exec("UPDATE runs SET status = 'queued', attempts = 0 WHERE status <> 'queued'",
                     kResetTimeout) ||
       !client->Exec("VACUUM runs", kResetTimeout))) {
    state.SkipWithError(("reset: " + client->error()).c_str());
    return;
  }
  double claims = 0, lost = 0, failures = 0;
  int64_t transactions = 0;
  // One timed iteration per thread that runs transactions for RunSeconds(), as pgbench -T does:
  // every client is busy for the whole measurement (with a fixed iteration count per thread, the
  // threads that lose fewer claims would finish first and the rest would run alone).
  metrics::LatencyHistogram latencies;
  for (auto _ : state) {
    const auto until = std::chrono::steady_clock::now() + BenchSeconds(kSecondsDefault);
    while (std::chrono::steady_clock::now() < until) {
      ++transactions;
      const auto start = std::chrono::steady_clock::now();
      const ClaimOutcome outcome = client->RunOnce(kStatementTimeout);
      latencies.Record(MicrosSince(start));
      switch (outcome) {
        case ClaimOutcome::kClaimed:
          ++claims;
          break;
        case ClaimOutcome::kLost:
          ++lost;
          break;
        case ClaimOutcome::kSerializationFailure:
          ++failures;
          break;
        case ClaimOutcome::kError:
          state.SkipWithError(client->error().c_str());
          return;  // Google Benchmark 1.7: leave the loop after SkipWithError
      }
    }
    g_txn_latencies.Merge(latencies);  // in the loop body: before the threads' end barrier
  }
  g_txn_latencies.SetCounters(state, "txn_latency");
  state.SetItemsProcessed(transactions);
  state.counters["claims"] = benchmark::Counter(claims, benchmark::Counter::kIsRate);
  state.counters["lost"] = benchmark::Counter(lost, benchmark::Counter::kIsRate);
  state.counters["serialization_failures"] =
      benchmark::Counter(failures, benchmark::Counter::kIsRate);
}

}  // namespace

void RegisterProtocolClaims(const std::string* conninfo) {
  for (IsolationLevel level : AllIsolationLevels()) {
    for (Protocol p :
         {Protocol::kSimple, Protocol::kExtended, Protocol::kPrepared, Protocol::kPipeline}) {
      const std::string name = "guarded_cas_claim/" + LevelSlug(level) + "/" + ProtocolName(p);
      benchmark::RegisterBenchmark(name.c_str(), Claim, conninfo, level, p)
          ->Iterations(1)
          ->Threads(1)
          ->Threads(2)
          ->Threads(4)
          ->UseRealTime()
          ->Unit(benchmark::kSecond)
          ->ComputeStatistics("ci95", metrics::HalfWidth95);
    }
  }
}

}  // namespace racelab::bench
