#include "harness/engine/end_wait.h"

#include <algorithm>

namespace racelab {

EndWait PollUntilEnded(const std::function<Result<size_t>(SteadyTime deadline)>& count_connected,
                       SteadyTime deadline, const StopFlag* stop) {
  EndWait out;
  while (true) {
    const SteadyTime sent = std::chrono::steady_clock::now();
    Result<size_t> n = count_connected(std::max(deadline, sent + std::chrono::seconds(1)));
    if (!n.ok()) {
      out.result = EndWait::Result::kFailed;
      out.error = n.status().message();
      return out;
    }
    if (n.value() == 0) {
      out.result = EndWait::Result::kEnded;
      return out;
    }
    out.last_seen_connected = sent;
    out.still_connected = n.value();
    if (stop != nullptr && stop->stop_requested()) {
      out.result = EndWait::Result::kStopped;
      return out;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      out.result = EndWait::Result::kTimedOut;
      return out;
    }
    if (!SleepUntil(std::min(deadline, std::chrono::steady_clock::now() + kEndPollInterval),
                    stop)) {
      out.result = EndWait::Result::kStopped;
      return out;
    }
  }
}

}  // namespace racelab
