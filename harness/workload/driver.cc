// The workload driver (driver.h).
#include "harness/workload/driver.h"

#include <chrono>
#include <map>
#include <mutex>

#include "harness/eval/evaluator.h"
#include "harness/workload/arrival.h"

namespace racelab::workload {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsBetween(SteadyTime from, SteadyTime to) {
  return std::chrono::duration<double>(to - from).count();
}

// Each round's origin on the steady clock, as the runner published it (kTrialStarted, at_us 0
// relative to it); written on the runner's thread, read there by on_trial.
class Origins {
 public:
  explicit Origins(ArrivalSchedule* schedule) : schedule_(schedule) {}
  void Saw(const TrialEvent& e) {
    if (e.kind != TrialEvent::Kind::kTrialStarted) return;
    const SteadyTime origin = Clock::now() - std::chrono::microseconds(e.at_us);
    std::lock_guard<std::mutex> lock(mu_);
    if (e.trial == 0) schedule_->Start(origin);  // before any worker asks the gate
    origins_[e.trial] = origin;
  }
  SteadyTime Take(int trial) {
    std::lock_guard<std::mutex> lock(mu_);
    auto at = origins_.find(trial);
    if (at == origins_.end()) return Clock::now();
    SteadyTime t = at->second;
    origins_.erase(at);
    return t;
  }

 private:
  ArrivalSchedule* schedule_;
  std::mutex mu_;
  std::map<int, SteadyTime> origins_;  // guarded by mu_
};

}  // namespace

WorkloadRun RunWorkload(const PlanItem& item, WorkloadOptions options) {
  const int clients = static_cast<int>(item.sessions.size());
  ArrivalSchedule schedule(clients, options.rate_per_s);
  Origins origins(&schedule);
  const auto warmup =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.warmup_s));
  const auto total = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(options.warmup_s + options.duration_s));

  RunOptions ro = options.run;
  if (schedule.open()) ro.gate = ArrivalGates(&schedule);
  ro.subscriber = [&origins](const TrialEvent& e) { origins.Saw(e); };
  ro.more_trials = [&schedule, total](int next) {
    const SteadyTime end = schedule.origin() + total;
    return schedule.open() ? schedule.Intended(next, 0) < end : Clock::now() < end;
  };

  Tally tally(&item);
  auto on_trial = [&](const PlanItem& it, const TrialResult& trial) {
    const SteadyTime origin = origins.Take(trial.index);
    const SteadyTime due = schedule.open() ? schedule.Intended(trial.index, 0) : origin;
    const bool measured = due >= schedule.origin() + warmup;
    std::vector<int64_t> intended_us;
    if (schedule.open()) {
      for (int i = 0; i < clients; ++i) {
        intended_us.push_back(std::chrono::duration_cast<std::chrono::microseconds>(
                                  schedule.Intended(trial.index, i) - origin)
                                  .count());
      }
    }
    const double origin_s = SecondsBetween(schedule.origin(), origin);
    const double end_s = origin_s + static_cast<double>(trial.duration_us) / 1e6;
    tally.AddRound(EvaluateTrial(it, trial), measured, origin_s, end_s, intended_us);
    if (options.on_round) options.on_round(tally.figures());
  };

  PlanItem rounds = item;
  rounds.trials = 1 << 30;  // the duration ends the item (more_trials)
  Runner runner(std::move(ro));
  WorkloadRun out;
  out.status = runner.RunItem(rounds, nullptr, on_trial);
  out.figures = tally.figures();
  return out;
}

}  // namespace racelab::workload
