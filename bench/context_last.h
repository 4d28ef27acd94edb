// RunBenchmarksContextLast: Google Benchmark's RunSpecifiedBenchmarks() — the same filter, display
// format (--benchmark_format) and file output (--benchmark_out, --benchmark_out_format) — except
// that the context can hold what only the end of the run knows: which benchmarks ran (so the SQL it
// names is the SQL that ran, bench/claim_sql.h) and the machine's load after them
// (bench/bench_context.h). `late(families)` is called once, after the last benchmark, with the
// function names of every benchmark that ran (errors included, each once, in order: e.g.
// "strategy/naive/read_committed"); its entries join the context (benchmark::AddCustomContext).
// How each format gets them:
//   json, csv  the reporter is given the context and the runs after the last benchmark, so the
//              context (JSON "context" object) holds the late entries; nothing is written before.
//   console    rows appear as each benchmark ends, as usual; the late entries follow the last row,
//              on standard error as the context is, one "key: value" a line.
// Returns the number of benchmarks that ran. Thread-safety: call from main(), once, after
// benchmark::Initialize.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace racelab::bench {

using LateContext =
    std::function<std::map<std::string, std::string>(const std::vector<std::string>& families)>;

size_t RunBenchmarksContextLast(const LateContext& late);

}  // namespace racelab::bench
