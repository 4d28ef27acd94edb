#include "harness/check/checker.h"

#include <algorithm>

#include "harness/check/internal.h"

namespace racelab::check {

std::string_view DepTypeName(DepType t) {
  switch (t) {
    case DepType::kWw:
      return "ww";
    case DepType::kWr:
      return "wr";
    case DepType::kRw:
      return "rw";
    case DepType::kProcess:
      return "process";
  }
  return "?";
}

namespace internal {

bool AnomalySink::Wants(const std::string& name) const {
  auto it = kept_.find(name);
  return it == kept_.end() || it->second < max_;
}

void AnomalySink::Add(const std::string& name, std::vector<uint32_t> txns,
                      const std::function<std::string()>& explain, std::vector<Dependency> cycle) {
  ++r_->counts[name];
  if (!Wants(name)) return;
  ++kept_[name];
  r_->anomalies.push_back(Anomaly{
      .name = name, .txns = std::move(txns), .cycle = std::move(cycle), .explanation = explain()});
}

namespace {

// Each process's ok and info transactions in history order; a failed one is not in the graph.
void ProcessOrder(const History& h, std::vector<Dependency>* deps) {
  std::vector<uint32_t> last(h.processes.size(), UINT32_MAX);
  for (uint32_t t = 0; t < h.txns.size(); ++t) {
    const Txn& txn = h.txns[t];
    if (txn.outcome == Outcome::kFail) continue;
    uint32_t& prev = last[txn.process];
    if (prev != UINT32_MAX)
      deps->push_back(Dependency{.from = prev, .to = t, .type = DepType::kProcess});
    prev = t;
  }
}

}  // namespace
}  // namespace internal

Result<CheckResult> Check(const History& h, const CheckOptions& options) {
  CheckResult result;
  for (const Txn& t : h.txns) {
    result.ok += t.outcome == Outcome::kOk;
    result.failed += t.outcome == Outcome::kFail;
    result.info += t.outcome == Outcome::kInfo;
  }
  internal::AnomalySink sink(&result, options.max_examples);
  internal::Inferred inferred;
  Status s = h.model == Model::kListAppend ? internal::InferListAppend(h, &sink, &inferred)
                                           : internal::InferRwRegister(h, &sink, &inferred);
  if (!s.ok()) return s;
  if (options.stop != nullptr && options.stop->stop_requested())
    return Status::Usage("interrupted");
  if (options.process_order) internal::ProcessOrder(h, &inferred.deps);
  result.dependencies = inferred.deps.size();
  result.cyclic_components = internal::FindCycles(h, std::move(inferred.deps), &sink);
  return result;
}

}  // namespace racelab::check
