// `run --shard K/N`: which results of a run's plan one CI job runs, so that N jobs together run
// each result (scenario × isolation level × params) exactly once. Deterministic: result i of the
// plan (plan order, 0-based) belongs to shard (i mod N) + 1, so the same selection gives the same
// split on every machine, and shards differ in size by at most one result. Thread-safety: pure
// functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "harness/model/status.h"

namespace racelab::compare {

struct Shard {
  size_t k = 1;  // 1-based
  size_t n = 1;
};

// "K/N" with 1 <= K <= N <= 1000; kUsage naming --shard otherwise.
Result<Shard> ParseShard(const std::string& text);

// Whether result `index` (0-based, plan order) belongs to `shard`.
inline bool InShard(size_t index, const Shard& shard) { return index % shard.n == shard.k - 1; }

// The shard a report's `command` ran (its "--shard K/N" or "--shard=K/N"), or nullopt.
std::optional<Shard> ShardOfCommand(const std::string& command);

}  // namespace racelab::compare
