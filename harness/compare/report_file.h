// Reading a report file given as input (`compare`, `merge`, `matrix`, `run --baseline`) under the
// same discipline as a scenario file (docs/compare.md "Reports as input"): a hostile or corrupted
// report costs a bounded time and memory and gets an exit-2 error naming the file, and
// SIGINT/SIGTERM stop the read promptly.
//
// - Regular files only: the file is opened with O_NONBLOCK (a FIFO with no writer does not block
// the
//   open) and checked with fstat; a folder, FIFO, device or socket is refused.
// - At most kMaxReportBytes; a longer file (or one that grows while read) is refused, and never
// more
//   than kMaxReportBytes + one chunk is read.
// - JSON nesting at most kMaxReportDepth (a report's deepest field is at depth 7).
// - The stop flag is checked between chunks of the read and every kStopCheckEvery JSON values.
// Thread-safety: pure functions (the flag is read only).
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "harness/model/status.h"
#include "harness/model/stop_flag.h"

namespace racelab::compare {

// A file of 40 MB holding 20 million numbers (the worst case per byte) takes ~7 s and ~740 MB to
// parse on a busy 2-core machine: 64 MiB keeps a hostile report within about 12 s and 1.2 GB.
inline constexpr size_t kMaxReportBytes = size_t{64} << 20;  // 64 MiB
inline constexpr int kMaxReportDepth = 64;

// The file's JSON. Errors (kUsage, message starting with `path`): not a regular file, unreadable,
// too large, not valid JSON ("path:LINE:COL: not valid JSON: …"), nested too deep, or interrupted
// (then stop->stop_requested() is true: see ExitCodeIfInterrupted).
Result<nlohmann::json> ReadReportJson(const std::string& path, const StopFlag* stop);

// 128 + the signal when `stop` has been requested (130 SIGINT, 143 SIGTERM), else 0.
int ExitCodeIfInterrupted(const StopFlag* stop);

}  // namespace racelab::compare
