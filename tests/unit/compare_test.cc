// racelab compare on crafted reports (harness/compare/compare.h): what is and is not a regression,
// warnings for another version or server, and the file/field errors of the report reader.
#include "harness/compare/compare.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/compare/anomaly_matrix.h"
#include "harness/compare/compare_output.h"
#include "harness/compare/merge_command.h"
#include "harness/compare/report_view.h"
#include "tests/temp_dir.h"

namespace racelab::compare {
namespace {

using Json = nlohmann::json;

// One results[] entry with `failed` of `trials` failing its expectation and `winners` as given.
Json Result(const std::string& scenario, int trials, int failed, Json winners,
            Json sqlstates = Json::object(),
            Json blocked = {{"p50", 0}, {"p95", 0}, {"max", 0}, {"count", 0}}) {
  return {
      {"scenario", scenario},
      {"title", "t"},
      {"file", scenario + ".yaml"},
      {"isolation", "read committed"},
      {"params", {{"workers", "2"}}},
      {"trials", trials},
      {"verdict", failed > 0 ? "fail" : "pass"},
      {"winners", winners},
      {"sqlstates", sqlstates},
      {"retries", 0},
      {"blocked_ms", blocked},
      {"skew_us", {{"p50", 20}, {"p95", 30}, {"max", 40}, {"count", trials}}},
      {"expectations",
       Json::array({{{"text", "winners = 1"}, {"passed", trials - failed}, {"failed", failed}}})}};
}

Json Report(std::vector<Json> results, const std::string& version = "0.1.0",
            const std::string& server = "15.8") {
  return {{"schema_version", 1},
          {"racelab_version", version},
          {"created_at", "2026-11-30T00:00:00Z"},
          {"command", "racelab run"},
          {"seed", 0},
          {"target",
           {{"engine", "postgresql"},
            {"server_version", server},
            {"embedded", true},
            {"settings", Json::object()}}},
          {"summary", Json::object()},
          {"results", results}};
}

ReportView View(const Json& j, const std::string& name) {
  auto v = ReportViewFromJson(j, name);
  EXPECT_TRUE(v.ok()) << v.status().message();
  return v.ok() ? *v : ReportView{};
}

Comparison CompareJson(const Json& base, const Json& now, CompareOptions o = {}) {
  return Compare(View(base, "base.json"), View(now, "new.json"), o);
}

TEST(CompareTest, IdenticalRunsAreSame) {
  const Json r = Report({Result("guarded-cas-claim", 20, 0, {{"1", 20}})});
  const Comparison c = CompareJson(r, r);
  EXPECT_FALSE(c.regression());
  ASSERT_EQ(c.results.size(), 1u);
  EXPECT_EQ(c.warnings.size(), 1u);  // no trial_details: rows not compared
  std::ostringstream out;
  WriteConsole(c, out);
  EXPECT_NE(out.str().find("same"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("alpha = 0.01"), std::string::npos) << out.str();
}

TEST(CompareTest, OneFailureInTwentyIsWithinChance) {
  const Comparison c =
      CompareJson(Report({Result("guarded-cas-claim", 20, 0, {{"1", 20}})}),
                  Report({Result("guarded-cas-claim", 20, 1, {{"1", 19}, {"2", 1}})}));
  EXPECT_FALSE(c.regression());
  const auto& notes = c.results[0].notes;
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find(
               "verdict pass → fail, within chance at alpha = 0.01 (failing trials 0/20 → 1/20)") !=
           std::string::npos;
  }));
  // Never silent: the comparison warns that a result passed in BASE and fails in NEW.
  EXPECT_TRUE(std::any_of(c.warnings.begin(), c.warnings.end(), [](const std::string& w) {
    return w.find("1 result passed in BASE and fails in NEW within chance at alpha = 0.01") !=
           std::string::npos;
  }));
}

