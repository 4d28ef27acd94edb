// The checker's parts, shared by its files only (checker.cc, infer_*.cc, cycles.cc, explain.cc).
// Thread-safety: each object belongs to one call of Check.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "harness/check/checker.h"

namespace racelab::check::internal {

// Counts every anomaly and keeps the first max_examples of each name; `explain` is called only for
// those kept, so a history with a million anomalies costs no million strings.
class AnomalySink {
 public:
  AnomalySink(CheckResult* result, size_t max_examples) : r_(result), max_(max_examples) {}
  bool Wants(const std::string& name) const;
  void Add(const std::string& name, std::vector<uint32_t> txns,
           const std::function<std::string()>& explain, std::vector<Dependency> cycle = {});

 private:
  CheckResult* r_;
  size_t max_;
  std::map<std::string, size_t> kept_;
};

// What the inference of a model gives the cycle search.
struct Inferred {
  std::vector<Dependency> deps;
};

// REQUIRES: h.model is the model of the function. Errors: a premise of the model broken.
Status InferListAppend(const History& h, AnomalySink* sink, Inferred* out);
Status InferRwRegister(const History& h, AnomalySink* sink, Inferred* out);

// The graph's cycles, named and explained, into `sink`; returns the count of cyclic components.
size_t FindCycles(const History& h, std::vector<Dependency> deps, AnomalySink* sink);

// "T3": the name of the transaction at position `txn`.
std::string TxnName(const History& h, uint32_t txn);
// The first read of `key` in the transaction at `txn` (for prose); nullptr when none.
const Mop* ReadOf(const History& h, uint32_t txn, uint32_t key);
// "T1 read x=[1] before T2 appended 2": one edge in prose.
std::string EdgeText(const History& h, const Dependency& d);
// The cycle's name: G0, G1c, G-single, G2-item, with "-process" when it needs a process edge.
std::string CycleName(std::span<const Dependency> cycle);

}  // namespace racelab::check::internal
