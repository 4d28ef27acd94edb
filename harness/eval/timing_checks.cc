// expect.timing: how long a step took (send to answer), or how long after another session's step
// was sent it answered; and whether it was seen waiting (step_checks.h; issue 11 item 9;
// docs/scenario-format.md "Timing of steps").
//
// Which way load moves each quantity — and so how each bound is judged:
// - A step's own time, [sent_us, completed_us], contains everything its backend and its worker did
//   for it; load only lengthens it — unless the step waited and another session ended the wait:
//   then a late start of the step shortens it, and min_ms is lowered by that measured late start
//   (LateStartUs), and by nothing else. max_ms is widened by the lateness
//   measured on that interval (MeasuredLateness: the step's own late_us, plus its blockers' paths
//   when it waited).
// - With `after: R.S`, the time from R.S's send to the step's answer. When the step answers only
// after
//   R.S released it (it waited for R.S, or ran after it), every part of that interval — R.S
//   reaching the server, its commit, the wake-up of the waiter, the waiter's answer — is work load
//   can only delay, so min_ms (default 0: "after R.S was sent") is taken as written. max_ms is
//   widened by the lateness measured on the interval on both paths: the timed session's (its steps'
//   late_us and racelab's gaps), R's (R.S's own late_us and whatever R ran inside the interval) and
//   any other session the step waited on. The reference is R.S's *send*, not its answer: R's worker
//   waking late to read R.S's answer would move an answer-based reference later and could break a
//   lower bound.
#include <fmt/format.h>

#include <algorithm>

#include "harness/eval/lateness.h"
#include "harness/eval/step_checks.h"

namespace racelab::internal {
namespace {

std::string BoundsText(const std::optional<double>& min_ms, const std::optional<double>& max_ms) {
  if (min_ms && max_ms) {
    return fmt::format(">= {} ms and <= {} ms + measured lateness", MsText(*min_ms),
                       MsText(*max_ms));
  }
  if (min_ms) return fmt::format(">= {} ms", MsText(*min_ms));
  return fmt::format("<= {} ms + measured lateness", MsText(*max_ms));
}

std::string TextOf(const PlannedTiming& t, const std::string& where,
                   const std::optional<double>& min_ms) {
  std::string text;
  if (!t.after_session.empty()) {
    text = fmt::format("{} answered {} after {}/{} was sent", where, BoundsText(min_ms, t.max_ms),
                       t.after_session, t.after_step);
  } else if (min_ms || t.max_ms) {
    text = fmt::format("{} took {}, send to answer", where, BoundsText(min_ms, t.max_ms));
  } else {
    text = where;
  }
  if (t.waited) {
    const char* seen = *t.waited ? "was seen in a lock wait" : "was not seen in a lock wait";
    text += text == where ? fmt::format(" {}", seen) : fmt::format(", and {}", seen);
  }
  return text;
}

// The reference step's session label: the one instance of `role` (the planner refuses more).
std::string LabelOf(const PlanItem& item, const std::string& role) {
  for (const auto& s : item.sessions) {
    if (s.role == role) return s.label;
  }
  return role;
}

}  // namespace

void CheckTiming(const PlanItem& item, const TrialResult& r, std::vector<Check>* checks) {
  for (const PlannedTiming& t : item.expect.timing) {
    const bool after = !t.after_session.empty();
    // With `after`, "answered after R.S was sent" unless the file says otherwise.
    const std::optional<double> min_ms = t.min_ms ? t.min_ms
                                         : after  ? std::optional<double>(0.0)
                                                  : std::nullopt;
    const int instances = static_cast<int>(
        std::count_if(item.sessions.begin(), item.sessions.end(),
                      [&](const PlannedSession& s) { return s.role == t.session; }));
    const std::string where =
        instances > 1 ? fmt::format("each of the {} {}/{}", instances, t.session, t.step)
                      : t.session + "/" + t.step;
    const std::string ref_label = after ? LabelOf(item, t.after_session) : "";
    bool ok = true;
    double widened_ms = 0;
    std::string detail;
    for (const auto& s : item.sessions) {
      if (s.role != t.session) continue;
      const StepEvent* ev = LastRun(r, s.label, t.step);
      const StepEvent* ref = after ? LastRun(r, ref_label, t.after_step) : nullptr;
      std::string why;
      if (ev == nullptr) {
        why = fmt::format("{}/{} did not run", s.label, t.step);
      } else if (after && ref == nullptr) {
        why = fmt::format("{}/{} did not run", ref_label, t.after_step);
      } else {
        const int64_t from = after ? ref->sent_us : ev->sent_us;
        const double ms = (ev->completed_us - from) / 1000.0;
        int64_t own_us = 0, others_us = 0;
        if (!after) {
          LatenessAllowance a = MeasuredLateness(r, *ev);
          own_us = a.own_us;
          others_us = a.blockers_us;
        } else {
          own_us = PathLatenessUs(r, s.label, from, ev->completed_us);
          others_us = PathLatenessUs(r, ref_label, from, ev->completed_us);
          for (const std::string& blocker : ev->blocked_by) {
            if (blocker == s.label || blocker == ref_label) continue;
            others_us += PathLatenessUs(r, blocker, ev->sent_us, ev->completed_us);
          }
        }
        const double allowance_ms = t.max_ms ? (own_us + others_us) / 1000.0 : 0.0;
        widened_ms = std::max(widened_ms, allowance_ms);
        const std::string took =
            after ? fmt::format("{}/{} answered {} ms after {}/{} was sent", s.label, t.step,
                                MsText(ms), ref_label, t.after_step)
                  : fmt::format("{}/{} took {} ms", s.label, t.step, MsText(ms));
        // A step's own time starts at its send: a late start shortens a wait another session ends.
        const double lower_ms = !min_ms ? 0.0
                                : after ? *min_ms
                                        : LowerBoundMs(item, *min_ms, r, *ev);
        if (min_ms && ms < lower_ms) {
          why =
              fmt::format("{} < {}", took,
                          after ? MsText(*min_ms) + " ms" : LowerBoundText(item, *min_ms, r, *ev));
        } else if (t.max_ms && ms > *t.max_ms + allowance_ms) {
          why = fmt::format("{} > {} ms + {} ms measured lateness ({} {}, {} {})", took,
                            MsText(*t.max_ms), MsText(allowance_ms), after ? "its path" : "own",
                            MsText(own_us / 1000.0), after ? "others'" : "blockers'",
                            MsText(others_us / 1000.0));
        } else if (t.waited && ev->lock_wait != *t.waited) {
          why = ev->lock_wait
                    ? fmt::format("{}/{} was seen in a lock wait on {} ({}, held by [{}])", s.label,
                                  t.step, ev->wait_event, ev->lock_wait_source,
                                  fmt::join(ev->blocked_by, ", "))
                    : fmt::format("{}/{} was not seen in a lock wait", s.label, t.step);
        }
      }
      if (!why.empty() && ok) detail = why;
      ok = ok && why.empty();
    }
    AddCheck(checks, TextOf(t, where, min_ms), ok, detail);
    if (t.max_ms) checks->back().widened_by_ms = widened_ms;
  }
}

}  // namespace racelab::internal
