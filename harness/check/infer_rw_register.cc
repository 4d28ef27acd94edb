// rw-register (Elle §5): values are unique, so a read names its writer (wr). The version order is
// known only in part: nil (the initial state) comes before every value, and a transaction that read
// v and then wrote w puts v before w. ww and rw edges follow from those known pairs.
#include <fmt/format.h>

#include <algorithm>

#include "harness/check/writes.h"

namespace racelab::check::internal {
namespace {

// A key's readers of nil, times its written values with no known predecessor, is bounded so that
// a history of blind writes cannot make quadratic edges; past it the nil-reader rw edges of the key
// are left out (docs/check.md, "Limits").
constexpr size_t kMaxInitialEdgesPerKey = size_t{1} << 16;

using Write = IndexedWrite;

struct VersionEdge {
  uint32_t key;
  int64_t from, to;  // from may be kNil
};

class RwRegister {
 public:
  RwRegister(const History& h, AnomalySink* sink, Inferred* out) : h_(h), sink_(sink), out_(out) {}
  Status Run();

 private:
  const Write* Writer(uint32_t key, int64_t value) const { return writes_.Writer(key, value); }
  bool Failed(uint32_t txn) const { return h_.txns[txn].outcome == Outcome::kFail; }
  void CheckInternal(uint32_t t);
  void ExternalReads(uint32_t t);
  void InitialVersions();
  void Edges();
  void LostUpdates();
  std::string Key(uint32_t key) const { return h_.keys[key]; }

