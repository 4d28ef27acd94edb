#include "harness/model/stop_flag.h"

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <thread>

namespace racelab {

void InstallStopSignalHandler(StopFlag* flag) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  // A detached thread that waits for the signals synchronously: no async-signal-safety concerns.
  std::thread([flag, set]() {
    for (;;) {
      int sig = 0;
      if (sigwait(&set, &sig) == 0) flag->RequestStop(sig);
    }
  }).detach();
}

bool SleepUntil(std::chrono::steady_clock::time_point deadline, const StopFlag* flag) {
  for (;;) {
    if (flag != nullptr && flag->stop_requested()) return false;
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return true;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(deadline - now, kStopPollSlice));
  }
}

}  // namespace racelab
