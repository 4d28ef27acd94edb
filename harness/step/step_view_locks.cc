// StepViewModel's quiet rule and its lock view (step_view.h): when a trial is quiet, and the locks
// as a diff from the look before.
#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <tuple>

#include "harness/step/step_view.h"

namespace racelab::step {

bool StepViewModel::HolderStillHolds(const SessionView& waiter) const {
  // A holder that is a session of the trial holds its locks while in a transaction; once it has
  // ended it (its COMMIT ran), the waiter is about to go on — or to be seen waiting on another.
  for (const WaitEdge& w : view_.waits) {
    if (w.waiter != waiter.label) continue;
    bool session = false;
    for (const SessionView& o : view_.sessions) {
      if (o.label != w.holder) continue;
      session = true;
      if (o.in_transaction || o.state == SessionState::kRunning ||
          o.state == SessionState::kWaiting)
        return true;
    }
    if (!session) return true;  // racelab's or another backend: nothing here ends it
  }
  return false;
}

bool StepViewModel::Quiet() const {
  if (view_.phase == StepView::Phase::kFinished || view_.phase == StepView::Phase::kFailed)
    return true;
  if (view_.phase == StepView::Phase::kStarting) return false;
  for (size_t s = 0; s < tracks_.size(); ++s) {
    const SessionView& v = view_.sessions[s];
    const Track& t = tracks_[s];
    if (v.at_gate || v.state == SessionState::kDone) continue;
    if (v.state == SessionState::kWaiting && HolderStillHolds(v)) continue;
    if (t.running >= 0) {
      const PlannedStep& step = item_.sessions[s].steps[static_cast<size_t>(t.running)];
      // await_blocked: quiet while its target is not waiting yet (that needs a key); once the
      // target waits, the session goes on by itself.
      bool target_waits = false;
      for (size_t o = 0; o < tracks_.size(); ++o) {
        target_waits |= item_.sessions[o].role == step.target &&
                        view_.sessions[o].state == SessionState::kWaiting;
      }
      // barrier: quiet while a partner has not come to it yet (a released one ends by itself).
      bool partner_missing = false;
      for (size_t o = 0; o < tracks_.size() && step.kind == StepKind::kBarrier; ++o) {
        const auto& steps = item_.sessions[o].steps;
        for (size_t k = tracks_[o].next; o != s && k < steps.size(); ++k) {
          partner_missing |= steps[k].kind == StepKind::kBarrier &&
                             steps[k].barrier == step.barrier &&
                             tracks_[o].running != static_cast<int>(k);
        }
      }
      if (step.kind == StepKind::kBarrier && partner_missing) continue;
      if (step.kind == StepKind::kAwaitBlocked && !target_waits) continue;
      if (step.kind == StepKind::kAwaitEnded) continue;
    }
    return false;
  }
  return true;
}

void StepViewModel::FoldLocks(const LockSnapshot& snapshot, const std::string& when) {
  // What this look cannot show (MariaDB without innodb_status_output_locks: only the locks someone
  // waits for), or "" (also clearing an earlier look's error).
  if (view_.locks_note != snapshot.note) {
    view_.locks_note = snapshot.note;
    Changed();
  }
  std::vector<LockLine> now;
  for (const SessionLock& l : snapshot.locks) {
    // A look's own virtualxid and the monitor's locks say nothing about the race.
    if (l.lock_type == "virtualxid") continue;
    const std::string who = LabelOf(l.session_id);
    if (who == "racelab:monitor") continue;
    // The workspace's name (racelab_<pid>_<run>_<n>.) says nothing to a class: the table's name.
    static const std::regex kWorkspace(R"(racelab_[0-9]+_[0-9a-f]+_[0-9]+\.)");
    now.push_back(
        {who, l.lock_type, l.mode, std::regex_replace(l.object, kWorkspace, ""), l.granted, ' '});
  }
  auto same = [](const LockLine& a, const LockLine& b) {
    return a.session == b.session && a.lock_type == b.lock_type && a.mode == b.mode &&
           a.object == b.object && a.granted == b.granted;
  };
  std::vector<LockLine> shown = now;
  for (LockLine& l : shown) {
    const bool before = std::any_of(last_locks_.begin(), last_locks_.end(),
                                    [&](const LockLine& o) { return same(o, l); });
    l.change = before ? ' ' : '+';
  }
  for (const LockLine& o : last_locks_) {
    if (std::none_of(now.begin(), now.end(), [&](const LockLine& l) { return same(o, l); })) {
      LockLine gone = o;
      gone.change = '-';
      shown.push_back(gone);
    }
  }
  std::stable_sort(shown.begin(), shown.end(), [](const LockLine& a, const LockLine& b) {
    return std::tie(a.session, b.granted) < std::tie(b.session, a.granted);
  });
  const bool changed =
      std::any_of(shown.begin(), shown.end(), [](const LockLine& l) { return l.change != ' '; });
  last_locks_ = std::move(now);
  // Nothing new (a step that took or freed no lock): the last change stays on show, with its marks.
  if (!changed && !view_.locks_after.empty()) return;
  view_.locks = std::move(shown);
  view_.locks_after = when;
  if (changed) {
    view_.transcript.push_back("locks " + when + ":");
    for (const LockLine& l : view_.locks) {
      view_.transcript.push_back(fmt::format("  {} {} {} {} {} ({})", l.change, l.session,
                                             l.granted ? "holds" : "awaits", l.mode, l.object,
                                             l.lock_type));
    }
  }
  Changed();
}

}  // namespace racelab::step
