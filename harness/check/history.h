// A history of transactions, the checker's input (docs/check.md, docs/history-format.md).
//
// Two models from Elle (Kingsbury & Alvaro, "Elle: Inferring Isolation Anomalies from Experimental
// Observations", VLDB 2020):
//   list-append  each write appends a unique element to a key's list; a read returns the whole
//   list,
//                so the longest read of a key gives the key's version order;
//   rw-register  each write stores a unique value in a key; a read returns one value (nil: the
//   key's
//                initial state, never written).
// A transaction is a sequence of micro-operations (`Mop`) with an outcome: ok (committed), fail
// (did not commit: its writes never happened) or info (unknown: it may have committed). Its
// `process` is the session that ran it; transactions of one process are in the order they appear.
//
// Storage is flat so that a history of a million transactions stays small: every transaction's mops
// live in `History::mops` (its range [mop_begin, mop_begin + mop_count)), and every list a read
// returned lives in `History::elements` (a mop's range [list_begin, list_begin + list_size)).
// Keys are interned: `Mop::key` indexes `History::keys` (the key as written: `x`, `1`, `:k`).
// Filled by the readers (elle_history.h, json_history.h) or by GenerateHistory (generate.h); read
// by Check (checker.h). Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace racelab::check {

enum class Model { kListAppend, kRwRegister };
std::string_view ModelName(Model m);  // "list-append", "rw-register"

enum class Outcome : uint8_t { kOk, kFail, kInfo };
std::string_view OutcomeName(Outcome o);  // "ok", "fail", "info"

enum class MopKind : uint8_t { kRead, kAppend, kWrite };

// A register's value that is nil: the initial state (rw-register reads only).
inline constexpr int64_t kNil = std::numeric_limits<int64_t>::min();

struct Mop {
  MopKind kind = MopKind::kRead;
  bool read_known = true;   // false: a read whose result is unknown (nil in a fail/info completion)
  uint32_t key = 0;         // index into History::keys
  int64_t value = 0;        // append/write: the element or value; rw-register read: the value read
  uint32_t list_begin = 0;  // list-append read: the list read, in History::elements
  uint32_t list_size = 0;
};

struct Txn {
  Outcome outcome = Outcome::kOk;
  uint32_t process = 0;  // index into History::processes
  int64_t index = 0;     // its name in explanations: T<index> (Elle's :index, or the JSON "index")
  uint32_t line = 0;     // the line of the input file it came from (0: generated)
  uint32_t mop_begin = 0;
  uint32_t mop_count = 0;
};

struct History {
  Model model = Model::kListAppend;
  std::vector<std::string> keys;       // as written in the input
  std::vector<std::string> processes;  // as written: "0", "worker.1"
  std::vector<Txn> txns;               // in history order
  std::vector<Mop> mops;
  std::vector<int64_t> elements;

  std::span<const Mop> MopsOf(const Txn& t) const {
    return {mops.data() + t.mop_begin, t.mop_count};
  }
  std::span<const int64_t> ListOf(const Mop& m) const {
    return {elements.data() + m.list_begin, m.list_size};
  }
};

// Builds a History one transaction at a time; interns keys and processes.
class HistoryBuilder {
 public:
  explicit HistoryBuilder(Model model) { h_.model = model; }
  void set_model(Model model) { h_.model = model; }
  uint32_t Key(std::string_view text);
  uint32_t Process(std::string_view text);
  // Starts a transaction; the mops added next belong to it.
  void BeginTxn(Outcome outcome, uint32_t process, int64_t index, uint32_t line);
  void Append(uint32_t key, int64_t element);
  void Write(uint32_t key, int64_t value);
  void ReadRegister(uint32_t key, int64_t value);  // kNil: the initial state
  void ReadList(uint32_t key, std::span<const int64_t> list);
  void ReadUnknown(uint32_t key);
  size_t txn_count() const { return h_.txns.size(); }
  History Take() { return std::move(h_); }

 private:
  void AddMop(const Mop& m);
  History h_;
  std::unordered_map<std::string, uint32_t> key_ids_, process_ids_;
};

// "[1 2 3]", "nil", "5": a value as Elle writes it.
std::string ListText(std::span<const int64_t> list);
std::string RegisterText(int64_t value);

}  // namespace racelab::check
