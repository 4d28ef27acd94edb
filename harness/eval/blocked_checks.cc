// expect.blocked: lock waits of one step — seen, how long, held by whom, on which wait event, in
// every instance of the role or in k of them (step_checks.h; docs/scenario-format.md "Expect").
#include <fmt/format.h>

#include <algorithm>

#include "harness/eval/lateness.h"
#include "harness/eval/step_checks.h"

namespace racelab::internal {
namespace {

constexpr const char* kSendToAnswer = "send to answer";

bool BlockedBy(const StepEvent& ev, const std::string& role) {
  return std::any_of(ev.blocked_by.begin(), ev.blocked_by.end(), [&](const std::string& l) {
    return l == role || l.rfind(role + ".", 0) == 0;
  });
}

// `blocked` with `instances`: how many of the role's instances were seen waiting and meet every
// other field of the entry; exactly that many must (issue 11 item 9). Which instances do is up to
// the race.
void CheckInstances(const PlanItem& item, const PlannedBlocked& b, const TrialResult& r,
                    std::vector<Check>* checks) {
  std::vector<const PlannedSession*> sessions;
  for (const auto& s : item.sessions) {
    if (s.role == b.session) sessions.push_back(&s);
  }
  std::string what = fmt::format("{}/{} instances seen in a lock wait", b.session, b.step);
  if (!b.wait_event.empty()) what += " on " + b.wait_event;
  if (!b.by.empty()) what += " held by " + b.by;
  if (b.min_ms && b.max_ms) {
    what += fmt::format(" that took >= {} ms and <= {} ms + measured lateness, {}",
                        MsText(*b.min_ms), MsText(*b.max_ms), kSendToAnswer);
  } else if (b.min_ms) {
    what += fmt::format(" that took >= {} ms, {}", MsText(*b.min_ms), kSendToAnswer);
  } else if (b.max_ms) {
    what += fmt::format(" that took <= {} ms + measured lateness, {}", MsText(*b.max_ms),
                        kSendToAnswer);
  }
  long meeting = 0;
  double widened_ms = 0;
  std::vector<std::string> seen;
  for (const PlannedSession* s : sessions) {
    const StepEvent* ev = LastRun(r, s->label, b.step);
    if (ev == nullptr) {
      seen.push_back(s->label + " did not run it");
      continue;
    }
    if (!ev->lock_wait) {
      seen.push_back(s->label + " not seen waiting");
      continue;
    }
    const double ms = (ev->completed_us - ev->sent_us) / 1000.0;
    const double allowance_ms = b.max_ms ? MeasuredLateness(r, *ev).total_us() / 1000.0 : 0.0;
    widened_ms = std::max(widened_ms, allowance_ms);
    const bool ok = (b.wait_event.empty() || WaitEventIs(ev->wait_event, b.wait_event)) &&
                    (b.by.empty() || BlockedBy(*ev, b.by)) &&
                    (!b.min_ms || ms >= LowerBoundMs(item, *b.min_ms, r, *ev)) &&
                    (!b.max_ms || ms <= *b.max_ms + allowance_ms);
    if (ok) ++meeting;
    seen.push_back(
        fmt::format("{} waited on {} held by [{}], {} ms{}{}", s->label, ev->wait_event,
                    fmt::join(ev->blocked_by, ", "), MsText(ms),
                    b.max_ms ? fmt::format(" (lateness {} ms)", MsText(allowance_ms)) : "",
                    ok ? "" : " — does not meet it"));
  }
  AddCheck(checks, fmt::format("{} = {} (of {})", what, *b.instances, sessions.size()),
           meeting == *b.instances,
           fmt::format("{} = {}: {}", what, meeting, fmt::join(seen, "; ")));
  if (b.max_ms) checks->back().widened_by_ms = widened_ms;
}

}  // namespace

bool WaitEventIs(const std::string& recorded, const std::string& want) {
  return recorded == want ||
         (recorded.size() > want.size() && recorded.compare(0, want.size(), want) == 0 &&
          recorded[want.size()] == ':');
}

// `blocked`: each instance of the role ran the step and the monitor saw it in a lock wait (whenever
// min_ms, by or wait_event is given, or neither bound is); the statement took, from send to answer,
// at least min_ms less its measured late start and at most max_ms plus the lateness the machine
// measurably added to it (lateness.h); it was blocked by role `by`, and its first wait was on
// `wait_event`. A lone max_ms also accepts a step never seen waiting. The text says which of these
// is checked; the widening of each trial is in Check::widened_by_ms and, on failure, in the detail.
// With `instances`, CheckInstances instead.
void CheckBlocked(const PlanItem& item, const TrialResult& r, std::vector<Check>* checks) {
  for (const auto& b : item.expect.blocked) {
    if (b.instances) {
      CheckInstances(item, b, r, checks);
      continue;
    }
    int instances = static_cast<int>(
        std::count_if(item.sessions.begin(), item.sessions.end(),
                      [&](const PlannedSession& s) { return s.role == b.session; }));
    std::string where = instances > 1
                            ? fmt::format("each of the {} {}/{}", instances, b.session, b.step)
                            : b.session + "/" + b.step;
    const bool must_wait = b.min_ms || !b.by.empty() || !b.wait_event.empty() || !b.max_ms;
    std::string text;
    if (b.min_ms && b.max_ms) {
      text = fmt::format(
          "{} was seen in a lock wait and took >= {} ms and <= {} ms + measured lateness, {}",
          where, MsText(*b.min_ms), MsText(*b.max_ms), kSendToAnswer);
    } else if (b.min_ms) {
      text = fmt::format("{} was seen in a lock wait and took >= {} ms, {}", where,
                         MsText(*b.min_ms), kSendToAnswer);
    } else if (b.max_ms) {
      text =
          must_wait
              ? fmt::format("{} was seen in a lock wait and took <= {} ms + measured lateness, {}",
                            where, MsText(*b.max_ms), kSendToAnswer)
              : fmt::format(
                    "{} was not seen in a lock wait or took <= {} ms + measured lateness, {}",
                    where, MsText(*b.max_ms), kSendToAnswer);
    } else {
      text = fmt::format("{} was seen in a lock wait", where);
    }
    bool ok = true, by_ok = true, event_ok = true;
    double widened_ms = 0;
    std::string detail, by_detail, event_detail;
    for (const auto& s : item.sessions) {
      if (s.role != b.session) continue;
      const StepEvent* ev = LastRun(r, s.label, b.step);
      // The statement's whole interval: it contains the server's wait (and, with statement_timeout,
      // the time before the wait that the timer also counts), so load only lengthens it — but for a
      // late start, which shortens a wait another session ends (LateStartUs) — and it is the
      // interval whose lateness lateness.h measures.
      double ms = ev == nullptr || !ev->lock_wait ? 0.0 : (ev->completed_us - ev->sent_us) / 1000.0;
      LatenessAllowance late = ev != nullptr ? MeasuredLateness(r, *ev) : LatenessAllowance{};
      double allowance_ms = b.max_ms ? late.total_us() / 1000.0 : 0.0;
      widened_ms = std::max(widened_ms, allowance_ms);
      std::string why;
      if (ev == nullptr) {
        why = fmt::format("{}/{} did not run", s.label, b.step);
      } else if (must_wait && !ev->lock_wait) {
        why = fmt::format("{}/{} was not seen in a lock wait ({} ms elapsed)", s.label, b.step,
                          MsText((ev->completed_us - ev->sent_us) / 1000.0));
      } else if (b.min_ms && ms < LowerBoundMs(item, *b.min_ms, r, *ev)) {
        why = fmt::format("{}/{} took {} ms < {}", s.label, b.step, MsText(ms),
                          LowerBoundText(item, *b.min_ms, r, *ev));
      } else if (b.max_ms && ms > *b.max_ms + allowance_ms) {
        why = fmt::format("{}/{} took {} ms > {} ms + {}", s.label, b.step, MsText(ms),
                          MsText(*b.max_ms), late.Describe());
      }
      if (!why.empty()) {
        if (ok) detail = why;
        ok = false;
      }
      const std::string not_waiting =
          ev == nullptr    ? fmt::format("{}/{} did not run", s.label, b.step)
          : !ev->lock_wait ? fmt::format("{}/{} was not seen in a lock wait", s.label, b.step)
                           : "";
      if (!b.by.empty() && !(ev != nullptr && ev->lock_wait && BlockedBy(*ev, b.by)) && by_ok) {
        by_ok = false;
        by_detail = !not_waiting.empty() ? not_waiting
                                         : fmt::format("{}/{} blockers seen: [{}]", s.label, b.step,
                                                       fmt::join(ev->blocked_by, ", "));
      }
      if (!b.wait_event.empty() &&
          !(ev != nullptr && ev->lock_wait && WaitEventIs(ev->wait_event, b.wait_event)) &&
          event_ok) {
        event_ok = false;
        event_detail = !not_waiting.empty()
                           ? not_waiting
                           : fmt::format("{}/{} waited on {} ({})", s.label, b.step, ev->wait_event,
                                         ev->lock_wait_source);
      }
    }
    AddCheck(checks, std::move(text), ok, detail);
    if (b.max_ms) checks->back().widened_by_ms = widened_ms;
    if (!b.by.empty()) {
      AddCheck(checks, fmt::format("{} waited on a lock held by {}", where, b.by), by_ok,
               by_detail);
    }
    if (!b.wait_event.empty()) {
      AddCheck(checks, fmt::format("{} waited first on {}", where, b.wait_event), event_ok,
               event_detail);
    }
  }
}

}  // namespace racelab::internal
