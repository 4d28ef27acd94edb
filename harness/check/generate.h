// Generated histories, for the benchmark (bench/check_bench.cc) and tests: transactions run one
// after another against an in-memory store, so the history is serializable, except for the write
// skews asked for by `write_skew_every`.
//
// Keys rotate as in Elle's generators: a key takes at most `writes_per_key` writes, then a new key
// replaces it, so reads stay short however long the history. Elements and values are unique.
// Thread-safety: a pure function of its options.
#pragma once

#include <cstddef>
#include <cstdint>

#include "harness/check/history.h"

namespace racelab::check {

struct GenerateOptions {
  Model model = Model::kListAppend;
  size_t txns = 1000;
  size_t active_keys = 10;     // keys in use at any time
  size_t ops_per_txn = 4;      // micro-operations per transaction
  size_t processes = 8;        // sessions, taking transactions in turn
  size_t writes_per_key = 32;  // then the key is retired
  double read_fraction = 0.5;
  size_t write_skew_every = 0;  // 0: none; n: a G2-item pair (two transactions reading the same
                                // state of two keys, each writing one) instead of every n-th txn
  uint64_t seed = 1;
};

History GenerateHistory(const GenerateOptions& options);

}  // namespace racelab::check
