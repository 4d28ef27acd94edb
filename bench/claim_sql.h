// The SQL racelab-bench's PostgreSQL families send, from this one place, and the JSON context that
// names it. Each family builds its statements from the functions here, and the context is made from
// the names of the benchmarks that ran (bench/context_last.h), so a record says what ran:
//   claim_sql               the guarded CAS claim of guarded_cas_claim/… (claim_bench.cc and
//                           protocol_claims.h: the same text,
//                           bench/pgbench/guarded_cas_claim.sql's)
//   strategy_sql_<name>     one attempt of strategy/<name>/… (claim_strategies.h), its statements
//   in
//                           order joined by "; ", $1 for the id the SELECT picked
//   begin_sql_<level>       the BEGIN of each level that ran
// Thread-safety: pure functions and constants.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "bench/claim_strategy.h"
#include "harness/model/isolation.h"

namespace racelab::bench {

// The queue table's schema (created by the racelab-bench main).
inline constexpr const char* kBenchSchema = "racelab_bench";

// The guarded CAS claim of guarded_cas_claim/…, exactly as bench/pgbench/*.sql has it.
inline constexpr const char* kClaimSql =
    "UPDATE runs SET status = 'running', attempts = attempts + 1 "
    "WHERE id = (SELECT min(id) FROM runs WHERE status = 'queued') AND status = 'queued' RETURNING "
    "id";

// strategy/guarded_cas's claim: the same UPDATE, returning attempts (a double claim shows as > 1).
inline constexpr const char* kStrategyCasSql =
    "UPDATE runs SET status = 'running', attempts = attempts + 1 "
    "WHERE id = (SELECT min(id) FROM runs WHERE status = 'queued') AND status = 'queued' RETURNING "
    "attempts";

// strategy/advisory's first statement: one transaction-scoped lock for the whole queue.
inline constexpr const char* kAdvisoryLockSql = "SELECT pg_advisory_xact_lock(20261130)";

// "read_committed": the level's part of a benchmark name.
std::string LevelSlug(IsolationLevel level);
// "BEGIN ISOLATION LEVEL READ COMMITTED".
std::string BeginSql(IsolationLevel level);
// The claiming UPDATE of the two-statement strategies, for the row `id` the SELECT picked.
std::string StrategyUpdateSql(const std::string& id);
// One attempt's statements of strategy `s` between BEGIN and COMMIT, "$1" for the picked id.
std::vector<std::string> StrategyStatements(Strategy s);

// The context entries above for the benchmark families that ran (Google Benchmark's function names:
// "guarded_cas_claim/read_committed", "guarded_cas_claim/serializable/prepared",
// "strategy/naive/repeatable_read"); names of no family here add nothing.
std::map<std::string, std::string> SqlContext(const std::vector<std::string>& families);

}  // namespace racelab::bench
