// What the inference of both models shares (infer_list_append.cc, infer_rw_register.cc): the index
// of who wrote each value of each key, and the lost updates found from read-then-write pairs.
// Thread-safety: each object belongs to one call of Check.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "harness/check/internal.h"

namespace racelab::check::internal {

// One append (list-append: value is the element) or write (rw-register) of a key.
struct IndexedWrite {
  int64_t value;
  uint32_t txn;
  bool final;  // the transaction's last append or write of the key
  bool operator<(const IndexedWrite& o) const { return value < o.value; }
};

// Per key, the mops of one kind of every transaction, by value. Both models need each value written
// to a key once, so that a read names its writer.
class WriteIndex {
 public:
  // "T1 and T2 both write x=3: ...": the premise broken, from the two transactions' names (in
  // position order), the key's name and the value.
  using DuplicateText = std::function<std::string(
      const std::string& first, const std::string& second, const std::string& key, int64_t value)>;
  // Indexes the mops of `kind` of every transaction of `h`. Errors: Usage, a value written twice to
  // one key, in the words of `duplicate`.
  Status Build(const History& h, MopKind kind, const DuplicateText& duplicate);
  // The write of `value` to `key`; nullptr when none.
  const IndexedWrite* Writer(uint32_t key, int64_t value) const {
    const auto& w = by_key_[key];
    auto it = std::lower_bound(w.begin(), w.end(), IndexedWrite{value, 0, false});
    return it != w.end() && it->value == value ? &*it : nullptr;
  }
  // The writes of `key`, by value.
  const std::vector<IndexedWrite>& Of(uint32_t key) const { return by_key_[key]; }

 private:
  std::vector<std::vector<IndexedWrite>> by_key_;
};

// A transaction that read `value` of `key` (list-append: the length of the list read) and then
// wrote the key.
struct KeyValueTxn {
  uint32_t key;
  int64_t value;
  uint32_t txn;
  bool operator<(const KeyValueTxn& o) const {
    return key != o.key ? key < o.key : value != o.value ? value < o.value : txn < o.txn;
  }
};

// Sorts `read_writes` and adds a lost-update to `sink` for each key and value read by two or more
// of them; `explain` says it from the transactions' names ("T1, T2") and the first of the group.
void FindLostUpdates(
    const History& h, AnomalySink* sink, std::vector<KeyValueTxn>* read_writes,
    const std::function<std::string(const std::string& names, const KeyValueTxn& first)>& explain);

}  // namespace racelab::check::internal
