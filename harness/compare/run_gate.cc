#include "harness/compare/run_gate.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "harness/model/isolation.h"

namespace racelab::compare {

void AddRunGateOptions(CLI::App* run, RunGateArgs* args) {
  run->add_option("--shard", args->shard,
                  "Run only part K of N of the selected results (result i goes to part (i mod N) + "
                  "1); join the "
                  "parts' racelab.json with racelab merge");
  run->add_option(
      "--baseline", args->baseline,
      "After the run, compare it with this racelab.json: exit 1 only for a regression against it "
      "(docs/compare.md)");
  AddBaselineOptions(run, &args->compare);
}

Result<RunGate> PrepareRunGate(const RunGateArgs& args, const StopFlag* stop) {
  RunGate gate;
  gate.compare = args.compare;
  if (!args.shard.empty()) {
    auto shard = ParseShard(args.shard);
    if (!shard.ok()) return shard.status();
    gate.shard = *shard;
  }
  if (!(args.compare.alpha > 0 && args.compare.alpha < 1)) {
    return Status::Usage(
        fmt::format("--alpha {}: expected a number between 0 and 1", args.compare.alpha));
  }
  if (args.compare.timing != "warn" && args.compare.timing != "fail") {
    return Status::Usage(fmt::format("--timing {}: expected warn or fail", args.compare.timing));
  }
  if (!args.baseline.empty()) {
    auto view = ReadReportView(args.baseline, stop);
    if (!view.ok()) return Status::Usage("--baseline " + view.status().message());
    gate.baseline = std::move(view.value());
  }
  return gate;
}

namespace {

// Whether baseline result `r` is what plan item `item` runs (the identity compare matches on).
bool SameResult(const ResultView& r, const PlanItem& item) {
  if (r.scenario != item.scenario || r.engine != item.engine ||
      r.isolation != IsolationName(item.isolation)) {
    return false;
  }
  auto sorted = [](std::vector<std::pair<std::string, std::string>> p) {
    std::sort(p.begin(), p.end());
    return p;
  };
  return sorted(r.params) == sorted(item.params);
}

}  // namespace

void KeepShard(RunGate* gate, std::vector<PlanItem>* items, bool quiet) {
  if (!gate->shard) return;
  const size_t total = items->size();
  std::vector<PlanItem> kept, others;
  for (size_t i = 0; i < total; ++i) {
    (InShard(i, *gate->shard) ? kept : others).push_back(std::move((*items)[i]));
  }
  *items = std::move(kept);
  if (gate->baseline) {
    auto& results = gate->baseline->results;
    results.erase(std::remove_if(results.begin(), results.end(),
                                 [&](const ResultView& r) {
                                   return std::any_of(
                                       others.begin(), others.end(),
                                       [&](const PlanItem& item) { return SameResult(r, item); });
                                 }),
                  results.end());
  }
  if (!quiet) {
    std::cerr << fmt::format("racelab: shard {}/{}: {} of {} results\n", gate->shard->k,
                             gate->shard->n, items->size(), total);
  }
}

int FinishRunGate(const RunGate& gate, const RunReport& report, const std::string& formats,
                  const std::string& out, int run_exit) {
  if (!gate.baseline || run_exit == 2 || run_exit == 3 || run_exit >= 128) return run_exit;
  auto now = ViewOfRun(report, "this run");
  if (!now.ok()) {
    std::cerr << "racelab: " << now.status().message() << "\n";
    return 2;
  }
  CompareArgs args = gate.compare;
  args.formats = formats;
  args.out = out;
  return WriteComparison(*gate.baseline, *now, args);
}

}  // namespace racelab::compare
