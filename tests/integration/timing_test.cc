// Timing verdicts that load cannot flip — and real regressions that still fail (issue 6), on a real
// PostgreSQL with load the test makes itself: busy threads, and racelab's own threads starved of
// CPU.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <vector>

#include "harness/eval/lateness.h"
#include "tests/integration/pg_test_env.h"
#include "tests/integration/scenario_runner.h"
#include "tests/integration/subprocess.h"

namespace racelab::testing {
namespace {

namespace fs = std::filesystem;
const std::string kFixtures = std::string(RACELAB_SOURCE_DIR) + "/tests/fixtures/";

// Threads that spin until destroyed: CPU load made by the test itself. With `cpu` >= 0 each is
// pinned to that CPU.
class BusyThreads {
 public:
  BusyThreads(int n, int cpu) {
    for (int i = 0; i < n; ++i) {
      threads_.emplace_back([this, cpu] {
        if (cpu >= 0) PinCallingThread(cpu);
        volatile uint64_t x = 0;
        while (!stop_.load(std::memory_order_relaxed)) x = x + 1;
      });
    }
  }
  ~BusyThreads() {
    stop_ = true;
    for (auto& t : threads_) t.join();
  }
  static void PinCallingThread(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

// While alive, the calling thread — and every thread it starts, which inherit both — runs on CPU 0
// at nice 10, beside busy threads at nice 0 on the same CPU: racelab's workers and monitor wait for
// the CPU at every wake-up, for real.
class Starved {
 public:
  Starved() : busy_(3, 0) {
    sched_getaffinity(0, sizeof saved_, &saved_);
    BusyThreads::PinCallingThread(0);
    setpriority(PRIO_PROCESS, 0, 10);  // Linux: the calling thread's nice value
  }
  ~Starved() {
    setpriority(PRIO_PROCESS, 0, 0);
    sched_setaffinity(0, sizeof saved_, &saved_);
  }

 private:
  BusyThreads busy_;
  cpu_set_t saved_;
};

const StepEvent* Find(const TrialResult& t, const std::string& session, const std::string& step) {
  for (const auto& ev : t.events) {
    if (ev.session == session && ev.step == step && !ev.skipped) return &ev;
  }
  return nullptr;
}

// The holder sleeps 2 × hold_ms while the bound still says hold_ms + 200: racelab exits 1 on the
// blocked check alone, with busy threads loading the machine; every semantic check still passes.
TEST(Timing, DoubledHoldFailsEvenUnderLoad) {
  char tmpl[] = "/tmp/rlt-timing-XXXXXX";
  fs::path out = mkdtemp(tmpl);
  ProcessResult r;
  {
    BusyThreads load(2, -1);
    r = RunProcess({RACELAB_BINARY, "run", kFixtures + "lock_hold_wait_double_hold.yaml",
                    "--trials", "3", "--dsn", TestConninfo(), "--allow-superuser", "--format",
                    "json", "--out", out.string(), "-q"},
                   std::chrono::seconds(180));
  }
  EXPECT_EQ(r.exit_code, 1) << r.err;
  std::ifstream f(out / "racelab.json");
  nlohmann::json report = nlohmann::json::parse(f, nullptr, /*allow_exceptions=*/false);
  fs::remove_all(out);
  ASSERT_FALSE(report.is_discarded()) << "no racelab.json";
  const auto& result = report["results"][0];
  EXPECT_EQ(result["verdict"], "fail");
  for (const auto& e : result["expectations"]) {
    const std::string text = e["text"];
    if (text.rfind("b/claim was seen in a lock wait and took", 0) == 0) {
      EXPECT_EQ(e["failed"], 3) << text;
      EXPECT_NE(e["first_failure"].get<std::string>().find("measured lateness"), std::string::npos);
      EXPECT_LT(e["max_widened_by_ms"].get<double>(), 1000) << "the doubled hold is not lateness";
    } else {
      EXPECT_EQ(e["failed"], 0) << text << ": " << e.value("first_failure", "");
    }
  }
}

// lock_timeout + 5 ms leaves no room for load: with racelab's threads starved of CPU, every trial
// still passes, and each check reports as its widening exactly the lateness measured in that trial;
// a wait that ran past the written bound lies within it once widened. (Whether a starved wait does
// run past the bound is up to the scheduler; the count is recorded as a property, not asserted:
// that a widened bound passes and a doubled hold still fails is asserted deterministically in
// timing_bounds_test and DoubledHoldFailsEvenUnderLoad.)
TEST(Timing, StarvedRunPassesAndReportsTheMeasuredLatenessAsWidening) {
  constexpr int kTrials = 10;
  ASSERT_FALSE(
      TestConninfo().empty());  // start the test server first: it must not inherit the starvation
  ScenarioRun run;
  {
    Starved starved;
    run = RunScenario(kFixtures + "lock_timeout_tight_bound.yaml", kTrials, {}, {kRc});
  }
  ASSERT_TRUE(run.error.empty()) << run.error;
  ASSERT_EQ(run.results.size(), 1u);
  const ResultSummary& r = run.results[0];
  EXPECT_EQ(r.verdict, Verdict::kPass) << Failures(r);
  const double max_ms = 1005;
  int over = 0;
  for (const auto& tv : r.trial_details) {
    const StepEvent* ev = Find(tv.result, "waiter", "second");
    ASSERT_NE(ev, nullptr);
    ASSERT_TRUE(ev->lock_wait);
    EXPECT_EQ(ev->sqlstate, "55P03");
    const double late_ms = MeasuredLateness(tv.result, *ev).total_us() / 1000.0;
    if (ev->blocked_ms() > max_ms) {
      ++over;
      EXPECT_LE(ev->blocked_ms(), max_ms + late_ms) << "trial " << tv.result.index;
    }
    bool shown = false;
    for (const auto& c : tv.checks) shown = shown || c.widened_by_ms == late_ms;
    EXPECT_TRUE(shown) << "the widening is reported on the check";
  }
  RecordProperty("waits_past_the_written_bound", over);
}

}  // namespace
}  // namespace racelab::testing
