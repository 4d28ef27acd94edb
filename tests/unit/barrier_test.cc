// The deadline barrier (no database). Interleavings are forced by the barrier itself; no sleeps
// decide an outcome, deadlines are generous where a pass is expected.
#include "harness/run/barrier.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

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
    released +=
        b.ArriveAndWait(Clock::now() + std::chrono::seconds(30)) == Barrier::WaitResult::kReleased;
  }
  other.join();
  EXPECT_EQ(released, 100);
}

TEST(Barrier, DeadlineEndsAWaitForAMissingPartner) {
  Barrier b(2);
  auto start = Clock::now();
  EXPECT_EQ(b.ArriveAndWait(start + std::chrono::milliseconds(100)),
            Barrier::WaitResult::kTimedOut);
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(100));
  // The timed-out participant no longer counts: a later pair meets normally.
  std::thread other([&] { b.ArriveAndWait(Clock::now() + std::chrono::seconds(30)); });
  EXPECT_EQ(b.ArriveAndWait(Clock::now() + std::chrono::seconds(30)),
            Barrier::WaitResult::kReleased);
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

// A leave at the deadline and the arrival that would release the generation race; exactly one wins:
// either both are released, or the leaver timed out and the late arrival (alone) times out too — it
// is never released by a participant that already left. Forced with a tight deadline, many rounds.
TEST(Barrier, TimedOutLeaveNeverReleasesAlone) {
  for (int round = 0; round < 200; ++round) {
    Barrier b(2, Barrier::Options{std::chrono::microseconds(round % 2 ? 50 : 0),
                                  std::chrono::microseconds(0)});
    Barrier::WaitResult early = Barrier::WaitResult::kAborted, late = Barrier::WaitResult::kAborted;
    std::thread t([&] { early = b.ArriveAndWait(Clock::now() + std::chrono::microseconds(200)); });
    std::this_thread::sleep_for(std::chrono::microseconds(150 + round % 100));
    late = b.ArriveAndWait(Clock::now() + std::chrono::milliseconds(3));
    t.join();
    ASSERT_NE(early, Barrier::WaitResult::kAborted);
    EXPECT_EQ(early == Barrier::WaitResult::kReleased, late == Barrier::WaitResult::kReleased)
        << "round " << round;
  }
}

TEST(Barrier, NeverSpinsWithMorePartiesThanCpus) {
  const int cpus = Barrier::OnlineCpus();
  EXPECT_FALSE(Barrier::CpusToSpare(cpus + 1));
  EXPECT_FALSE(Barrier(cpus + 1).spins());
  EXPECT_FALSE(
      Barrier(1, Barrier::Options{std::chrono::microseconds(0), std::chrono::microseconds(0)})
          .spins());
}

// Many parties, many generations, a mix of spinning and sleeping: nobody leaves a generation before
// every party arrived, every wait is released.
TEST(Barrier, ManyPartiesManyGenerations) {
  for (int parties : {2, Barrier::OnlineCpus() + 2}) {
    Barrier b(parties);
    std::atomic<int> arrivals{0};
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < parties; ++i) {
      threads.emplace_back([&] {
        for (int g = 0; g < 200; ++g) {
          arrivals.fetch_add(1);
          if (b.ArriveAndWait(Clock::now() + std::chrono::seconds(30)) !=
              Barrier::WaitResult::kReleased)
            ++failures;
          if (arrivals.load() < (g + 1) * parties)
            ++failures;  // left before the generation was complete
        }
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(failures.load(), 0) << parties << " parties";
  }
}

}  // namespace
}  // namespace racelab
