// list-append (Elle §4): the longest read of a key is its version order; every other read must be
// a prefix of it. The dependencies follow from the order: ww between the writers of consecutive
// elements, wr from the writer of a read's last element to the reader, rw from the reader to the
// writer of the element after its last.
#include <fmt/format.h>

#include <algorithm>

#include "harness/check/writes.h"

namespace racelab::check::internal {
namespace {

// rw edges from one read of a whole version order to the appends no read shows: bounded, so that a
// key with many blind appends costs no quadratic edges (docs/check.md "Limits").
constexpr size_t kMaxUnobservedEdges = 256;

using Append = IndexedWrite;  // value: the element appended

class ListAppend {
 public:
  ListAppend(const History& h, AnomalySink* sink, Inferred* out) : h_(h), sink_(sink), out_(out) {}
  Status Run();

 private:
  const Append* Writer(uint32_t key, int64_t element) const {
    return appends_.Writer(key, element);
  }
  bool Failed(uint32_t txn) const { return h_.txns[txn].outcome == Outcome::kFail; }
  void FindVersionOrders();
  void CheckElements(uint32_t reader, const Mop& read);
  void CheckInternal(uint32_t t);
  void ExternalReads(uint32_t t);
  void WwEdges();
  void LostUpdates();
  std::string Key(uint32_t key) const { return h_.keys[key]; }