TEST(CompareTest, ZeroToTwentyFailuresIsARegressionNamingIt) {
  const Comparison c = CompareJson(Report({Result("guarded-cas-claim", 20, 0, {{"1", 20}}),
                                           Result("other", 20, 0, {{"1", 20}})}),
                                   Report({Result("guarded-cas-claim", 20, 20, {{"2", 20}}),
                                           Result("other", 20, 0, {{"1", 20}})}));
  ASSERT_TRUE(c.regression());
  EXPECT_EQ(c.regressions(), 1);
  EXPECT_TRUE(c.results[0].regression);
  EXPECT_FALSE(c.results[1].regression);
  std::ostringstream console, md, junit;
  WriteConsole(c, console);
  WriteMarkdown(c, md);
  WriteJunit(c, junit);
  EXPECT_NE(
      console.str().find("REGRESSION    guarded-cas-claim [read committed] postgresql {workers=2}"),
      std::string::npos)
      << console.str();
  EXPECT_NE(console.str().find("0/20 → 20/20"), std::string::npos) << console.str();
  EXPECT_NE(md.str().find("Regression: guarded-cas-claim"), std::string::npos) << md.str();
  EXPECT_NE(junit.str().find("<failure message=\"expectation failed: winners = 1: 0/20 → 20/20"),
            std::string::npos)
      << junit.str();
  EXPECT_NE(junit.str().find("failures=\"1\""), std::string::npos);
}

TEST(CompareTest, ImprovementIsNotARegression) {
  const Comparison c = CompareJson(Report({Result("s", 20, 20, {{"2", 20}})}),
                                   Report({Result("s", 20, 0, {{"2", 20}})}));
  EXPECT_FALSE(c.regression());
}

TEST(CompareTest, OutcomeShiftWithExpectationsHeldIsARegression) {
  // SQLSTATE 40001 went from once per trial to never: the behaviour changed though winners = 1
  // held.
  const Comparison c = CompareJson(Report({Result("s", 20, 0, {{"1", 20}}, {{"40001", 20}})}),
                                   Report({Result("s", 20, 0, {{"1", 20}})}));
  ASSERT_TRUE(c.regression());
  EXPECT_NE(c.results[0].reasons[0].find("SQLSTATE 40001"), std::string::npos)
      << c.results[0].reasons[0];
}

TEST(CompareTest, OtherVersionAndServerWarnButCompare) {
  const Comparison c = CompareJson(Report({Result("s", 20, 0, {{"1", 20}})}, "0.1.0", "15.8"),
                                   Report({Result("s", 20, 0, {{"1", 20}})}, "0.2.0", "16.1"));
  EXPECT_FALSE(c.regression());
  ASSERT_EQ(c.warnings.size(), 3u);
  EXPECT_NE(c.warnings[0].find("racelab version differs"), std::string::npos);
  EXPECT_NE(c.warnings[1].find("server version differs"), std::string::npos);
  // These crafted reports hold no trial_details.
  EXPECT_NE(c.warnings[2].find("row counts and final values not compared for 1 result"),
            std::string::npos);
  EXPECT_EQ(c.results.size(), 1u);
}

TEST(CompareTest, ResultsInOneReportOnlyAreNotedNotRegressions) {
  const Comparison c =
      CompareJson(Report({Result("a", 20, 0, {{"1", 20}}), Result("b", 20, 0, {{"1", 20}})}),
                  Report({Result("a", 20, 0, {{"1", 20}}), Result("c", 20, 0, {{"1", 20}})}));
  EXPECT_FALSE(c.regression());
  ASSERT_EQ(c.results.size(), 3u);
  EXPECT_FALSE(c.results[1].new_verdict.has_value());
  EXPECT_FALSE(c.results[2].base_verdict.has_value());
  EXPECT_NE(TallyLine(c).find("1 only in BASE, 1 only in NEW"), std::string::npos) << TallyLine(c);
}

TEST(CompareTest, MissingBaseResultsWarnAndFailOnMissingMakesThemRegressions) {
  const Json base = Report({Result("a", 20, 0, {{"1", 20}}), Result("b", 20, 0, {{"1", 20}})});
  const Json now = Report({Result("a", 20, 0, {{"1", 20}}), Result("c", 20, 0, {{"1", 20}})});
  const Comparison lenient = CompareJson(base, now);
  EXPECT_FALSE(lenient.regression());
  ASSERT_FALSE(lenient.warnings.empty());
  EXPECT_NE(lenient.warnings[0].find("1 of BASE's 2 results is not in NEW"), std::string::npos)
      << lenient.warnings[0];

  CompareOptions strict;
  strict.fail_on_missing = true;
  const Comparison c = CompareJson(base, now, strict);
  EXPECT_EQ(c.regressions(), 1);
  ASSERT_EQ(c.results.size(), 3u);
  EXPECT_TRUE(c.results[1].regression);  // b: in BASE only
  EXPECT_NE(c.results[1].reasons[0].find("not in NEW"), std::string::npos);
  EXPECT_FALSE(c.results[2].regression);  // c: in NEW only and passing is not a regression
}

