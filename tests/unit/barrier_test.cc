// The deadline barrier (no database). Interleavings are forced by the barrier itself; no sleeps decide
// an outcome, deadlines are generous where a pass is expected.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "harness/run/barrier.h"

namespace racelab {
namespace {

using Clock = std::chrono::steady_clock;

TEST(Barrier, ReleasesAllAtOnceWithOneReleaseTime) {
  constexpr int kParties = 4;
  Barrier b(kParties);
  std::atomic<int> arrived{0};
  std::vector<Clock::time_point> released(kParties);
  std::vector<Barrier::WaitResult> results(kParties);
  std::vector<std::thread> threads;
  for (int i = 0; i < kParties; ++i) {
    threads.emplace_back([&, i] {
      ++arrived;
      results[i] = b.ArriveAndWait(Clock::now() + std::chrono::seconds(30), &released[i]);
      // Nobody leaves before everyone arrived.
      EXPECT_EQ(arrived.load(), kParties);
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < kParties; ++i) {
    EXPECT_EQ(results[i], Barrier::WaitResult::kReleased);
    EXPECT_EQ(released[i], released[0]);
  }
}

TEST(Barrier, IsReusableAcrossGenerations) {
  Barrier b(2);
  std::thread other([&] {
    for (int i = 0; i < 100; ++i) b.ArriveAndWait(Clock::now() + std::chrono::seconds(30));
  });
  int released = 0;
  for (int i = 0; i < 100; ++i) {
    released += b.ArriveAndWait(Clock::now() + std::chrono::seconds(30)) == Barrier::WaitResult::kReleased;
  }
  other.join();
  EXPECT_EQ(released, 100);
}

TEST(Barrier, DeadlineEndsAWaitForAMissingPartner) {
  Barrier b(2);
  auto start = Clock::now();
  EXPECT_EQ(b.ArriveAndWait(start + std::chrono::milliseconds(100)), Barrier::WaitResult::kTimedOut);
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(100));
  // The timed-out participant no longer counts: a later pair meets normally.
  std::thread other([&] { b.ArriveAndWait(Clock::now() + std::chrono::seconds(30)); });
  EXPECT_EQ(b.ArriveAndWait(Clock::now() + std::chrono::seconds(30)), Barrier::WaitResult::kReleased);
  other.join();
}

TEST(Barrier, AbortReleasesStrandedWaiters) {
  Barrier b(3);
  std::vector<Barrier::WaitResult> results(2);
  std::atomic<int> waiting{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 2; ++i) {
    threads.emplace_back([&, i] {
      ++waiting;
      results[i] = b.ArriveAndWait(Clock::now() + std::chrono::seconds(60));
    });
  }
  while (waiting.load() < 2) std::this_thread::yield();
  b.Abort();
  for (auto& t : threads) t.join();
  EXPECT_EQ(results[0], Barrier::WaitResult::kAborted);
  EXPECT_EQ(results[1], Barrier::WaitResult::kAborted);
  EXPECT_EQ(b.ArriveAndWait(Clock::now() + std::chrono::seconds(1)), Barrier::WaitResult::kAborted);
}

}  // namespace
}  // namespace racelab
