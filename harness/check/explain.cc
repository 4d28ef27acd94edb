// The prose of an anomaly: one clause per edge, in the words of the model.
#include <fmt/format.h>

#include "harness/check/internal.h"

namespace racelab::check::internal {

std::string TxnName(const History& h, uint32_t txn) {
  return fmt::format("T{}", h.txns[txn].index);
}

const Mop* ReadOf(const History& h, uint32_t txn, uint32_t key) {
  for (const Mop& m : h.MopsOf(h.txns[txn]))
    if (m.kind == MopKind::kRead && m.key == key) return &m;
  return nullptr;
}

namespace {

// "x=[1 2]" or "x=5": what `txn` read of `key`.
std::string ReadText(const History& h, uint32_t txn, uint32_t key, int64_t value) {
  const std::string& k = h.keys[key];
  if (h.model == Model::kRwRegister) return fmt::format("{}={}", k, RegisterText(value));
  const Mop* m = ReadOf(h, txn, key);
  return m == nullptr ? k : fmt::format("{}={}", k, ListText(h.ListOf(*m)));
}

std::string WriteText(const History& h, uint32_t key, int64_t value) {
  if (h.model == Model::kRwRegister) return fmt::format("wrote {}={}", h.keys[key], value);
  return fmt::format("appended {} to {}", value, h.keys[key]);
}

}  // namespace

std::string EdgeText(const History& h, const Dependency& d) {
  const std::string a = TxnName(h, d.from), b = TxnName(h, d.to);
  switch (d.type) {
    case DepType::kWw:
      return fmt::format("{} {} before {} {}", a, WriteText(h, d.key, d.from_value), b,
                         h.model == Model::kRwRegister
                             ? fmt::format("wrote {}={}", h.keys[d.key], d.to_value)
                             : fmt::format("appended {}", d.to_value));
    case DepType::kWr:
      return fmt::format("{} {} before {} read {}", a, WriteText(h, d.key, d.from_value), b,
                         ReadText(h, d.to, d.key, d.to_value));
    case DepType::kRw:
      return fmt::format("{} read {} before {} {}", a, ReadText(h, d.from, d.key, d.from_value), b,
                         h.model == Model::kRwRegister
                             ? fmt::format("wrote {}={}", h.keys[d.key], d.to_value)
                             : fmt::format("appended {}", d.to_value));
    case DepType::kProcess:
      return fmt::format("{} ran before {} on process {}", a, b,
                         h.processes[h.txns[d.from].process]);
  }
  return "";
}

}  // namespace racelab::check::internal
