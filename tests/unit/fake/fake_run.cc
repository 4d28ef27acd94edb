#include "tests/unit/fake/fake_run.h"

#include <gtest/gtest.h>

namespace racelab::fake {

std::vector<PlanItem> PlanText(const std::string& yaml, int trials) {
  auto s = LoadScenarioText(yaml, "fake.yaml");
  if (!s.ok()) {
    ADD_FAILURE() << s.status().message();
    return {};
  }
  PlanOptions o;
  o.trials = trials;
  o.isolation = {IsolationLevel::kReadCommitted};
  auto items = ExpandScenario(*s, o);
  if (!items.ok()) {
    ADD_FAILURE() << items.status().message();
    return {};
  }
  return std::move(items.value());
}

TrialEvents::Subscriber EventLog::Subscriber() {
  return [this](const TrialEvent& e) {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(e);
  };
}

std::vector<TrialEvent> EventLog::events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

int EventLog::Find(TrialEvent::Kind kind, const std::string& session,
                   const std::string& step) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < events_.size(); ++i) {
    const TrialEvent& e = events_[i];
    if (e.kind == kind && (session.empty() || e.session == session) &&
        (step.empty() || e.step == step))
      return static_cast<int>(i);
  }
  return -1;
}

FakeRun RunOn(FakeEngine* engine, const PlanItem& item, EventLog* log, RunOptions options) {
  options.engine = engine;
  if (log != nullptr) options.subscriber = log->Subscriber();
  Runner runner(options);
  FakeRun out;
  out.status = runner.RunItem(item, &out.trials);
  return out;
}

}  // namespace racelab::fake