TEST(CompareTest, NewErrorVerdictIsARegression) {
  Json now = Report({Result("s", 20, 0, {{"1", 20}})});
  now["results"][0]["verdict"] = "error";
  now["results"][0]["error"] = "trial 3: deadline passed";
  const Comparison c = CompareJson(Report({Result("s", 20, 0, {{"1", 20}})}), now);
  EXPECT_TRUE(c.regression());
}

// NEW cut short by SIGINT/SIGTERM: its trials are compared, it is not a regression of the scenario,
// but the comparison says it is not a pass — and with --fail-on-missing (NEW must cover BASE) it is
// one.
TEST(CompareTest, AnInterruptedNewResultIsComparedOnItsTrialsAndIsNotAPass) {
  const Json base = Report({Result("s", 20, 0, {{"1", 20}})});
  Json now = Report({Result("s", 3, 0, {{"1", 3}})});
  now["results"][0]["verdict"] = "interrupted";
  now["results"][0]["interrupted"] =
      "interrupted during trial 4 of 20; that trial is not evaluated";
  const Comparison c = CompareJson(base, now);
  EXPECT_FALSE(c.regression());
  ASSERT_EQ(c.results.size(), 1u);
  EXPECT_TRUE(c.results[0].new_interrupted);
  EXPECT_EQ(c.results[0].new_trials, 3);
  ASSERT_FALSE(c.results[0].notes.empty());
  EXPECT_EQ(c.results[0].notes[0],
            "NEW interrupted during trial 4 of 20; that trial is not evaluated (3 trials ran): "
            "compared on the "
            "trials that ran");
  ASSERT_FALSE(c.warnings.empty());
  EXPECT_EQ(
      c.warnings[0],
      "1 of NEW's results was interrupted (SIGINT/SIGTERM) before their last trial: compared on "
      "the trials they ran; not a pass (--fail-on-missing makes each a regression)");
  std::ostringstream out;
  WriteConsole(c, out);
  EXPECT_NE(out.str().find("interrupted   s [read committed]"), std::string::npos) << out.str();
  EXPECT_NE(TallyLine(c).find("0 regressions, 1 interrupted"), std::string::npos) << TallyLine(c);
  std::ostringstream junit;
  WriteJunit(c, junit);
  EXPECT_NE(junit.str().find("<skipped message=\"NEW interrupted during trial 4"),
            std::string::npos)
      << junit.str();

  CompareOptions strict;
  strict.fail_on_missing = true;
  const Comparison gate = CompareJson(base, now, strict);
  EXPECT_EQ(gate.regressions(), 1);
  ASSERT_FALSE(gate.results[0].reasons.empty());
  EXPECT_NE(gate.results[0].reasons[0].find("NEW did not run all of it (--fail-on-missing)"),
            std::string::npos);
  // A fail in the trials that ran stays a fail however the run ended: judged on its counts as ever.
  now["results"][0]["verdict"] = "fail";
  now["results"][0]["expectations"][0]["failed"] = 3;
  now["results"][0]["expectations"][0]["passed"] = 0;
  const Comparison failed = CompareJson(base, now);
  EXPECT_TRUE(failed.results[0].new_interrupted);
  EXPECT_TRUE(failed.regression()) << "0/20 -> 3/3 failures: p = 1/C(23,3) = 5.6e-4";
}

TEST(CompareTest, BlockedTimeShiftBeyondBothSpreadsIsFlaggedAndGatesOnlyWhenAsked) {
  const Json b = Report({Result("s", 20, 0, {{"1", 20}}, Json::object(),
                                {{"p50", 100}, {"p95", 104}, {"max", 110}, {"count", 20}})});
  const Json small = Report({Result("s", 20, 0, {{"1", 20}}, Json::object(),
                                    {{"p50", 108}, {"p95", 112}, {"max", 115}, {"count", 20}})});
  const Json big = Report({Result("s", 20, 0, {{"1", 20}}, Json::object(),
                                  {{"p50", 300}, {"p95", 305}, {"max", 310}, {"count", 20}})});
  // 100 -> 108: within spread 4 + floor 10.8.
  EXPECT_FALSE(CompareJson(b, small).results[0].timing[0].flagged);
  const Comparison warn = CompareJson(b, big);
  EXPECT_TRUE(warn.results[0].timing[0].flagged);
  EXPECT_FALSE(warn.regression());
  CompareOptions fail;
  fail.timing = TimingPolicy::kFail;
  EXPECT_TRUE(CompareJson(b, big, fail).regression());
}