  const History& h_;
  AnomalySink* sink_;
  Inferred* out_;
  WriteIndex appends_;
  std::vector<const Mop*> longest_;  // per key: the longest ok read, its version order
  std::vector<uint32_t> longest_txn_;
  std::vector<uint8_t> incompatible_;  // per mop: a read that is no prefix of the longest
  // Per key: the appends no read shows (of transactions not failed). They come after the longest
  // read, so a read of the whole version order is followed by each of them (rw).
  std::vector<std::vector<Append>> unobserved_;
  std::vector<KeyValueTxn> read_writes_;  // read a key (value: the list's length), then appended
  // CheckInternal's per-transaction state, kept to reuse the memory.
  struct KeyState {
    uint32_t key;
    const Mop* base;
    std::vector<int64_t> appended;
  };
  std::vector<KeyState> state_;
};

void ListAppend::FindVersionOrders() {
  longest_.assign(h_.keys.size(), nullptr);
  longest_txn_.assign(h_.keys.size(), 0);
  for (uint32_t t = 0; t < h_.txns.size(); ++t) {
    if (h_.txns[t].outcome != Outcome::kOk) continue;
    for (const Mop& m : h_.MopsOf(h_.txns[t])) {
      if (m.kind != MopKind::kRead || !m.read_known) continue;
      if (longest_[m.key] == nullptr || m.list_size > longest_[m.key]->list_size) {
        longest_[m.key] = &m;
        longest_txn_[m.key] = t;
      }
    }
  }
  incompatible_.assign(h_.mops.size(), 0);
  for (uint32_t t = 0; t < h_.txns.size(); ++t) {
    if (h_.txns[t].outcome != Outcome::kOk) continue;
    for (const Mop& m : h_.MopsOf(h_.txns[t])) {
      if (m.kind != MopKind::kRead || !m.read_known || &m == longest_[m.key]) continue;
      auto mine = h_.ListOf(m);
      auto order = h_.ListOf(*longest_[m.key]);
      if (std::equal(mine.begin(), mine.end(), order.begin())) continue;
      incompatible_[&m - h_.mops.data()] = 1;
      const uint32_t other = longest_txn_[m.key];
      sink_->Add("incompatible-order", {t, other}, [&] {
        return fmt::format(
            "{} read {}={} and {} read {}={}: neither is a prefix of the other: "
            "incompatible-order",
            TxnName(h_, t), Key(m.key), ListText(mine), TxnName(h_, other), Key(m.key),
            ListText(order));
      });
      CheckElements(t, m);
    }
  }
  unobserved_.assign(h_.keys.size(), {});
  for (uint32_t k = 0; k < h_.keys.size(); ++k) {
    if (longest_[k] == nullptr) continue;
    CheckElements(longest_txn_[k], *longest_[k]);
    auto order = h_.ListOf(*longest_[k]);
    std::vector<int64_t> seen(order.begin(), order.end());
    std::sort(seen.begin(), seen.end());
    for (const Append& a : appends_.Of(k)) {
      if (!Failed(a.txn) && !std::binary_search(seen.begin(), seen.end(), a.value))
        unobserved_[k].push_back(a);
    }
  }
}

// Elements nobody appended, appended by a failed transaction, or read twice.
void ListAppend::CheckElements(uint32_t reader, const Mop& read) {
  auto list = h_.ListOf(read);
  std::vector<int64_t> sorted(list.begin(), list.end());
  std::sort(sorted.begin(), sorted.end());
  auto dup = std::adjacent_find(sorted.begin(), sorted.end());
  if (dup != sorted.end()) {
    sink_->Add("duplicate-elements", {reader}, [&] {
      return fmt::format("{} read {}={}, which holds {} more than once: duplicate-elements",
                         TxnName(h_, reader), Key(read.key), ListText(list), *dup);
    });
  }
  for (int64_t e : list) {
    const Append* w = Writer(read.key, e);
    if (w == nullptr) {
      sink_->Add("garbage-read", {reader}, [&] {
        return fmt::format("{} read {}={}, but no transaction appended {}: garbage-read",
                           TxnName(h_, reader), Key(read.key), ListText(list), e);
      });
    } else if (Failed(w->txn)) {
      sink_->Add("G1a", {w->txn, reader}, [&] {
        return fmt::format("{} read {}={}, but {} appended {} and failed: G1a", TxnName(h_, reader),
                           Key(read.key), ListText(list), TxnName(h_, w->txn), e);
      });
    }
  }
}

// A read in a transaction must show what the transaction read before and appended since.
void ListAppend::CheckInternal(uint32_t t) {
  size_t used = 0;
  auto state = [&](uint32_t key) -> KeyState& {
    for (size_t i = 0; i < used; ++i)
      if (state_[i].key == key) return state_[i];
    if (used == state_.size()) state_.emplace_back();
    KeyState& s = state_[used++];
    s.key = key;
    s.base = nullptr;
    s.appended.clear();
    return s;
  };
  for (const Mop& m : h_.MopsOf(h_.txns[t])) {
    KeyState& s = state(m.key);
    if (m.kind == MopKind::kAppend) {
      s.appended.push_back(m.value);
      continue;
    }
    if (m.kind != MopKind::kRead || !m.read_known) continue;
    auto list = h_.ListOf(m);
    bool fine;
    std::string expected;
    if (s.base != nullptr) {
      auto base = h_.ListOf(*s.base);
      fine = list.size() == base.size() + s.appended.size() &&
             std::equal(base.begin(), base.end(), list.begin()) &&
             std::equal(s.appended.begin(), s.appended.end(), list.begin() + base.size());
      if (!fine) {
        std::vector<int64_t> e(base.begin(), base.end());
        e.insert(e.end(), s.appended.begin(), s.appended.end());
        expected = ListText(e);
      }
    } else {
      fine = list.size() >= s.appended.size() &&
             std::equal(s.appended.begin(), s.appended.end(), list.end() - s.appended.size());
      if (!fine) expected = "a list ending in " + ListText(s.appended);
    }
    if (!fine) {
      sink_->Add("internal", {t}, [&] {
        return fmt::format("{} read {}={} where its own reads and appends say {}: internal",
                           TxnName(h_, t), Key(m.key), ListText(list), expected);
      });
    }
    s.base = &m;
    s.appended.clear();
  }
}

// wr and rw edges of the transaction's external reads (a key's first operation, a read).
void ListAppend::ExternalReads(uint32_t t) {
  auto mops = h_.MopsOf(h_.txns[t]);
  for (size_t i = 0; i < mops.size(); ++i) {
    const Mop& m = mops[i];
    if (m.kind != MopKind::kRead || !m.read_known) continue;
    bool first = true, appends_later = false;
    for (size_t j = 0; j < mops.size() && first; ++j) {
      if (mops[j].key != m.key) continue;
      if (j < i) first = false;
      if (j > i && mops[j].kind == MopKind::kAppend) appends_later = true;
    }
    if (!first) continue;
    auto list = h_.ListOf(m);
    const bool compatible = incompatible_[&m - h_.mops.data()] == 0;
    if (!list.empty()) {
      const Append* w = Writer(m.key, list.back());
      if (w != nullptr && w->txn != t && !Failed(w->txn)) {
        out_->deps.push_back(Dependency{.from = w->txn,
                                        .to = t,
                                        .key = m.key,
                                        .type = DepType::kWr,
                                        .from_value = list.back(),
                                        .to_value = list.back()});
        if (!w->final) {
          sink_->Add("G1b", {w->txn, t}, [&] {
            return fmt::format(
                "{} read {}={}, but {} appended {} and then more to {}: an intermediate "
                "version: G1b",
                TxnName(h_, t), Key(m.key), ListText(list), TxnName(h_, w->txn), list.back(),
                Key(m.key));
          });
        }
      }
    }
    if (!compatible) continue;
    auto order = h_.ListOf(*longest_[m.key]);
    if (list.size() < order.size()) {
      const int64_t next = order[list.size()];
      const Append* w = Writer(m.key, next);
      if (w != nullptr && w->txn != t && !Failed(w->txn)) {
        out_->deps.push_back(Dependency{.from = t,
                                        .to = w->txn,
                                        .key = m.key,
                                        .type = DepType::kRw,
                                        .from_value = list.empty() ? kNil : list.back(),
                                        .to_value = next});
      }
    } else {
      uint32_t last = UINT32_MAX;  // one edge per writer
      size_t edges = 0;
      for (const Append& a : unobserved_[m.key]) {
        if (a.txn == t || a.txn == last) continue;
        if (++edges > kMaxUnobservedEdges) break;
        last = a.txn;
        out_->deps.push_back(Dependency{.from = t,
                                        .to = a.txn,
                                        .key = m.key,
                                        .type = DepType::kRw,
                                        .from_value = list.empty() ? kNil : list.back(),
                                        .to_value = a.value});
      }
    }
    if (appends_later)
      read_writes_.push_back(KeyValueTxn{m.key, static_cast<int64_t>(list.size()), t});
  }
}

void ListAppend::WwEdges() {
  for (uint32_t k = 0; k < h_.keys.size(); ++k) {
    if (longest_[k] == nullptr) continue;
    auto order = h_.ListOf(*longest_[k]);
    for (size_t i = 0; i + 1 < order.size(); ++i) {
      const Append* a = Writer(k, order[i]);
      const Append* b = Writer(k, order[i + 1]);
      if (a == nullptr || b == nullptr || a->txn == b->txn || Failed(a->txn) || Failed(b->txn))
        continue;
      out_->deps.push_back(Dependency{.from = a->txn,
                                      .to = b->txn,
                                      .key = k,
                                      .type = DepType::kWw,
                                      .from_value = order[i],
                                      .to_value = order[i + 1]});
    }
  }
}

void ListAppend::LostUpdates() {
  FindLostUpdates(h_, sink_, &read_writes_, [&](const std::string& names, const KeyValueTxn& r) {
    const Mop* read = ReadOf(h_, r.txn, r.key);
    return fmt::format("{} read {}={} and each appended to {}: lost-update", names, Key(r.key),
                       ListText(h_.ListOf(*read)), Key(r.key));
  });
}

Status ListAppend::Run() {
  Status s = appends_.Build(h_, MopKind::kAppend,
                            [](const std::string& first, const std::string& second,
                               const std::string& key, int64_t element) {
                              return fmt::format(
                                  "{} and {} both append {} to {}: list-append needs each element "
                                  "appended once",
                                  first, second, element, key);
                            });
  if (!s.ok()) return s;
  FindVersionOrders();
  for (uint32_t t = 0; t < h_.txns.size(); ++t) {
    if (h_.txns[t].outcome != Outcome::kOk) continue;
    CheckInternal(t);
    ExternalReads(t);
  }
  WwEdges();
  LostUpdates();
  return Status::Ok();
}

}  // namespace

Status InferListAppend(const History& h, AnomalySink* sink, Inferred* out) {
  return ListAppend(h, sink, out).Run();
}

}  // namespace racelab::check::internal
