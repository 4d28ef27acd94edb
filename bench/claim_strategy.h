// The claim strategies both strategy suites run — racelab-bench's on PostgreSQL
// (bench/claim_strategies.cc) and racelab-mariadb-bench's on MariaDB (bench/mariadb_claim_bench.cc)
// — their benchmark names and the SELECT that picks the queue head (the same SQL on both engines);
// both report latency percentiles from harness/metrics/latency_histogram.h. Each suite keeps what
// differs per engine: the advisory lock, the guarded CAS's result, the retried error codes
// (docs/claim-strategies.md). Thread-safety: pure functions and constants.
#pragma once

#include <string>

namespace racelab::bench {

enum class Strategy { kNaive, kForUpdate, kNowait, kSkipLocked, kGuardedCas, kAdvisory };

inline constexpr Strategy kAllStrategies[] = {Strategy::kNaive,      Strategy::kForUpdate,
                                              Strategy::kNowait,     Strategy::kSkipLocked,
                                              Strategy::kGuardedCas, Strategy::kAdvisory};

// The strategy's part of the benchmark name: "naive", "for_update", "nowait", "skip_locked",
// "guarded_cas", "advisory" (bench/plot_strategies.py reads them).
inline const char* StrategyName(Strategy s) {
  switch (s) {
    case Strategy::kNaive:
      return "naive";
    case Strategy::kForUpdate:
      return "for_update";
    case Strategy::kNowait:
      return "nowait";
    case Strategy::kSkipLocked:
      return "skip_locked";
    case Strategy::kGuardedCas:
      return "guarded_cas";
    case Strategy::kAdvisory:
      return "advisory";
  }
  return "?";
}

inline constexpr const char* kSelectHead =
    "SELECT id FROM runs WHERE status = 'queued' ORDER BY id LIMIT 1";

// The SELECT that picks the row; "" for guarded_cas, whose one UPDATE picks it itself. FOR UPDATE,
// NOWAIT and SKIP LOCKED are spelled alike in PostgreSQL and MariaDB 10.6+.
inline std::string PickSql(Strategy s) {
  switch (s) {
    case Strategy::kNaive:
    case Strategy::kAdvisory:
      return kSelectHead;
    case Strategy::kForUpdate:
      return std::string(kSelectHead) + " FOR UPDATE";
    case Strategy::kNowait:
      return std::string(kSelectHead) + " FOR UPDATE NOWAIT";
    case Strategy::kSkipLocked:
      return std::string(kSelectHead) + " FOR UPDATE SKIP LOCKED";
    case Strategy::kGuardedCas:
      return "";
  }
  return "";
}

}  // namespace racelab::bench
