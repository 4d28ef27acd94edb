// The checker's result for a person (console text) and for a program (JSON, docs/check.md
// "Output"). Deterministic: the same history gives the same bytes.
// Thread-safety: pure functions.
#pragma once

#include <ostream>
#include <string>

#include "harness/check/checker.h"
#include "harness/check/history.h"

namespace racelab::check {

// "h.edn: 4 transactions (3 ok, 1 fail, 0 info), list-append, 5 dependencies: 1 anomaly
//  G2-item (1)
//    T1 read x=[1] before T2 appended 2, …: G2-item
//      T1  line 3, process 0, ok: [[:r x [1]] [:append y 3]]"
void WriteCheckConsole(const std::string& file, const History& h, const CheckResult& r,
                       std::ostream& out);
void WriteCheckJson(const std::string& file, const History& h, const CheckResult& r,
                    std::ostream& out);

// "[[:r x [1]] [:append y 3]]": a transaction's operations as Elle writes them.
std::string TxnOpsText(const History& h, const Txn& t);

}  // namespace racelab::check
