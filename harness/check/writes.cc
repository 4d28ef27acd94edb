#include "harness/check/writes.h"

#include <fmt/format.h>

namespace racelab::check::internal {

Status WriteIndex::Build(const History& h, MopKind kind, const DuplicateText& duplicate) {
  by_key_.assign(h.keys.size(), {});
  std::vector<uint32_t> seen;
  for (uint32_t t = 0; t < h.txns.size(); ++t) {
    auto mops = h.MopsOf(h.txns[t]);
    seen.clear();
    for (size_t i = mops.size(); i-- > 0;) {
      const Mop& m = mops[i];
      if (m.kind != kind) continue;
      const bool final = std::find(seen.begin(), seen.end(), m.key) == seen.end();
      if (final) seen.push_back(m.key);
      by_key_[m.key].push_back(IndexedWrite{m.value, t, final});
    }
  }
  for (uint32_t k = 0; k < by_key_.size(); ++k) {
    auto& w = by_key_[k];
    std::sort(w.begin(), w.end());
    auto dup = std::adjacent_find(
        w.begin(), w.end(),
        [](const IndexedWrite& x, const IndexedWrite& y) { return x.value == y.value; });
    if (dup != w.end()) {
      return Status::Usage(duplicate(TxnName(h, std::min(dup->txn, (dup + 1)->txn)),
                                     TxnName(h, std::max(dup->txn, (dup + 1)->txn)), h.keys[k],
                                     dup->value));
    }
  }
  return Status::Ok();
}

void FindLostUpdates(
    const History& h, AnomalySink* sink, std::vector<KeyValueTxn>* read_writes,
    const std::function<std::string(const std::string& names, const KeyValueTxn& first)>& explain) {
  auto& rw = *read_writes;
  std::sort(rw.begin(), rw.end());
  for (size_t i = 0; i < rw.size();) {
    size_t j = i + 1;
    while (j < rw.size() && rw[j].key == rw[i].key && rw[j].value == rw[i].value) ++j;
    if (j - i >= 2) {
      std::vector<uint32_t> txns;
      for (size_t x = i; x < j; ++x) txns.push_back(rw[x].txn);
      const KeyValueTxn& first = rw[i];
      sink->Add("lost-update", txns, [&] {
        std::vector<std::string> names;
        for (uint32_t t : txns) names.push_back(TxnName(h, t));
        return explain(fmt::format("{}", fmt::join(names, ", ")), first);
      });
    }
    i = j;
  }
}

}  // namespace racelab::check::internal