// An empty shard's report (`run --shard 4/4` with nothing in it: no server started) names no
// server: compared with a baseline it warns of nothing but what is missing from it.
TEST(CompareTest, AnEmptyReportHasNoServerToDiffer) {
  Json empty = Report({}, "0.1.0", "");
  empty["target"]["engine"] = "";
  const Comparison c = CompareJson(Report({Result("s", 20, 0, {{"1", 20}})}), empty);
  for (const std::string& w : c.warnings) {
    EXPECT_EQ(w.find("differs"), std::string::npos) << w;
  }
  const Comparison other = CompareJson(Report({Result("s", 20, 0, {{"1", 20}})}),
                                       Report({Result("s", 20, 0, {{"1", 20}})}, "0.1.0", "16.2"));
  EXPECT_TRUE(std::any_of(other.warnings.begin(), other.warnings.end(), [](const std::string& w) {
    return w.find("server version differs: BASE 15.8, NEW 16.2") != std::string::npos;
  }));
}

// An honest pair measured on a loaded machine (run-state-machine at serializable, 20 trials each,
// load ~20): 9 statements in a lock wait in one run, 38 in the other. The losers of an interleaving
// the scenario does not force wait or not depending on how long the winner holds its lock, so the
// count is timing: significant, but it gates only with --timing fail.
TEST(CompareTest, LockWaitCountShiftIsTimingAndGatesOnlyWhenAsked) {
  const Json b = Report({Result("s", 20, 0, {{"1", 20}}, Json::object(),
                                {{"p50", 3.4}, {"p95", 9.5}, {"max", 9.5}, {"count", 9}})});
  const Json n = Report({Result("s", 20, 0, {{"1", 20}}, Json::object(),
                                {{"p50", 5.6}, {"p95", 42.5}, {"max", 45.5}, {"count", 38}})});
  const Comparison warn = CompareJson(b, n);
  EXPECT_FALSE(warn.regression());
  const auto& tests = warn.results[0].tests;
  const auto waits = std::find_if(tests.begin(), tests.end(),
                                  [](const CountTest& t) { return t.kind == "lock waits"; });
  ASSERT_NE(waits, tests.end());
  EXPECT_TRUE(waits->significant);
  std::ostringstream out;
  WriteConsole(warn, out);
  EXPECT_NE(out.str().find("significant, does not gate (timing-dependent)"), std::string::npos)
      << out.str();
  CompareOptions fail;
  fail.timing = TimingPolicy::kFail;
  EXPECT_TRUE(CompareJson(b, n, fail).regression());
}

Json WithTrialDetails(Json result, int trials, int double_claims) {
  Json details = Json::array();
  for (int t = 0; t < trials; ++t) {
    const bool both = t < double_claims;
    details.push_back(
        {{"trial", t},
         {"verdict", "pass"},
         {"sessions",
          {{{"label", "worker.1"}, {"role", "worker"}},
           {{"label", "worker.2"}, {"role", "worker"}}}},
         {"events",
          {{{"session", "worker.1"},
            {"step", "claim"},
            {"attempt", 1},
            {"rows", 1},
            {"skipped", false}},
           {{"session", "worker.2"},
            {"step", "claim"},
            {"attempt", 1},
            {"rows", both ? 1 : 0},
            {"skipped", false}}}},
         {"finals", {{{"sql", "SELECT count(*) FROM claims"}, {"value", both ? "2" : "1"}}}}});
  }
  result["trial_details"] = details;
  return result;
}

TEST(CompareTest, RowCountsPerTrialAreCompared) {
  const Json b = Report({WithTrialDetails(Result("s", 20, 0, {{"1", 20}}), 20, 0)});
  const Json n = Report({WithTrialDetails(Result("s", 20, 0, {{"1", 20}}), 20, 20)});
  const Comparison c = CompareJson(b, n);
  ASSERT_TRUE(c.regression());
  bool rows = false;
  for (const auto& t : c.results[0].tests)
    rows = rows || (t.subject == "worker/claim rows 1,1" && t.regression);
  EXPECT_TRUE(rows);
  EXPECT_FALSE(CompareJson(b, b).regression());
}

