// Helpers for the runner's unit tests on the FakeEngine (fake_engine.h): a scenario from YAML text
// planned into its items, and one item's trials run with a subscriber that keeps every event.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "harness/loader/planner.h"
#include "harness/loader/scenario_loader.h"
#include "harness/run/runner.h"
#include "tests/unit/fake/fake_engine.h"

namespace racelab::fake {

// The items of `yaml` at read committed, `trials` each; fails the test (ADD_FAILURE) and returns
// none on a load or plan error.
std::vector<PlanItem> PlanText(const std::string& yaml, int trials = 1);

// Every event a subscriber saw, safe from any thread.
class EventLog {
 public:
  TrialEvents::Subscriber Subscriber();
  std::vector<TrialEvent> events() const;
  // Index of the first event of `kind` (of `session` and `step` when not empty), or -1.
  int Find(TrialEvent::Kind kind, const std::string& session = "",
           const std::string& step = "") const;

 private:
  mutable std::mutex mu_;
  std::vector<TrialEvent> events_;
};

// Runs `item` on `engine` with these deadlines, `log` subscribed; the trials, or a failed status.
struct FakeRun {
  Status status = Status::Ok();
  std::vector<TrialResult> trials;
};
FakeRun RunOn(FakeEngine* engine, const PlanItem& item, EventLog* log, RunOptions options = {});

}  // namespace racelab::fake