  const History& h_;
  AnomalySink* sink_;
  Inferred* out_;
  WriteIndex writes_;
  std::vector<KeyValueTxn> readers_;      // external ok reads, by key and value
  std::vector<KeyValueTxn> read_writes_;  // read a key, then wrote it
  std::vector<VersionEdge> versions_;
  std::vector<std::pair<uint32_t, int64_t>> state_;  // CheckInternal: key → value known
};

// A read after the transaction's own write or read of the key must return that value.
void RwRegister::CheckInternal(uint32_t t) {
  state_.clear();
  for (const Mop& m : h_.MopsOf(h_.txns[t])) {
    if (m.kind == MopKind::kRead && !m.read_known) continue;
    auto it =
        std::find_if(state_.begin(), state_.end(), [&](const auto& s) { return s.first == m.key; });
    if (m.kind == MopKind::kRead && it != state_.end() && it->second != m.value) {
      const int64_t expected = it->second;
      sink_->Add("internal", {t}, [&] {
        return fmt::format("{} read {}={} where its own reads and writes say {}: internal",
                           TxnName(h_, t), Key(m.key), RegisterText(m.value),
                           RegisterText(expected));
      });
    }
    if (it == state_.end())
      state_.emplace_back(m.key, m.value);
    else
      it->second = m.value;
  }
}

void RwRegister::ExternalReads(uint32_t t) {
  auto mops = h_.MopsOf(h_.txns[t]);
  for (size_t i = 0; i < mops.size(); ++i) {
    const Mop& m = mops[i];
    if (m.kind != MopKind::kRead || !m.read_known) continue;
    bool first = true;
    const Mop* final_write = nullptr;
    for (size_t j = 0; j < mops.size(); ++j) {
      if (mops[j].key != m.key) continue;
      if (j < i) first = false;
      if (j > i && mops[j].kind == MopKind::kWrite) final_write = &mops[j];
    }
    if (!first) continue;
    readers_.push_back(KeyValueTxn{m.key, m.value, t});
    if (final_write != nullptr) {
      versions_.push_back(VersionEdge{m.key, m.value, final_write->value});
      read_writes_.push_back(KeyValueTxn{m.key, m.value, t});
    }
    if (m.value == kNil) continue;
    const Write* w = Writer(m.key, m.value);
    if (w == nullptr) {
      sink_->Add("garbage-read", {t}, [&] {
        return fmt::format("{} read {}={}, but no transaction wrote it: garbage-read",
                           TxnName(h_, t), Key(m.key), m.value);
      });
    } else if (Failed(w->txn)) {
      sink_->Add("G1a", {w->txn, t}, [&] {
        return fmt::format("{} read {}={}, but {} wrote it and failed: G1a", TxnName(h_, t),
                           Key(m.key), m.value, TxnName(h_, w->txn));
      });
    } else if (w->txn != t) {
      out_->deps.push_back(Dependency{.from = w->txn,
                                      .to = t,
                                      .key = m.key,
                                      .type = DepType::kWr,
                                      .from_value = m.value,
                                      .to_value = m.value});
      if (!w->final) {
        sink_->Add("G1b", {w->txn, t}, [&] {
          return fmt::format(
              "{} read {}={}, but {} wrote it and then wrote {} again: an intermediate "
              "version: G1b",
              TxnName(h_, t), Key(m.key), m.value, TxnName(h_, w->txn), Key(m.key));
        });
      }
    }
  }
}

// nil precedes every value: an edge nil → v for each committed-or-unknown value v with no known
// predecessor (the others follow nil through their predecessors).
void RwRegister::InitialVersions() {
  std::vector<std::pair<uint32_t, int64_t>> has_pred;
  for (const VersionEdge& e : versions_) has_pred.emplace_back(e.key, e.to);
  std::sort(has_pred.begin(), has_pred.end());
  for (uint32_t k = 0; k < h_.keys.size(); ++k) {
    auto lo = std::lower_bound(readers_.begin(), readers_.end(), KeyValueTxn{k, kNil, 0});
    size_t nil_readers = 0;
    for (auto it = lo; it != readers_.end() && it->key == k && it->value == kNil; ++it)
      ++nil_readers;
    if (nil_readers == 0) continue;
    std::vector<int64_t> roots;
    for (const Write& w : writes_.Of(k)) {
      if (!w.final || Failed(w.txn)) continue;
      if (!std::binary_search(has_pred.begin(), has_pred.end(), std::make_pair(k, w.value)))
        roots.push_back(w.value);
    }
    if (nil_readers * roots.size() > kMaxInitialEdgesPerKey) continue;
    for (int64_t v : roots) versions_.push_back(VersionEdge{k, kNil, v});
  }
}

void RwRegister::Edges() {
  for (const VersionEdge& e : versions_) {
    const Write* b = Writer(e.key, e.to);
    if (b == nullptr || Failed(b->txn)) continue;
    if (e.from != kNil) {
      const Write* a = Writer(e.key, e.from);
      if (a != nullptr && !Failed(a->txn) && a->txn != b->txn) {
        out_->deps.push_back(Dependency{.from = a->txn,
                                        .to = b->txn,
                                        .key = e.key,
                                        .type = DepType::kWw,
                                        .from_value = e.from,
                                        .to_value = e.to});
      }
    }
    auto lo = std::lower_bound(readers_.begin(), readers_.end(), KeyValueTxn{e.key, e.from, 0});
    for (auto it = lo; it != readers_.end() && it->key == e.key && it->value == e.from; ++it) {
      if (it->txn == b->txn) continue;
      out_->deps.push_back(Dependency{.from = it->txn,
                                      .to = b->txn,
                                      .key = e.key,
                                      .type = DepType::kRw,
                                      .from_value = e.from,
                                      .to_value = e.to});
    }
  }
}

void RwRegister::LostUpdates() {
  FindLostUpdates(h_, sink_, &read_writes_, [&](const std::string& names, const KeyValueTxn& r) {
    return fmt::format("{} read {}={} and each wrote {}: lost-update", names, Key(r.key),
                       RegisterText(r.value), Key(r.key));
  });
}

Status RwRegister::Run() {
  Status s = writes_.Build(h_, MopKind::kWrite,
                           [](const std::string& first, const std::string& second,
                              const std::string& key, int64_t value) {
                             return fmt::format(
                                 "{} and {} both write {}={}: rw-register needs each value "
                                 "written once",
                                 first, second, key, value);
                           });
  if (!s.ok()) return s;
  for (uint32_t t = 0; t < h_.txns.size(); ++t) {
    if (h_.txns[t].outcome != Outcome::kOk) continue;
    CheckInternal(t);
    ExternalReads(t);
  }
  std::sort(readers_.begin(), readers_.end());
  InitialVersions();
  Edges();
  LostUpdates();
  return Status::Ok();
}

}  // namespace

Status InferRwRegister(const History& h, AnomalySink* sink, Inferred* out) {
  return RwRegister(h, sink, out).Run();
}

}  // namespace racelab::check::internal