// The catalogue's guarded-cas-claim with its expectation edited to `winners: 2`: the same behaviour
// (one winner in every trial), so no outcome count moved, but the result now fails 20/20 trials. An
// edited expectation has no baseline to be matched with, so it used to be a note and the verdict
// change "within chance" (issue 19); now the result's failing trials are judged as a whole and the
// edited expectation that fails is a regression, named as changed in every output.
TEST(CompareTest, EditedExpectationThatFailsIsARegressionNamedAsChanged) {
  Json now = Report({Result("guarded-cas-claim", 20, 0, {{"1", 20}})});
  now["results"][0]["verdict"] = "fail";
  now["results"][0]["expectations"][0] = {{"text", "winners = 2"}, {"passed", 0}, {"failed", 20}};
  const Comparison c = CompareJson(Report({Result("guarded-cas-claim", 20, 0, {{"1", 20}})}), now);
  ASSERT_TRUE(c.regression());
  const ResultComparison& r = c.results[0];
  ASSERT_EQ(r.expectation_changes.size(), 1u);
  EXPECT_EQ(r.expectation_changes[0].base_text, "winners = 1");
  EXPECT_EQ(r.expectation_changes[0].new_text, "winners = 2");
  EXPECT_TRUE(r.expectation_changes[0].new_failing);
  const auto whole = std::find_if(r.tests.begin(), r.tests.end(),
                                  [](const CountTest& t) { return t.kind == "failing trials"; });
  ASSERT_NE(whole, r.tests.end());
  EXPECT_EQ(whole->base_count, 0);
  EXPECT_EQ(whole->new_count, 20);
  EXPECT_TRUE(whole->regression);
  std::ostringstream console, md, junit;
  WriteConsole(c, console);
  WriteMarkdown(c, md);
  WriteJunit(c, junit);
  EXPECT_NE(
      console.str().find(
          "REGRESSION    guarded-cas-claim [read committed] postgresql {workers=2}: pass → fail"),
      std::string::npos)
      << console.str();
  EXPECT_NE(
      console.str().find(
          "expectation changed: 'winners = 1' → 'winners = 2' (NEW: failed in 20 of 20 trials) — "
          "REGRESSION"),
      std::string::npos)
      << console.str();
  EXPECT_NE(console.str().find("trials failing any expectation: 0/20 → 20/20 trials"),
            std::string::npos)
      << console.str();
  EXPECT_EQ(console.str().find("within chance at alpha"), std::string::npos) << console.str();
  EXPECT_NE(md.str().find("expectation changed: 'winners = 1' → 'winners = 2'"), std::string::npos)
      << md.str();
  EXPECT_NE(md.str().find("Regression: guarded-cas-claim"), std::string::npos) << md.str();
  EXPECT_NE(junit.str().find("failures=\"1\""), std::string::npos) << junit.str();
  EXPECT_NE(junit.str().find("expectation changed: &#39;winners = 1&#39; → &#39;winners = 2&#39;"),
            std::string::npos)
      << junit.str();
}

// A PR that edits the code and the expectation together: the race is back (two winners) and the
// expectation now asks for two, but another check still fails in every trial.
TEST(CompareTest, ExpectationEditedTogetherWithTheCodeIsStillJudged) {
  Json base = Report({Result("s", 20, 0, {{"1", 20}})});
  base["results"][0]["expectations"].push_back(
      {{"text", "claim returned 0 rows in 1 session"}, {"passed", 20}, {"failed", 0}});
  Json now = Report({Result("s", 20, 0, {{"2", 20}})});
  now["results"][0]["verdict"] = "fail";
  now["results"][0]["expectations"] = Json::array(
      {{{"text", "winners = 2"}, {"passed", 20}, {"failed", 0}},
       {{"text", "claim returned 0 rows in 1 session"}, {"passed", 0}, {"failed", 20}}});
  const Comparison c = CompareJson(base, now);
  ASSERT_TRUE(c.regression());
  ASSERT_EQ(c.results[0].expectation_changes.size(), 1u);
  EXPECT_FALSE(c.results[0]
                   .expectation_changes[0]
                   .new_failing);  // winners = 2 holds: changed, not the regression
  std::ostringstream console;
  WriteConsole(c, console);
  EXPECT_NE(console.str().find(
                "expectation changed: 'winners = 1' → 'winners = 2' (NEW: held in every trial)"),
            std::string::npos)
      << console.str();
  EXPECT_NE(console.str().find(
                "expectation failed: claim returned 0 rows in 1 session: 0/20 → 20/20 trials"),
            std::string::npos)
      << console.str();
}

