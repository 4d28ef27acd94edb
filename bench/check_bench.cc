// racelab-check-bench: the checker's speed and memory (harness/check/checker.h) on generated
// histories of 10k, 100k and 1M transactions, list-append and rw-register
// (harness/check/generate.h: 4 operations per transaction, half reads, 10 keys in use, each retired
// after 32 writes, 8 processes). Serializable histories (the checker's common case: nothing to
// report, every edge built and every component searched) and ones with a write skew every 1000
// transactions.
//
//   build/bench/racelab-check-bench --benchmark_filter='1000000'
//
// Counters: items_per_second = transactions checked per second (one core: the checker is
// single-threaded); peak_rss_MB = the process's peak resident memory so far (ru_maxrss: history
// and generator included, so an upper bound of the checker's), run one size per process for a
// size's own figure; deps = dependencies inferred.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <map>

#include "harness/check/checker.h"
#include "harness/check/generate.h"

namespace {

using racelab::check::GenerateHistory;
using racelab::check::GenerateOptions;
using racelab::check::History;
using racelab::check::Model;

const History& Cached(Model model, size_t txns, size_t skew_every) {
  static std::map<std::tuple<Model, size_t, size_t>, History> cache;
  auto key = std::make_tuple(model, txns, skew_every);
  auto it = cache.find(key);
  if (it == cache.end()) {
    cache.clear();  // one history at a time: the memory figure is of one size
    it = cache
             .emplace(
                 key,
                 GenerateHistory(
                     {.model = model, .txns = txns, .write_skew_every = skew_every, .seed = 42}))
             .first;
  }
  return it->second;
}

double PeakRssMb() {
  struct rusage u {};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // KiB on Linux
}

void Run(benchmark::State& state, Model model, size_t skew_every) {
  const size_t txns = static_cast<size_t>(state.range(0));
  const History& h = Cached(model, txns, skew_every);
  size_t deps = 0, anomalies = 0;
  for (auto _ : state) {
    auto r = racelab::check::Check(h);
    if (!r.ok()) {
      state.SkipWithError(r.status().message().c_str());
      return;
    }
    deps = r->dependencies;
    anomalies = 0;
    for (const auto& [name, n] : r->counts) anomalies += n;
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * txns));
  state.counters["deps"] = static_cast<double>(deps);
  state.counters["anomalies"] = static_cast<double>(anomalies);
  state.counters["peak_rss_MB"] = PeakRssMb();
}

void BM_CheckListAppend(benchmark::State& s) { Run(s, Model::kListAppend, 0); }
void BM_CheckRwRegister(benchmark::State& s) { Run(s, Model::kRwRegister, 0); }
void BM_CheckListAppendWriteSkews(benchmark::State& s) { Run(s, Model::kListAppend, 1000); }
void BM_CheckRwRegisterWriteSkews(benchmark::State& s) { Run(s, Model::kRwRegister, 1000); }

#define RACELAB_SIZES ->Arg(10000)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond)
BENCHMARK(BM_CheckListAppend) RACELAB_SIZES;
BENCHMARK(BM_CheckRwRegister) RACELAB_SIZES;
BENCHMARK(BM_CheckListAppendWriteSkews) RACELAB_SIZES;
BENCHMARK(BM_CheckRwRegisterWriteSkews) RACELAB_SIZES;

}  // namespace

BENCHMARK_MAIN();
