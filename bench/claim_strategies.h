// Claim strategies compared: the question teams ask — which way of taking the next job off a queue
// table holds up under contention, at which isolation level, with how many workers.
//
// strategy/<strategy>/<level>/iterations:1/real_time/threads:N — N threads, one connection each
// (PostgreSQL, simple protocol through the engine's Connection), all claiming from the head of the
// same 100,000-row queue (racelab-bench's table: runs(id, status, attempts), partial index on
// queued rows). One attempt is one transaction, BEGIN ISOLATION LEVEL <level> … COMMIT, with:
//   naive         SELECT id … WHERE status = 'queued' ORDER BY id LIMIT 1; UPDATE … WHERE id = $id
//   for_update    the SELECT … FOR UPDATE, then the UPDATE
//   nowait        the SELECT … FOR UPDATE NOWAIT (55P03 when the head is locked), then the UPDATE
//   skip_locked   the SELECT … FOR UPDATE SKIP LOCKED, then the UPDATE
//   guarded_cas   one UPDATE … WHERE id = (SELECT min(id) … 'queued') AND status = 'queued'
//   advisory      SELECT pg_advisory_xact_lock(<queue>) first, then naive's SELECT and UPDATE
// Every UPDATE sets status 'running' and attempts = attempts + 1 and returns attempts. A failed
// attempt (40001 serialization failure, 40P01 deadlock, 55P03 lock not available) is rolled back
// and retried: the next attempt is the retry. The statements are bench/claim_sql.h's
// (StrategyStatements), and the JSON context names those that ran (strategy_sql_<strategy>).
// Counters (rates are per second of wall time, summed over threads):
//   claims                  rows claimed by exactly one worker (UPDATE returned attempts = 1,
//                           COMMIT ok)
//   double_claims           a row claimed by a second worker too (attempts > 1: the first claim's
//                           work is done twice — naive at read committed)
//   lost                    attempts that claimed nothing without an error (the head was taken and
//                           the re-checked row no longer matches; guarded_cas's 0-row UPDATE)
//   serialization_failures  SQLSTATE 40001 (and 40P01), retried
//   lock_not_available      SQLSTATE 55P03 (nowait), retried
//   retries                 serialization_failures + lock_not_available
//   latency_{p50,p90,p99,p999,max}_us  first attempt to committed claim, over every claim of all
//                           threads (bench/latency_counters.h)
//   items_per_second        attempts per second
// Like pgbench -T, each thread runs for $RACELAB_BENCH_SECONDS (default 5 s) in one iteration;
// thread 0 resets and VACUUMs the queue before the (synchronised) start. With
// --benchmark_repetitions=K, the _ci95 aggregate is the half-width of each figure's 95 % interval.
// bench/plot_strategies.py turns the JSON output into docs/claim-strategies.svg (error bars from
// the repetitions) and a Markdown summary.
#pragma once

#include <string>

namespace racelab::bench {

// Registers the benchmarks above against `*conninfo` (read when a benchmark runs).
void RegisterClaimStrategies(const std::string* conninfo);

}  // namespace racelab::bench