// Four expectations each failing in 4 different trials of 20: no one of them is significant
// (0/20 → 4/20: p = 0.11), but the result failed in 16 of 20 trials (p = 2.4e-8). With every trial
// kept that is counted exactly; without trial details the count is a lower bound (the most failures
// of one expectation, 4), which does not overstate the change.
TEST(CompareTest, FailingTrialsAreJudgedAsAWhole) {
  auto result = [](bool failing, bool details) {
    Json r = Result("s", 20, 0, {{"1", 20}});
    r["expectations"] = Json::array();
    for (int e = 0; e < 4; ++e) {
      const int failed = failing ? 4 : 0;
      r["expectations"].push_back(
          {{"text", "check " + std::to_string(e)}, {"passed", 20 - failed}, {"failed", failed}});
    }
    if (failing) r["verdict"] = "fail";
    if (details) {
      r["trial_details"] = Json::array();
      for (int t = 0; t < 20; ++t) {
        r["trial_details"].push_back(
            {{"trial", t + 1}, {"verdict", failing && t < 16 ? "fail" : "pass"}});
      }
    }
    return r;
  };
  const Comparison kept = CompareJson(Report({result(false, true)}), Report({result(true, true)}));
  ASSERT_TRUE(kept.regression());
  ASSERT_EQ(kept.results[0].reasons.size(), 1u);
  EXPECT_NE(kept.results[0].reasons[0].find("trials failing any expectation: 0/20 → 16/20"),
            std::string::npos)
      << kept.results[0].reasons[0];
  const Comparison aggregates =
      CompareJson(Report({result(false, false)}), Report({result(true, false)}));
  EXPECT_FALSE(aggregates.regression());
  const auto& tests = aggregates.results[0].tests;
  const auto whole = std::find_if(tests.begin(), tests.end(),
                                  [](const CountTest& t) { return t.kind == "failing trials"; });
  ASSERT_NE(whole, tests.end());
  EXPECT_EQ(whole->new_count, 4);
}

TEST(CompareTest, AddedAndRemovedExpectationsAreNamedAndAnAddedFailingOneIsARegression) {
  const Json base = Report({Result("s", 20, 0, {{"1", 20}})});
  Json held = Report({Result("s", 20, 0, {{"1", 20}})});
  held["results"][0]["expectations"].push_back(
      {{"text", "SQLSTATE 40001 count = 0"}, {"passed", 20}, {"failed", 0}});
  const Comparison added = CompareJson(base, held);
  EXPECT_FALSE(added.regression());
  EXPECT_NE(TallyLine(added).find("1 changed"), std::string::npos) << TallyLine(added);
  std::ostringstream console;
  WriteConsole(added, console);
  EXPECT_NE(console.str().find(
                "expectation added in NEW: 'SQLSTATE 40001 count = 0' (NEW: held in every trial)"),
            std::string::npos)
      << console.str();
  // Removed: named, not a regression.
  const Comparison removed = CompareJson(held, base);
  EXPECT_FALSE(removed.regression());
  ASSERT_EQ(removed.results[0].expectation_changes.size(), 1u);
  EXPECT_EQ(removed.results[0].expectation_changes[0].new_text, "");
  // Added and failing, even in one trial of 20: a regression of NEW.
  Json once = held;
  once["results"][0]["verdict"] = "fail";
  once["results"][0]["expectations"][1]["passed"] = 19;
  once["results"][0]["expectations"][1]["failed"] = 1;
  const Comparison failing = CompareJson(base, once);
  ASSERT_TRUE(failing.regression());
  EXPECT_NE(failing.results[0].reasons.back().find(
                "expectation 'SQLSTATE 40001 count = 0' (added) fails in NEW: 1 of 20"),
            std::string::npos)
      << failing.results[0].reasons.back();
  // A min_fraction alternative that held in enough trials is not failing, though some trials missed
  // it.
  Json fraction = held;
  fraction["results"][0]["expectations"][1] = {{"text", "one_of 'a' held in >= 90% of trials"},
                                               {"passed", 19},
                                               {"failed", 1},
                                               {"min_fraction", 0.9}};
  EXPECT_FALSE(CompareJson(base, fraction).regression());
}

