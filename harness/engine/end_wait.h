// The loop of WaitMonitor::AwaitEnded that every engine with a server shares: look how many of the
// sessions are still connected, every kEndPollInterval, until none is, the deadline passes or
// racelab is stopped (harness/engine/wait_monitor.h EndWait). Thread-safety: pure apart from
// calling `count_connected` from the caller's thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>

#include "harness/engine/wait_monitor.h"
#include "harness/model/status.h"
#include "harness/model/stop_flag.h"

namespace racelab {

// From the end of one look to the start of the next: an ended session is seen within about this
// (plus one query) after the server removed it.
inline constexpr std::chrono::milliseconds kEndPollInterval(5);

// `count_connected(deadline)`: how many of the awaited sessions the server still lists, or an error
// (then the result is kFailed with its message). Looks at least once, even past `deadline`.
EndWait PollUntilEnded(const std::function<Result<size_t>(SteadyTime deadline)>& count_connected,
                       SteadyTime deadline, const StopFlag* stop);

}  // namespace racelab
