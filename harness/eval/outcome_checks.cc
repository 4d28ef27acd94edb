#include "harness/eval/outcome_checks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <regex>

#include "harness/eval/evaluator.h"
#include "harness/model/error_pattern.h"

namespace racelab {
namespace {

// A compiled `message`/`detail` pattern; empty text: matches anything.
class Pattern {
 public:
  explicit Pattern(const std::string& text) : text_(text) {
    if (text.empty()) return;
    try {
      regex_ = CompileErrorPattern(text);
    } catch (
        const std::regex_error&) {  // the loader refuses such a pattern; a hand-made plan may not
      regex_.reset();
      broken_ = true;
    }
  }
  bool Matches(const std::string& subject) const {
    if (broken_) return false;
    return !regex_ || SearchErrorPattern(*regex_, subject);
  }
  bool empty() const { return text_.empty(); }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::optional<std::regex> regex_;
  bool broken_ = false;
};

// The session's events of its last transaction attempt (`retry`), skipped ones left out.
std::vector<const StepEvent*> LastAttempt(const TrialResult& r, const std::string& label) {
  int last = 1;
  for (const auto& ev : r.events) {
    if (ev.session == label) last = std::max(last, ev.attempt);
  }
  std::vector<const StepEvent*> out;
  for (const auto& ev : r.events) {
    if (ev.session == label && ev.attempt == last && !ev.skipped) out.push_back(&ev);
  }
  return out;
}

std::string Subject(const PlannedError& e) {
  if (e.session.empty()) return e.step;
  return e.step.empty() ? e.session : e.session + "/" + e.step;
}

std::string ErrorText(const PlannedError& e) {
  std::string text = fmt::format("errors: {} failed", Subject(e));
  if (!e.sqlstate.empty()) text += " with " + e.sqlstate;
  if (!e.message.empty()) text += fmt::format(", message matching /{}/", e.message);
  if (!e.detail.empty()) text += fmt::format(", DETAIL matching /{}/", e.detail);
  return text + ": sessions " + e.sessions.Text();
}

}  // namespace

void CheckErrors(const PlanItem& item, const PlannedExpect& expect, const TrialResult& r,
                 std::vector<Check>* checks) {
  for (const PlannedError& e : expect.errors) {
    const Pattern message(e.message), detail(e.detail);
    long matched = 0;
    std::vector<std::string> seen;  // per session, what its error was: the failure's detail
    for (const PlannedSession& s : item.sessions) {
      if (!e.session.empty() && s.role != e.session) continue;
      std::vector<const StepEvent*> events = LastAttempt(r, s.label);
      if (!e.step.empty()) {
        const StepEvent* last = nullptr;
        for (const StepEvent* ev : events) {
          if (ev->step == e.step) last = ev;
        }
        if (last == nullptr) {
          if (!e.session.empty())
            seen.push_back(fmt::format("{}: {} did not run", s.label, e.step));
          continue;
        }
        events = {last};
      }
      bool any_error = false, ok = false;
      std::string why;
      for (const StepEvent* ev : events) {
        if (ev->sqlstate.empty()) continue;
        any_error = true;
        bool code =
            e.sqlstate.empty() || ev->sqlstate == e.sqlstate || ev->error_code == e.sqlstate;
        bool msg = message.Matches(ev->message);
        bool det = detail.Matches(ev->detail);
        if (code && msg && det) {
          ok = true;
          break;
        }
        if (why.empty()) {
          why = fmt::format("{}: {} failed with {} '{}'{}", s.label, ev->step,
                            ev->error_code.empty() ? ev->sqlstate : ev->error_code, ev->message,
                            !detail.empty() && !det
                                ? (ev->detail.empty() ? ", no DETAIL" : ", DETAIL not matching")
                                : "");
        }
      }
      if (ok) {
        ++matched;
        seen.push_back(fmt::format("{}: matched", s.label));
      } else if (!why.empty()) {
        seen.push_back(why);
      } else if (!any_error && (!e.session.empty() || !e.step.empty())) {
        seen.push_back(
            fmt::format("{}: {} did not fail", s.label, e.step.empty() ? "no step" : e.step));
      }
    }
    checks->push_back(Check{ErrorText(e), e.sessions.Holds(matched), ""});
    if (!checks->back().passed) {
      checks->back().detail = fmt::format("sessions = {} [{}]", matched, fmt::join(seen, "; "));
    }
  }
}

void CheckOneOf(const PlanItem& item, const TrialResult& r, std::vector<Check>* checks,
                std::vector<int>* held) {
  const std::vector<PlannedAlternative>& alts = item.expect.one_of;
  if (alts.empty()) return;
  size_t offset = item.expect.final.size();  // this alternative's finals in r.finals
  std::vector<std::string> texts, failures;
  for (size_t i = 0; i < alts.size(); ++i) {
    PlanItem
        alone;  // what EvaluateTrial reads: the sessions, the outcome, this alternative's checks
    alone.sessions = item.sessions;
    for (PlannedSession& s :
         alone.sessions) {  // probe steps are checked once, by the trial, not per alternative
      s.steps.erase(
          std::remove_if(s.steps.begin(), s.steps.end(),
                         [](const PlannedStep& step) { return step.kind == StepKind::kProbe; }),
          s.steps.end());
    }
    alone.outcome = item.outcome;
    alone.expect = alts[i].checks;
    TrialResult copy = r;
    copy.finals.clear();
    for (size_t k = 0; k < alts[i].checks.final.size(); ++k) {
      if (offset + k < r.finals.size()) copy.finals.push_back(r.finals[offset + k]);
    }
    offset += alts[i].checks.final.size();
    TrialVerdict v = EvaluateTrial(alone, std::move(copy));
    std::vector<std::string> names;
    std::string first_failure;
    for (const Check& c : v.checks) {
      names.push_back(c.text);
      if (!c.passed && first_failure.empty()) first_failure = c.detail;
    }
    texts.push_back(fmt::format("({}: {})", alts[i].name, fmt::join(names, ", ")));
    if (first_failure.empty()) {
      held->push_back(static_cast<int>(i));
    } else {
      failures.push_back(fmt::format("{}: {}", alts[i].name, first_failure));
    }
  }
  checks->push_back(
      Check{fmt::format("one of: {}", fmt::join(texts, " or ")), !held->empty(),
            held->empty() ? fmt::format("none held: {}", fmt::join(failures, "; ")) : ""});
}

std::vector<ExpectationTally> AlternativeFractionTallies(const PlanItem& item,
                                                         const std::vector<int>& alternative_trials,
                                                         int trials) {
  std::vector<ExpectationTally> out;
  for (size_t i = 0; i < item.expect.one_of.size(); ++i) {
    const PlannedAlternative& alt = item.expect.one_of[i];
    if (!alt.min_fraction) continue;
    ExpectationTally t;
    t.text =
        fmt::format("one_of '{}' held in >= {:g}% of trials", alt.name, *alt.min_fraction * 100);
    t.passed = i < alternative_trials.size() ? alternative_trials[i] : 0;
    t.failed = trials - t.passed;
    t.min_fraction = alt.min_fraction;
    if (t.Failing()) {
      t.first_failure =
          fmt::format("held in {} of {} trials ({:.1f}%), fewer than {:g}%", t.passed, trials,
                      trials > 0 ? 100.0 * t.passed / trials : 0.0, *alt.min_fraction * 100);
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace racelab
