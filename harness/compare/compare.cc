#include "harness/compare/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "harness/compare/stats.h"

namespace racelab::compare {
namespace {

// Timing is judged only when both runs have at least this many samples.
constexpr int64_t kMinTimingSamples = 5;
constexpr double kBlockedFloorMs = 1.0, kBlockedFloorShare = 0.10;
constexpr double kSkewFloorUs = 100.0, kSkewFloorShare = 0.50;

CountTest Counts(std::string kind, std::string subject, bool per_trial, int64_t base_count,
                 int64_t base_trials, int64_t new_count, int64_t new_trials) {
  CountTest t;
  t.kind = std::move(kind);
  t.subject = std::move(subject);
  t.per_trial = per_trial;
  t.base_count = base_count;
  t.base_trials = base_trials;
  t.new_count = new_count;
  t.new_trials = new_trials;
  return t;
}

CountTest TrialTest(std::string kind, std::string subject, int64_t base_count, int64_t base_trials,
                    int64_t new_count, int64_t new_trials) {
  CountTest t = Counts(std::move(kind), std::move(subject), true, base_count, base_trials,
                       new_count, new_trials);
  const int64_t a = base_count, b = base_trials - base_count, c = new_count,
                d = new_trials - new_count;
  if (b < 0 || d < 0) return t;  // inconsistent report (more than one per trial): not tested
  t.in_family = Testable2x2(a, b, c, d);
  t.p = FisherExactTwoSided(a, b, c, d);
  return t;
}

CountTest RateTest(std::string kind, std::string subject, int64_t base_count, int64_t base_trials,
                   int64_t new_count, int64_t new_trials) {
  CountTest t = Counts(std::move(kind), std::move(subject), false, base_count, base_trials,
                       new_count, new_trials);
  t.in_family = base_count + new_count > 0 && base_trials > 0 && new_trials > 0;
  if (t.in_family) t.p = PoissonRatesTwoSided(base_count, base_trials, new_count, new_trials);
  return t;
}

TimingShift JudgeTiming(std::string what, const PercentileView& base, const PercentileView& now,
                        double floor_abs, double floor_share) {
  TimingShift s;
  s.what = std::move(what);
  s.base = base;
  s.now = now;
  if (base.count < kMinTimingSamples || now.count < kMinTimingSamples) return s;
  s.shift = now.p50 - base.p50;
  const double spread = std::max(base.p95 - base.p50, now.p95 - now.p50);
  s.allowed = spread + std::max(floor_abs, floor_share * std::max(base.p50, now.p50));
  s.flagged = std::fabs(s.shift) > s.allowed;
  return s;
}

std::string Ratio(int64_t count, int64_t trials) { return fmt::format("{}/{}", count, trials); }

// Trials of `r` in which some expectation failed: exact when trial_details keeps every trial (those
// whose verdict is not pass), otherwise the larger of the failing trials kept and the most failures
// of any one per-trial expectation — a lower bound, so the test never overstates a rise.
int64_t FailingTrials(const ResultView& r) {
  int64_t n = r.failing_trials_kept;
  for (const auto& e : r.expectations) {
    if (!e.min_fraction) n = std::max(n, e.failed);
  }
  return std::min(n, r.trials);
}

// Returns whether the per-trial outcomes (rows, final values) could be compared.
bool CompareCounts(const ResultView& b, const ResultView& n, ResultComparison* rc) {
  // Expectations, matched by their text (stable across runs); the rest are changes.
  std::map<std::string, const ExpectationView*> base_expect, new_expect;
  for (const auto& e : b.expectations) base_expect.emplace(e.text, &e);
  for (const auto& e : n.expectations) new_expect.emplace(e.text, &e);
  std::vector<const ExpectationView*> removed, added;
  for (const auto& e : b.expectations) {
    auto it = new_expect.find(e.text);
    if (it == new_expect.end()) {
      removed.push_back(&e);
      continue;
    }
    rc->tests.push_back(TrialTest("expectation", "expectation failed: " + e.text, e.failed,
                                  e.passed + e.failed, it->second->failed,
                                  it->second->passed + it->second->failed));
  }
  for (const auto& e : n.expectations) {
    if (!base_expect.count(e.text)) added.push_back(&e);
  }
  // The result's failing trials as a whole, whatever its expectations say (after the expectations:
  // a regression's first reason stays the expectation that failed, when one is matched).
  rc->tests.push_back(TrialTest("failing trials", "trials failing any expectation",
                                FailingTrials(b), b.trials, FailingTrials(n), n.trials));
  for (size_t i = 0; i < std::max(removed.size(), added.size()); ++i) {
    ExpectationChange change;
    if (i < removed.size()) change.base_text = removed[i]->text;
    if (i < added.size()) {
      change.new_text = added[i]->text;
      change.new_failed = added[i]->failed;
      change.new_trials = added[i]->passed + added[i]->failed;
      change.new_failing = added[i]->Failing();
    }
    rc->expectation_changes.push_back(std::move(change));
  }
  // Winners histogram: trials with k winners, per k.
  std::set<std::string> ks;
  for (const auto& [k, v] : b.winners) ks.insert(k);
  for (const auto& [k, v] : n.winners) ks.insert(k);
  for (const auto& k : ks) {
    auto count = [&](const ResultView& r) {
      auto it = r.winners.find(k);
      return it == r.winners.end() ? 0 : it->second;
    };
    rc->tests.push_back(TrialTest("winners", fmt::format("{} winner{}", k, k == "1" ? "" : "s"),
                                  count(b), b.trials, count(n), n.trials));
  }
  // SQLSTATE occurrences and lock waits: events per trial.
  std::set<std::string> codes;
  for (const auto& [k, v] : b.sqlstates) codes.insert(k);
  for (const auto& [k, v] : n.sqlstates) codes.insert(k);
  for (const auto& code : codes) {
    auto count = [&](const ResultView& r) {
      auto it = r.sqlstates.find(code);
      return it == r.sqlstates.end() ? 0 : it->second;
    };
    rc->tests.push_back(
        RateTest("sqlstate", "SQLSTATE " + code, count(b), b.trials, count(n), n.trials));
  }
  rc->tests.push_back(RateTest("lock waits", "statements in a lock wait", b.blocked_ms.count,
                               b.trials, n.blocked_ms.count, n.trials));
  // Row counts and final values per trial, when both reports hold every trial.
  if (b.trial_outcomes && n.trial_outcomes) {
    std::map<std::string, std::pair<int64_t, int64_t>>
        freq;  // category -> (base trials, new trials)
    for (const auto& t : *b.trial_outcomes)
      for (const auto& c : std::set<std::string>(t.begin(), t.end())) ++freq[c].first;
    for (const auto& t : *n.trial_outcomes)
      for (const auto& c : std::set<std::string>(t.begin(), t.end())) ++freq[c].second;
    for (const auto& [category, f] : freq) {
      rc->tests.push_back(TrialTest("outcome", category, f.first, b.trials, f.second, n.trials));
    }
  }
  rc->timing.push_back(
      JudgeTiming("blocked ms", b.blocked_ms, n.blocked_ms, kBlockedFloorMs, kBlockedFloorShare));
  rc->timing.push_back(JudgeTiming("skew µs", b.skew_us, n.skew_us, kSkewFloorUs, kSkewFloorShare));
  return b.trial_outcomes && n.trial_outcomes;
}

void Judge(const CompareOptions& options, ResultComparison* rc) {
  for (auto& t : rc->tests) {
    // Failures (of the result or of one expectation): only more is a regression (fewer is an
    // improvement). Outcomes: any significant shift is a change of behaviour.
    const bool failures = t.kind == "expectation" || t.kind == "failing trials";
    // Lock waits of an interleaving the scenario does not force depend on timing (a loaded machine
    // holds a lock longer, so more sessions arrive while it is held): like blocked time, they gate
    // only with TimingPolicy::kFail.
    const bool timing_dependent = t.kind == "lock waits" && options.timing != TimingPolicy::kFail;
    t.regression = t.significant && !timing_dependent && (!failures || t.rose());
    if (t.regression) {
      rc->reasons.push_back(fmt::format("{}: {} → {} (p = {:.2g}, Holm-adjusted {:.2g})", t.subject,
                                        Ratio(t.base_count, t.base_trials),
                                        Ratio(t.new_count, t.new_trials), t.p, t.p_adjusted));
    }
  }
  for (const auto& change : rc->expectation_changes) {
    if (!change.new_failing) continue;
    rc->reasons.push_back(fmt::format(
        "expectation {} fails in NEW: {} of {} trials (an expectation only in NEW has no baseline "
        "to be within "
        "chance of)",
        change.base_text.empty()
            ? fmt::format("'{}' (added)", change.new_text)
            : fmt::format("'{}' (changed from '{}')", change.new_text, change.base_text),
        change.new_failed, change.new_trials));
  }
  for (auto& s : rc->timing) {
    s.regression = s.flagged && options.timing == TimingPolicy::kFail && s.what == "blocked ms";
    if (s.regression) {
      rc->reasons.push_back(
          fmt::format("{} median {:.3f} → {:.3f} (shift {:+.3f}, beyond the noise {:.3f})", s.what,
                      s.base.p50, s.now.p50, s.shift, s.allowed));
    }
  }
  if (rc->new_verdict == "error" && rc->base_verdict != "error") {
    rc->reasons.push_back("the NEW run ended in an error, so its behaviour is unknown");
  }
  if (rc->base_verdict && rc->new_verdict && *rc->base_verdict != *rc->new_verdict &&
      rc->reasons.empty() && *rc->new_verdict != "interrupted" &&
      *rc->base_verdict != "interrupted") {
    const auto whole = std::find_if(rc->tests.begin(), rc->tests.end(),
                                    [](const CountTest& t) { return t.kind == "failing trials"; });
    const std::string counts =
        whole == rc->tests.end()
            ? ""
            : fmt::format(" (failing trials {} → {})", Ratio(whole->base_count, whole->base_trials),
                          Ratio(whole->new_count, whole->new_trials));
    rc->notes.push_back(fmt::format("verdict {} → {}, within chance at alpha = {}{}",
                                    *rc->base_verdict, *rc->new_verdict, options.alpha, counts));
  }
  rc->regression = !rc->reasons.empty();
}

}  // namespace

int Comparison::regressions() const {
  return static_cast<int>(
      std::count_if(results.begin(), results.end(), [](const auto& r) { return r.regression; }));
}

Comparison Compare(const ReportView& base, const ReportView& now, const CompareOptions& options) {
  Comparison c;
  c.base_name = base.name;
  c.new_name = now.name;
  c.options = options;
  auto differs = [&](const char* what, const std::string& x, const std::string& y) {
    if (x != y)
      c.warnings.push_back(fmt::format("{} differs: BASE {}, NEW {} (compared all the same)", what,
                                       x.empty() ? "(none)" : x, y.empty() ? "(none)" : y));
  };
  differs("racelab version", base.racelab_version, now.racelab_version);
  // A report with no results (an empty shard: no server started) has no server to differ.
  if (!base.results.empty() && !now.results.empty()) {
    differs("engine", base.engine, now.engine);
    differs("server version", base.server_version, now.server_version);
  }
  if (base.schema_version != now.schema_version) {
    c.warnings.push_back(
        fmt::format("report schema differs: BASE {}, NEW {} (fields both know are compared)",
                    base.schema_version, now.schema_version));
  }

  std::map<std::string, const ResultView*> new_by_key;
  for (const auto& r : now.results) {
    if (!new_by_key.emplace(r.Key(), &r).second)
      c.warnings.push_back("NEW lists " + r.Key() + " twice; the first is compared");
  }
  std::set<std::string> done;
  int without_details = 0;
  int missing = 0;
  int interrupted = 0;  // results NEW ran only in part: an interrupt cut them short
  for (const auto& b : base.results) {
    const std::string key = b.Key();
    if (!done.insert(key).second) {
      c.warnings.push_back("BASE lists " + key + " twice; the first is compared");
      continue;
    }
    ResultComparison rc;
    rc.key = key;
    rc.scenario = b.scenario;
    rc.isolation = b.isolation;
    rc.engine = b.engine;
    rc.base_verdict = b.verdict;
    rc.base_trials = b.trials;
    auto it = new_by_key.find(key);
    if (it == new_by_key.end()) {
      ++missing;
      if (options.fail_on_missing)
        rc.reasons.push_back("not in NEW: BASE ran it, NEW did not (--fail-on-missing)");
      else
        rc.notes.push_back("not in NEW (not run there)");
    } else {
      rc.new_verdict = it->second->verdict;
      rc.new_trials = it->second->trials;
      without_details += CompareCounts(b, *it->second, &rc) ? 0 : 1;
      if (!it->second->interrupted.empty() || it->second->verdict == "interrupted") {
        rc.new_interrupted = true;
        ++interrupted;
        const std::string what =
            it->second->interrupted.empty() ? "interrupted" : it->second->interrupted;
        const std::string ran =
            fmt::format("NEW {} ({} trial{} ran): compared on the trials that ran", what,
                        rc.new_trials, rc.new_trials == 1 ? "" : "s");
        if (options.fail_on_missing)
          rc.reasons.push_back(ran + "; NEW did not run all of it (--fail-on-missing)");
        else
          rc.notes.push_back(ran);
      }
    }
    if (!b.interrupted.empty() || b.verdict == "interrupted") {
      rc.notes.push_back(fmt::format("BASE {} ({} trial{} ran)",
                                     b.interrupted.empty() ? "interrupted" : b.interrupted,
                                     b.trials, b.trials == 1 ? "" : "s"));
    }
    c.results.push_back(std::move(rc));
  }
  for (const auto& n : now.results) {
    if (done.count(n.Key())) continue;
    done.insert(n.Key());
    ResultComparison rc;
    rc.key = n.Key();
    rc.scenario = n.scenario;
    rc.isolation = n.isolation;
    rc.engine = n.engine;
    rc.new_verdict = n.verdict;
    rc.new_trials = n.trials;
    rc.notes.push_back("not in BASE (no baseline)");
    // A fail with no baseline has nothing to be within chance of (an error is judged in Judge).
    if (n.verdict == "fail") {
      rc.reasons.push_back(
          fmt::format("not in BASE, and it fails in NEW ({} of {} trials failing): a result with "
                      "no baseline has none to be within chance of",
                      FailingTrials(n), n.trials));
    }
    c.results.push_back(std::move(rc));
  }

  if (missing > 0) {
    c.warnings.push_back(fmt::format(
        "{} of BASE's {} result{} {} not in NEW: {}", missing, base.results.size(),
        base.results.size() == 1 ? "" : "s", missing == 1 ? "is" : "are",
        options.fail_on_missing ? "each is a regression (--fail-on-missing)"
                                : "not judged (--fail-on-missing makes each a regression)"));
  }
  if (interrupted > 0) {
    c.warnings.push_back(fmt::format(
        "{} of NEW's results {} interrupted (SIGINT/SIGTERM) before their last trial: "
        "compared on the trials they ran; {}",
        interrupted, interrupted == 1 ? "was" : "were",
        options.fail_on_missing ? "each is a regression (--fail-on-missing)"
                                : "not a pass (--fail-on-missing makes each a regression)"));
  }
  if (without_details > 0) {
    c.warnings.push_back(
        fmt::format("row counts and final values not compared for {} result{}: a report lacks "
                    "trial details (run with --details all to compare them)",
                    without_details, without_details == 1 ? "" : "s"));
  }
  // One family for the whole comparison: Holm over every testable test.
  std::vector<CountTest*> family;
  for (auto& rc : c.results)
    for (auto& t : rc.tests)
      if (t.in_family) family.push_back(&t);
  std::vector<double> p;
  for (const CountTest* t : family) p.push_back(t->p);
  const std::vector<double> adjusted = HolmAdjust(p);
  for (size_t i = 0; i < family.size(); ++i) {
    family[i]->p_adjusted = adjusted[i];
    family[i]->significant = adjusted[i] < options.alpha;
  }
  c.family_size = family.size();
  for (auto& rc : c.results) Judge(options, &rc);
  // A result that passed in BASE and fails in NEW without being a regression is never silent.
  const auto wobbles =
      std::count_if(c.results.begin(), c.results.end(), [](const ResultComparison& r) {
        return !r.regression && r.base_verdict == "pass" && r.new_verdict == "fail";
      });
  if (wobbles > 0) {
    c.warnings.push_back(fmt::format(
        "{} result{} passed in BASE and {} in NEW within chance at alpha = {} (not a "
        "regression; run more trials to tell)",
        wobbles, wobbles == 1 ? "" : "s", wobbles == 1 ? "fails" : "fail", options.alpha));
  }
  return c;
}

std::string MethodLine(const Comparison& c) {
  return fmt::format(
      "Counts: Fisher's exact test (two-sided) for trials, exact conditional test of two Poisson "
      "rates for "
      "SQLSTATEs and lock waits; Holm-corrected over {} test{}; alpha = {}. Timing: a median shift "
      "beyond the larger "
      "p50→p95 spread of the two runs plus a floor ({}).",
      c.family_size, c.family_size == 1 ? "" : "s", c.options.alpha,
      c.options.timing == TimingPolicy::kFail ? "blocked time gates" : "reported, does not gate");
}

}  // namespace racelab::compare