TEST(CompareTest, ResultOnlyInNewThatFailsIsARegression) {
  const Json base = Report({Result("a", 20, 0, {{"1", 20}})});
  const Comparison c =
      CompareJson(base, Report({Result("a", 20, 0, {{"1", 20}}), Result("c", 20, 2, {{"1", 20}})}));
  ASSERT_EQ(c.regressions(), 1);
  EXPECT_TRUE(c.results[1].regression);
  EXPECT_NE(
      c.results[1].reasons[0].find("not in BASE, and it fails in NEW (2 of 20 trials failing)"),
      std::string::npos)
      << c.results[1].reasons[0];
  std::ostringstream console;
  WriteConsole(c, console);
  EXPECT_NE(console.str().find("REGRESSION    c [read committed]"), std::string::npos)
      << console.str();
  EXPECT_NE(console.str().find("    not in BASE, and it fails in NEW"), std::string::npos)
      << console.str();
}

// merge joins and says the merged verdict (it does not gate: its exit code is 0 for any verdict).
TEST(MergeVerdictTest, TheWorstVerdictByARunsPrecedenceOrIncomplete) {
  RunReport merged;
  for (Verdict v : {Verdict::kPass, Verdict::kFail, Verdict::kPass}) {
    ResultSummary r;
    r.verdict = v;
    merged.results.push_back(std::move(r));
  }
  EXPECT_EQ(MergedVerdictLine(merged, 2),
            "racelab merge: 3 results joined from 2 reports (2 pass, 1 fail); merged verdict: fail "
            "(merge does not "
            "gate: racelab compare or run --baseline does)");
  merged.results[2].verdict = Verdict::kError;
  EXPECT_NE(MergedVerdictLine(merged, 2).find("(1 pass, 1 fail, 1 error); merged verdict: error"),
            std::string::npos);
  merged.results[0].interrupted = "interrupted during trial 4 of 20; that trial is not evaluated";
  EXPECT_NE(MergedVerdictLine(merged, 2).find("merged verdict: incomplete"), std::string::npos);
  merged.results[0].interrupted.clear();
  merged.not_run.push_back(NotRunResult{});
  EXPECT_NE(MergedVerdictLine(merged, 2).find("1 not run); merged verdict: incomplete"),
            std::string::npos);
}

TEST(AnomalyMatrixCellTest, DerivedFromWinnersAndSqlstates) {
  ResultView r;
  r.trials = 20;
  r.verdict = "pass";
  r.winners = {{"0", 20}};
  EXPECT_EQ(CellOf(r).text, "prevented");
  r.sqlstates = {{"40001", 20}};
  EXPECT_EQ(CellOf(r).text, "prevented by error (40001)");
  EXPECT_TRUE(CellOf(r).by_error);
  r.sqlstates = {{"40001", 3}};
  EXPECT_EQ(CellOf(r).text, "prevented (40001 ×3)");
  r.winners = {{"0", 17}, {"1", 3}};
  EXPECT_EQ(CellOf(r).text, "occurs 3/20");
  r.winners = {{"1", 20}};
  r.verdict = "fail";
  EXPECT_EQ(CellOf(r).text, "occurs");
  EXPECT_TRUE(CellOf(r).expectation_failed);
  r.verdict = "error";
  EXPECT_EQ(CellOf(r).text, "error");
  // Cut short by SIGINT/SIGTERM: what its trials showed, and that they were fewer.
  r.verdict = "interrupted";
  r.trials = 3;
  r.winners = {{"1", 3}};
  r.interrupted = "interrupted during trial 4 of 20; that trial is not evaluated";
  EXPECT_EQ(CellOf(r).text, "occurs (interrupted after 3 trials)");
  r.interrupted.clear();
  r.trials = 20;
  // A report with results[].errors names the engine's code where the SQLSTATE is generic.
  r.verdict = "pass";
  r.winners = {{"0", 20}};
  r.sqlstates = {{"HY000", 20}};
  EXPECT_EQ(CellOf(r).text, "prevented by error (HY000)");
  r.errors = std::map<std::string, int64_t>{{"SQLITE_BUSY", 20}};
  EXPECT_EQ(CellOf(r).text, "prevented by error (SQLITE_BUSY)");
}

