#include "bench/bench_help.h"

#include <benchmark/benchmark.h>

#include <cstdio>

namespace racelab::bench {

const char* HelpText() {
  return R"(racelab-bench: claim throughput and latency on PostgreSQL (Google Benchmark)

Every benchmark claims the head of one 100,000-row queue, runs(id, status, attempts), in schema
racelab_bench (made at the start, dropped at the end): N threads, one connection each, all aiming at
the same head row, so it measures the claim under contention. docs/performance.md and
docs/claim-strategies.md show figures and how to compare them with pgbench.

Families (--benchmark_filter takes a regular expression over these names):
  guarded_cas_claim/<level>/real_time/threads:N
      The guarded compare-and-swap claim (context claim_sql) in BEGIN ISOLATION LEVEL <level> ...
      COMMIT, simple protocol; Google Benchmark picks the iteration count (--benchmark_min_time).
  guarded_cas_claim/<level>/<protocol>/iterations:1/real_time/threads:N
      The same transaction in each of pgbench's query modes: simple, extended, prepared (-M) and
      pipeline (\startpipeline); every thread runs for RACELAB_BENCH_SECONDS, like pgbench -T.
  strategy/<strategy>/<level>/iterations:1/real_time/threads:N
      Six ways to claim (naive, for_update, nowait, skip_locked, guarded_cas, advisory; context
      strategy_sql_<strategy>), failed attempts (40001, 40P01, 55P03) rolled back and retried; every
      thread runs for RACELAB_BENCH_SECONDS.
  <level>: read_committed, repeatable_read, serializable.   N: 1, 2, 4, 8 (protocols: 1, 2, 4).

Counters (rates are per second of wall time, summed over threads):
  items_per_second        transactions (guarded_cas_claim/<level>/<protocol>, like pgbench's tps)
                          or attempts (strategy/...)
  claims                  a row claimed: the claim returned a row and COMMIT committed (strategy/...:
                          claimed by exactly one worker, attempts = 1)
  lost                    the claim matched no row without an error (another worker had it)
  double_claims           strategy/...: a row claimed by a second worker too (attempts > 1)
  serialization_failures  SQLSTATE 40001 (strategy/...: and 40P01 deadlock)
  lock_not_available      strategy/...: SQLSTATE 55P03 (nowait)
  retries                 strategy/...: serialization_failures + lock_not_available
  latency_{p50,p90,p99,p999,max}_us
                          strategy/...: a claim's latency, first attempt to committed claim (its
                          retries included), over every claim of all threads
  txn_latency_{p50,p90,p99,p999,max}_us
                          guarded_cas_claim/...: one transaction, BEGIN sent to its COMMIT (or
                          ROLLBACK after 40001) answered, over every transaction of all threads
  Percentiles are nearest-rank from a full histogram (harness/metrics/latency_histogram.h: within
  0.4 %). With --benchmark_repetitions=K each cell runs K times and Google Benchmark adds the
  aggregates _mean, _median, _stddev, _cv and racelab's _ci95: the half-width of the 95 % Student-t
  confidence interval of the mean (harness/metrics/confidence.h), which bench/plot_strategies.py
  draws as error bars.

JSON context (--benchmark_format=json or --benchmark_out=FILE), written after the last benchmark:
  server_version, setting_fsync, setting_synchronous_commit, setting_shared_buffers,
  setting_full_page_writes; online_cpus, load_avg_before, load_avg_after; bench_seconds; and the SQL
  of the families that ran: claim_sql, strategy_sql_<strategy>, begin_sql_<level>.

Environment:
  RACELAB_BENCH_DSN      libpq conninfo of the server to measure; unset: racelab's embedded
                         PostgreSQL (fsync, synchronous_commit, full_page_writes off), removed at exit
  RACELAB_BENCH_SECONDS  how long each thread of the .../iterations:1/... benchmarks runs (default 5)
  RACELAB_TMPDIR, TMPDIR where the embedded server's files go (default /tmp)
  BENCHMARK_FILTER, ...  Google Benchmark's flags, each also read from its name in capitals

Exit status: 0; 2 unknown arguments; 3 the server could not be started or reached.

)";
}

void PrintHelp() {
  std::fputs(HelpText(), stdout);
  std::fputs("Google Benchmark's flags:\n", stdout);
  benchmark::PrintDefaultHelp();
}

}  // namespace racelab::bench
