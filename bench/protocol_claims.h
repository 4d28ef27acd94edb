// The claim benchmarks by wire protocol, for a side-by-side comparison with pgbench on identical
// SQL (bench/compare_pgbench.py runs both on one server).
//
// guarded_cas_claim/<level>/<protocol>/iterations:1/real_time/threads:N — N threads, one libpq
// connection each (bench/pg_claim_client.h), each iteration one transaction:
//   BEGIN ISOLATION LEVEL <level>; <kClaimSql>; COMMIT
// with <protocol> one of simple, extended, prepared (pgbench -M simple/extended/prepared) and
// pipeline (the three statements in one libpq pipeline, pgbench's \startpipeline/\endpipeline).
// Every thread aims at the same queue head, so this is the claim under contention. Before each run,
// thread 0 resets the queue and VACUUMs it (outside the timing), so every run starts from the same
// table state. Like pgbench -T, every thread runs transactions for $RACELAB_BENCH_SECONDS (default
// 5 s) in one benchmark iteration (the Time column is that duration). Counters: items_per_second =
// transactions per second (pgbench's tps); claims, lost (0 rows: another client won),
// serialization_failures (SQLSTATE 40001) as rates per second of wall time; txn_latency_*_us, one
// transaction from BEGIN sent to COMMIT answered (bench/latency_counters.h). The SQL is recorded in
// the JSON output's context (claim_sql, begin_sql_<level>: bench/claim_sql.h) so a comparison can
// check that pgbench ran the same text.
#pragma once

#include <string>

#include "bench/claim_sql.h"  // kBenchSchema, kClaimSql, BeginSql

namespace racelab::bench {

// Registers the benchmarks above against `*conninfo` (read when a benchmark runs, so it may be set
// after registration, before RunSpecifiedBenchmarks).
void RegisterProtocolClaims(const std::string* conninfo);

}  // namespace racelab::bench
