#include "harness/run/trial_events.h"

#include <algorithm>
#include <utility>

namespace racelab {

void TrialEvents::Subscribe(Subscriber s) {
  std::lock_guard<std::mutex> lock(mu_);
  subscribers_.push_back(std::move(s));
}

void TrialEvents::Publish(TrialEvent e) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const Subscriber& s : subscribers_) s(e);
  events_.push_back(std::move(e));
}

std::vector<TrialEvent> TrialEvents::events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

std::vector<StepEvent> FoldSteps(const std::vector<TrialEvent>& events) {
  std::vector<const TrialEvent*> ended;
  for (const TrialEvent& e : events) {
    if (e.kind == TrialEvent::Kind::kStepEnded && e.ended) ended.push_back(&e);
  }
  // By session first (a stable sort keeps each session's publish order), then by send time: the
  // same order as concatenating the sessions' records and sorting them stably by sent_us.
  std::stable_sort(ended.begin(), ended.end(), [](const TrialEvent* a, const TrialEvent* b) {
    return a->session_index < b->session_index;
  });
  std::stable_sort(ended.begin(), ended.end(), [](const TrialEvent* a, const TrialEvent* b) {
    return a->ended->sent_us < b->ended->sent_us;
  });
  std::vector<StepEvent> out;
  out.reserve(ended.size());
  for (const TrialEvent* e : ended) out.push_back(*e->ended);
  return out;
}

const char* TrialEventKindName(TrialEvent::Kind kind) {
  switch (kind) {
    case TrialEvent::Kind::kTrialStarted:
      return "trial started";
    case TrialEvent::Kind::kStepStarted:
      return "step started";
    case TrialEvent::Kind::kWaiting:
      return "waiting";
    case TrialEvent::Kind::kLockSnapshot:
      return "lock snapshot";
    case TrialEvent::Kind::kGateHeld:
      return "held by the gate";
    case TrialEvent::Kind::kGateReleased:
      return "released by the gate";
    case TrialEvent::Kind::kPauseReached:
      return "pause point reached";
    case TrialEvent::Kind::kPauseReleased:
      return "pause point released";
    case TrialEvent::Kind::kProgramEnded:
      return "program ended";
    case TrialEvent::Kind::kStepEnded:
      return "step ended";
    case TrialEvent::Kind::kTrialEnded:
      return "trial ended";
  }
  return "?";
}

}  // namespace racelab
