#include "harness/check/generate.h"

#include <random>
#include <string>

namespace racelab::check {
namespace {

class Store {
 public:
  Store(const GenerateOptions& o, HistoryBuilder* b) : o_(o), b_(*b), rng_(o.seed) {
    for (size_t i = 0; i < o.active_keys; ++i) active_.push_back(NewKey());
  }

  void Txn(int64_t index, uint32_t process) {
    b_.BeginTxn(Outcome::kOk, process, index, 0);
    std::uniform_real_distribution<double> coin(0, 1);
    for (size_t i = 0; i < o_.ops_per_txn; ++i) {
      const size_t slot = Slot();
      if (coin(rng_) < o_.read_fraction)
        Read(slot);
      else
        WriteTo(slot);
    }
  }

  // Two transactions read keys a and b in the same state, then each writes one of them.
  void WriteSkew(int64_t index, uint32_t p1, uint32_t p2) {
    const size_t a = Slot();
    size_t b = Slot();
    while (o_.active_keys > 1 && b == a) b = Slot();
    const KeyState sa = keys_[active_[a]], sb = keys_[active_[b]];
    b_.BeginTxn(Outcome::kOk, p1, index, 0);
    ReadState(sa);
    ReadState(sb);
    WriteTo(a);
    b_.BeginTxn(Outcome::kOk, p2, index + 1, 0);
    ReadState(sa);
    ReadState(sb);
    WriteTo(b);
  }

 private:
  struct KeyState {
    uint32_t id;
    std::vector<int64_t> list;  // list-append
    int64_t value = kNil;       // rw-register
    size_t writes = 0;
  };

  uint32_t NewKey() {
    const uint32_t id = b_.Key(std::to_string(next_key_++));
    if (keys_.size() <= id) keys_.resize(id + 1);
    keys_[id].id = id;
    return id;
  }
  size_t Slot() { return std::uniform_int_distribution<size_t>(0, o_.active_keys - 1)(rng_); }
  void ReadState(const KeyState& s) {
    if (o_.model == Model::kListAppend)
      b_.ReadList(s.id, s.list);
    else
      b_.ReadRegister(s.id, s.value);
  }
  void Read(size_t slot) { ReadState(keys_[active_[slot]]); }
  void WriteTo(size_t slot) {
    KeyState& s = keys_[active_[slot]];
    const int64_t v = next_value_++;
    if (o_.model == Model::kListAppend) {
      b_.Append(s.id, v);
      s.list.push_back(v);
    } else {
      b_.Write(s.id, v);
      s.value = v;
    }
    if (++s.writes >= o_.writes_per_key) {
      keys_[s.id].list = {};
      active_[slot] = NewKey();
    }
  }

  const GenerateOptions& o_;
  HistoryBuilder& b_;
  std::mt19937_64 rng_;
  std::vector<KeyState> keys_;
  std::vector<uint32_t> active_;
  int64_t next_key_ = 0, next_value_ = 1;
};

}  // namespace

History GenerateHistory(const GenerateOptions& options) {
  HistoryBuilder b(options.model);
  std::vector<uint32_t> processes;
  for (size_t p = 0; p < std::max<size_t>(options.processes, 1); ++p)
    processes.push_back(b.Process(std::to_string(p)));
  Store store(options, &b);
  for (size_t i = 0; i < options.txns;) {
    const uint32_t p = processes[i % processes.size()];
    if (options.write_skew_every > 0 && i % options.write_skew_every == 0 && i + 1 < options.txns) {
      store.WriteSkew(static_cast<int64_t>(i), p, processes[(i + 1) % processes.size()]);
      i += 2;
    } else {
      store.Txn(static_cast<int64_t>(i), p);
      ++i;
    }
  }
  return b.Take();
}

}  // namespace racelab::check
