// The checker: a history in, the anomalies it proves out (docs/check.md). No database inside.
//
// Check infers, from what the transactions read and wrote, the dependencies between them (Adya,
// "Weak Consistency", 1999, ch. 3): ww (T2 wrote the version after T1's), wr (T2 read T1's
// version), rw (T2 wrote the version after the one T1 read), and, with CheckOptions::process_order,
// the order of each process's transactions. It finds the strongly connected components of that
// graph (Tarjan) and, in each, a shortest cycle (breadth-first) of each kind, named by Adya's
// classification:
//   G0        a cycle of ww edges only (dirty write)
//   G1c       a cycle of ww and wr edges, at least one wr (circular information flow)
//   G-single  a cycle with exactly one rw edge (read skew)
//   G2-item   a cycle with two or more rw edges (write skew)
//   …-process the same cycle needs a process-order edge (G0-process, …; only with process_order)
// and the anomalies that need no cycle:
//   G1a                 an ok transaction read a version written by a failed one (aborted read)
//   G1b                 it read a version its writer later overwrote in the same transaction
//                       (intermediate read)
//   lost-update         two or more transactions read the same version of a key and each wrote
//                       the key (Elle's definition)
//   internal            a transaction's read disagrees with its own earlier reads and writes
//   garbage-read        a read returned an element or value nobody wrote
//   duplicate-elements  a list-append read returned an element twice
//   incompatible-order  two list-append reads of a key are not prefixes of one another
// Each is explained in prose: "T1 read x=[1] before T2 appended 2, T2 read y=[] before T1
// appended 3: G2-item" (T<n>: the transaction of Txn::index n).
//
// Cost: linear in the history's operations and dependencies, plus a bounded number of
// breadth-first searches per cyclic component (kSearchesPerComponent each kind). The search is
// therefore not exhaustive in a component with many rw edges: a G-single there may be reported as
// G2-item or missed, never invented; every reported cycle is real.
// Thread-safety: a pure function of its arguments.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "harness/check/history.h"
#include "harness/model/status.h"
#include "harness/model/stop_flag.h"

namespace racelab::check {

enum class DepType : uint8_t { kWw = 1, kWr = 2, kRw = 4, kProcess = 8 };
std::string_view DepTypeName(DepType t);  // "ww", "wr", "rw", "process"

// One dependency: from → to (positions in History::txns), on `key`. `from_value`/`to_value`: the
// element (list-append) or value (rw-register) each side wrote or read (kNil when none).
struct Dependency {
  uint32_t from = 0, to = 0;
  uint32_t key = 0;
  DepType type = DepType::kWw;
  int64_t from_value = kNil, to_value = kNil;
};

struct Anomaly {
  std::string name;               // "G2-item", "G1a", "internal", … (see above)
  std::vector<uint32_t> txns;     // positions in History::txns; a cycle's in cycle order
  std::vector<Dependency> cycle;  // a cycle's edges, cycle[i] from txns[i]; empty for the others
  std::string explanation;        // prose, ending with ": <name>"
};

struct CheckOptions {
  bool process_order = false;      // add each process's order to the graph (…-process anomalies)
  size_t max_examples = 8;         // anomalies kept per name (all are counted)
  const StopFlag* stop = nullptr;  // SIGINT/SIGTERM: checked between the stages (each well under
                                   // a few seconds at 1M transactions)
};

struct CheckResult {
  std::vector<Anomaly> anomalies;        // at most max_examples per name, in the order found
  std::map<std::string, size_t> counts;  // every anomaly found, per name
  size_t ok = 0, failed = 0, info = 0;   // transactions by outcome
  size_t dependencies = 0;               // edges of the graph
  size_t cyclic_components = 0;          // strongly connected components with a cycle
  bool valid() const { return counts.empty(); }
};

// The anomalies of `h`. Errors (kUsage): the history breaks its model's premise — an element
// appended twice, a value written twice (names both transactions); "interrupted" when
// options.stop was requested.
Result<CheckResult> Check(const History& h, const CheckOptions& options = {});

}  // namespace racelab::check