// Rows follow the literature's order (G0 … G2), whatever order the report holds them in; columns
// go per engine, levels weakest first; --engine keeps one engine's results.
TEST(AnomalyMatrixTest, RowsInAdyaOrderColumnsWeakestFirstAndEngineFilter) {
  ReportView report;
  auto add = [&](const std::string& scenario, const std::string& engine, const std::string& level) {
    ResultView r;
    r.scenario = scenario;
    r.engine = engine;
    r.isolation = level;
    r.trials = 2;
    r.verdict = "pass";
    r.winners = {{engine == "mariadb" ? "1" : "0", 2}};
    report.results.push_back(r);
  };
  // Catalogue (alphabetical) order, the order racelab run plans them in; levels strongest first
  // here.
  for (const char* name :
       {"anomaly-g-single", "anomaly-g0", "anomaly-g2", "anomaly-g2-item", "anomaly-p4",
        "anomaly-pmp", "my-own-scenario", "anomaly-g1c", "anomaly-otv", "anomaly-g1a"}) {
    add(name, "postgresql", "serializable");
    add(name, "postgresql", "read committed");
    add(name, "mariadb", "serializable");
    add(name, "mariadb", "read uncommitted");
  }
  const AnomalyMatrix both = BuildMatrix(report);
  std::vector<std::string> rows;
  for (const auto& row : both.rows) rows.push_back(row.scenario);
  EXPECT_EQ(rows, (std::vector<std::string>{"anomaly-g0", "anomaly-g1a", "anomaly-g1c",
                                            "anomaly-otv", "anomaly-pmp", "anomaly-p4",
                                            "anomaly-g-single", "anomaly-g2-item", "anomaly-g2"}));
  EXPECT_EQ(both.left_out, std::vector<std::string>{"my-own-scenario"});
  EXPECT_EQ(both.columns,
            (std::vector<std::string>{"postgresql read committed", "postgresql serializable",
                                      "mariadb read uncommitted", "mariadb serializable"}));
  const AnomalyMatrix maria = BuildMatrix(report, "mariadb");
  EXPECT_EQ(maria.engines, std::vector<std::string>{"mariadb"});
  EXPECT_EQ(maria.columns, (std::vector<std::string>{"read uncommitted", "serializable"}));
  ASSERT_EQ(maria.rows.size(), 9u);
  EXPECT_EQ(maria.rows[0].scenario, "anomaly-g0");
  EXPECT_TRUE(maria.rows[0].cells[0].occurs);  // the mariadb results, not the postgresql ones
  EXPECT_TRUE(BuildMatrix(report, "sqlite").rows.empty());

  ReportView others;
  for (const char* name : {"my-own-scenario", "anomaly-not-in-the-literature"}) {
    ResultView r;
    r.scenario = name;
    r.engine = "postgresql";
    r.isolation = "read committed";
    others.results.push_back(r);
  }
  const AnomalyMatrix own =
      BuildMatrix(others);  // a user's own anomaly-* keeps its row, after the literature's
  ASSERT_EQ(own.rows.size(), 1u);
  EXPECT_EQ(own.rows[0].scenario, "anomaly-not-in-the-literature");
  EXPECT_EQ(own.left_out, std::vector<std::string>{"my-own-scenario"});
}

TEST(ReportViewTest, FieldOfTheWrongTypeIsNamed) {
  Json r = Report({Result("s", 20, 0, {{"1", 20}})});
  r["results"][0]["winners"] = "many";
  auto v = ReportViewFromJson(r, "base.json");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(), "base.json: results[0].winners: expected an object of integers");
  auto other = ReportViewFromJson(Json{{"hello", 1}}, "x.json");
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("x.json: not a racelab report"), std::string::npos);
}

TEST(ReportViewTest, InvalidJsonNamesFileLineAndColumn) {
  const ::racelab::testing::TempDir temp;
  const std::string path = temp.File("broken-report.json");
  {
    std::ofstream f(path);
    f << "{\n  \"schema_version\": 1,\n  \"results\": [,]\n}\n";
  }
  auto v = ReadReportView(path);
  std::remove(path.c_str());
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kUsage);
  EXPECT_EQ(v.status().message().rfind(path + ":3:15: not valid JSON", 0), 0u)
      << v.status().message();
  auto missing = ReadReportView(path);
  EXPECT_EQ(missing.status().message(), path + ": cannot read the file: No such file or directory");
}

}  // namespace
}  // namespace racelab::compare
