// Histories as files: Elle's EDN (elle_history.cc) and racelab's own JSON lines (json_history.cc,
// docs/history-format.md), read and written.
//
// Reading: a regular file of at most kMaxHistoryBytes; the format is the one asked for, else the
// extension (.edn; .json/.jsonl), else the first character that is not space ('{"' or a header
// line: JSON; otherwise EDN). Every error names the file, the line (and column for EDN) and the
// field: "h.edn:4:37: :value: [:r 1 x]: a list-append read's value must be a vector of integers".
//
// Elle's EDN: one operation map per form (or one vector of them), {:type :ok, :f :txn, :value
// [[:append 1 2] [:r 1 [1 2]] [:w 3 4] [:r 3 4]], :process 0, :index 3}. :type is :invoke, :ok,
// :fail or :info; a completion takes the transaction from the process's open :invoke (so an
// :info completion keeps the writes the :invoke meant), an :invoke never completed is :info. Ops
// whose :f is not :txn, or whose :process is not an integer (:nemesis), are skipped. :index names
// the transaction (T<index>); without it the transaction's position does.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

#include "harness/check/history.h"
#include "harness/model/status.h"
#include "harness/model/stop_flag.h"

namespace racelab::check {

inline constexpr size_t kMaxHistoryBytes = size_t{1} << 30;  // 1 GiB

enum class HistoryFormat { kAuto, kElle, kJson };

// `stop` (may be null): SIGINT/SIGTERM end the read between chunks and every few thousand
// operations, with the error "interrupted".
Result<History> ReadHistoryFile(const std::string& path,
                                HistoryFormat format = HistoryFormat::kAuto,
                                const StopFlag* stop = nullptr);

// From text: `file` names it in errors.
Result<History> ParseElleHistory(const std::string& file, std::string_view text,
                                 const StopFlag* stop = nullptr);
Result<History> ParseJsonHistory(const std::string& file, std::string_view text,
                                 const StopFlag* stop = nullptr);

// Elle's EDN: per transaction an :invoke (reads nil) and its completion, :index counting from 0;
// keys that are integers stay integers, keywords stay keywords, others become strings; a process
// that is not an integer becomes its ordinal.
void WriteElleHistory(const History& h, std::ostream& out);
// racelab's JSON lines (docs/history-format.md).
void WriteJsonHistory(const History& h, std::ostream& out);

}  // namespace racelab::check
