// racelab compare / run --baseline / run --shard / merge as a CI job runs them, on real runs of
// guarded-cas-claim against the test server: two honest runs compare clean (exit 0); a copy of the
// scenario with its guard removed from the SQL (expectations unchanged: the race is back) is a
// regression named by scenario and level (exit 1); so is a copy whose expectation alone was edited
// (`winners: 2`, failing every trial); bad input exits 2 naming the file; shard reports merge into
// the plan's results, and merge exits 0 for a failing result (compare gates).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "tests/integration/pg_test_env.h"
#include "tests/integration/subprocess.h"
#include "tests/integration/test_files.h"
#include "tests/schema/schema_check.h"

namespace racelab::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

const std::string kBin = RACELAB_BINARY;
const std::string kSrc = RACELAB_SOURCE_DIR;

ProcessResult Racelab(std::vector<std::string> args) {
  args.insert(args.begin(), kBin);
  return RunProcess(args, seconds(120));
}

// `racelab run SCENARIO --trials N --format json --out DIR` against the test server, plus `extra`.
ProcessResult RunTo(const std::string& scenario, const fs::path& out, int trials,
                    std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {
      "run",   scenario,     "--trials", std::to_string(trials), "--format",          "json",
      "--out", out.string(), "--dsn",    TestConninfo(),         "--allow-superuser", "-q"};
  args.insert(args.end(), extra.begin(), extra.end());
  return Racelab(args);
}

class CompareCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const std::string original = kSrc + "/scenarios/guarded-cas-claim.yaml";
    std::string yaml = Slurp(original);
    const std::string guard = "WHERE id = 1 AND status = 'queued' RETURNING id";
    // Every occurrence: the lesson quotes the claim too. The race is back: both workers update.
    int replaced = 0;
    for (size_t at = yaml.find(guard); at != std::string::npos;
         at = yaml.find(guard, at), ++replaced) {
      yaml.replace(at, guard.size(), "WHERE id = 1 RETURNING id");
    }
    ASSERT_GE(replaced, 1) << "the scenario's claim changed; update this test";
    std::ofstream(dir_->path / "guarded-cas-claim.yaml") << yaml;
    for (const char* side : {"a", "b"}) {
      auto r = RunTo(original, dir_->path / side, 10, {"--isolation", "rc"});
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    auto broken = RunTo((dir_->path / "guarded-cas-claim.yaml").string(), dir_->path / "broken", 10,
                        {"--isolation", "rc"});
    ASSERT_EQ(broken.exit_code, 1) << broken.err;  // the run itself sees winners = 2
    // The catalogue scenario with only its expectation edited (issue 19): `winners: 2`, the SQL as
    // it is — one winner in every trial, so it fails every trial.
    const std::string expectation = "expect:\n  winners: 1\n";
    ASSERT_NE(Slurp(original).find(expectation), std::string::npos)
        << "the scenario's expectation changed; update this test";
    std::string winners2 = Slurp(original);
    winners2.replace(winners2.find(expectation), expectation.size(), "expect:\n  winners: 2\n");
    fs::create_directories(dir_->path / "winners2");
    std::ofstream(dir_->path / "winners2" / "guarded-cas-claim.yaml") << winners2;
    // A PR that edits the code and the expectation together: the guard removed and `winners: 2`.
    std::string edited = yaml;
    edited.replace(edited.find(expectation), expectation.size(), "expect:\n  winners: 2\n");
    fs::create_directories(dir_->path / "edited");
    std::ofstream(dir_->path / "edited" / "guarded-cas-claim.yaml") << edited;
    for (const char* copy : {"winners2", "edited"}) {
      auto r = RunTo((dir_->path / copy / "guarded-cas-claim.yaml").string(),
                     dir_->path / (std::string(copy) + "-run"), 10, {"--isolation", "rc"});
      ASSERT_EQ(r.exit_code, 1) << copy << ": " << r.err;
    }
  }
  static void TearDownTestSuite() { delete dir_; }
  static fs::path Report(const char* side) { return dir_->path / side / "racelab.json"; }
  static TempDir* dir_;
};
TempDir* CompareCliTest::dir_ = nullptr;

TEST_F(CompareCliTest, TwoHonestRunsCompareClean) {
  auto r = Racelab({"compare", Report("a"), Report("b")});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("0 regressions"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("alpha = 0.01"), std::string::npos) << r.out;
}

TEST_F(CompareCliTest, ReintroducedRaceIsARegressionNamingIt) {
  const fs::path out = dir_->path / "cmp";
  auto r = Racelab({"compare", Report("a"), Report("broken"), "--format", "console,md,junit",
                    "--out", out.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(
      r.out.find(
          "REGRESSION    guarded-cas-claim [read committed] postgresql {workers=2}: pass → fail"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("expectation failed: winners = 1: 0/10 → 10/10"), std::string::npos)
      << r.out;
  EXPECT_NE(Slurp(out / "racelab-compare.md").find("Regression: guarded-cas-claim"),
            std::string::npos);
  const std::string junit = Slurp(out / "racelab-compare.junit.xml");
  EXPECT_NE(junit.find("failures=\"1\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("<failure message=\"expectation failed: winners = 1"), std::string::npos)
      << junit;
  const auto violations = ValidateXmlText(SchemaPath("racelab-junit.xsd"), junit);
  EXPECT_TRUE(violations.empty()) << violations.front();
}

// Issue 19: the winners: 2 copy fails every trial; its expectation's text changed, so it has no
// match in BASE. compare judges the result's failing trials as a whole (0/10 → 10/10) and the
// edited expectation that fails: a regression, named as changed in every output.
TEST_F(CompareCliTest, EditedExpectationThatFailsIsARegressionNamedAsChanged) {
  const fs::path out = dir_->path / "cmp-winners2";
  auto r = Racelab({"compare", Report("a"), Report("winners2-run"), "--format", "console,md,junit",
                    "--out", out.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(
      r.out.find(
          "REGRESSION    guarded-cas-claim [read committed] postgresql {workers=2}: pass → fail"),
      std::string::npos)
      << r.out;
  EXPECT_NE(
      r.out.find(
          "expectation changed: 'winners = 1' → 'winners = 2' (NEW: failed in 10 of 10 trials)"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("trials failing any expectation: 0/10 → 10/10 trials"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("within chance at alpha"), std::string::npos) << r.out;
  EXPECT_NE(
      Slurp(out / "racelab-compare.md").find("expectation changed: 'winners = 1' → 'winners = 2'"),
      std::string::npos);
  const std::string junit = Slurp(out / "racelab-compare.junit.xml");
  EXPECT_NE(junit.find("failures=\"1\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("expectation changed: &#39;winners = 1&#39; → &#39;winners = 2&#39;"),
            std::string::npos)
      << junit;
  const auto violations = ValidateXmlText(SchemaPath("racelab-junit.xsd"), junit);
  EXPECT_TRUE(violations.empty()) << violations.front();

  // The same copy gated by run --baseline: exit 1, naming it, with the run's own JUnit beside.
  const fs::path gated = dir_->path / "winners2-gated";
  auto g = Racelab({"run", (dir_->path / "winners2" / "guarded-cas-claim.yaml").string(),
                    "--trials", "10", "--isolation", "rc", "--baseline", Report("a").string(),
                    "--format", "console,junit", "--out", gated.string(), "--dsn", TestConninfo(),
                    "--allow-superuser", "-q"});
  EXPECT_EQ(g.exit_code, 1) << g.out << g.err;
  EXPECT_NE(g.out.find("REGRESSION    guarded-cas-claim [read committed]"), std::string::npos)
      << g.out;
  EXPECT_NE(g.out.find("expectation changed: 'winners = 1' → 'winners = 2'"), std::string::npos)
      << g.out;
  EXPECT_NE(Slurp(gated / "racelab-compare.junit.xml").find("failures=\"1\""), std::string::npos);
}

// A PR that edits the scenario's code and its expectation together (guard removed, `winners: 2`):
// the other checks still fail in every trial, and the edit is named.
TEST_F(CompareCliTest, ExpectationEditedTogetherWithTheCodeIsARegression) {
  auto r = Racelab({"compare", Report("a"), Report("edited-run")});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("REGRESSION    guarded-cas-claim [read committed]"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("expectation changed: 'winners = 1' → 'winners = 2'"), std::string::npos)
      << r.out;
}

// merge joins and says the merged verdict; it exits 0 for a failing result (compare gates), 3 when
// a shard's run ended early (run_error: results not run).
TEST_F(CompareCliTest, MergeExitsZeroForAFailingResultAndThreeForAShardThatEndedEarly) {
  const fs::path out = dir_->path / "merged-broken";
  auto r = Racelab(
      {"merge", Report("broken").string(), "--out", out.string(), "--format", "json,junit"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(
      r.out.find("racelab merge: 1 result joined from 1 report (1 fail); merged verdict: fail"),
      std::string::npos)
      << r.out;
  // The documented pipeline goes on to the gate, which names the regression.
  auto gate = Racelab({"compare", Report("a").string(), (out / "racelab.json").string()});
  EXPECT_EQ(gate.exit_code, 1) << gate.out;

  nlohmann::json ended = nlohmann::json::parse(Slurp(Report("a")));
  ended["run_error"] = "could not connect to the server";
  const fs::path early = dir_->path / "ended-early.json";
  std::ofstream(early) << ended.dump(2);
  r = Racelab({"merge", early.string(), "--out", (dir_->path / "merged-early").string(), "--format",
               "json"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("merged verdict: incomplete"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("could not connect to the server"), std::string::npos) << r.err;
}

// Every subcommand's exit codes are in --help (harness/cli/exit_codes.h; README.md holds the same
// table).
TEST(RacelabHelpTest, HelpShowsTheExitCodeTableAndEachSubcommandItsRow) {
  auto r = Racelab({"--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Exit codes (every subcommand"), std::string::npos) << r.out;
  for (const char* row :
       {"  list ", "  explain ", "  run ", "  run --baseline FILE ", "  run X.spec ", "  convert ",
        "  compare ", "  merge ", "  matrix ", "  clean "}) {
    EXPECT_NE(r.out.find(row), std::string::npos) << row << "\n" << r.out;
  }
  auto merge = Racelab({"merge", "--help"});
  EXPECT_EQ(merge.exit_code, 0);
  EXPECT_NE(merge.out.find("merge: 0 joined, whatever the results' verdicts"), std::string::npos)
      << merge.out;
}

// Shard reports join in plan order: result i of shard K of N was plan result K-1 + i·N. Two copies
// of one real report stand for the shards of a two-result plan (their commands name the shards; the
// second is the same result at another level), inputs given in the "wrong" order.
TEST_F(CompareCliTest, MergeJoinsShardsInPlanOrderAndRefusesOverlaps) {
  nlohmann::json first = nlohmann::json::parse(Slurp(Report("a")));
  nlohmann::json second = first;
  first["command"] = "racelab run guarded-cas-claim --shard 1/2";
  second["command"] = "racelab run guarded-cas-claim --shard 2/2";
  second["results"][0]["isolation"] = "serializable";
  const fs::path one = dir_->path / "shard-1.json", two = dir_->path / "shard-2.json",
                 out = dir_->path / "merged";
  std::ofstream(one) << first.dump(2);
  std::ofstream(two) << second.dump(2);
  auto r = Racelab({"merge", two.string(), one.string(), "--out", out.string(), "--format",
                    "json,md,junit,html"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = Slurp(out / "racelab.json");
  const auto merged = nlohmann::json::parse(text);
  ASSERT_EQ(merged["results"].size(), 2u);
  EXPECT_EQ(merged["results"][0]["isolation"], "read committed");
  EXPECT_EQ(merged["results"][1]["isolation"], "serializable");
  EXPECT_EQ(merged["results"][0]["winners"], first["results"][0]["winners"]);
  const auto violations = ValidateJsonText(SchemaPath("racelab-report.schema.json"), text);
  EXPECT_TRUE(violations.empty()) << violations.front();
  for (const char* f : {"racelab.md", "racelab.junit.xml", "racelab.html"})
    EXPECT_TRUE(fs::exists(out / f)) << f;

  r = Racelab({"merge", Report("a").string(), Report("broken").string(), "--out", out.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("shards overlap"), std::string::npos) << r.err;
}

// run --shard K/N runs each planned result in exactly one shard; merge puts them back in plan
// order; run --baseline judges a run against a report: exit 0 for an honest run, 1 for the broken
// copy.
TEST_F(CompareCliTest, ShardsMergeAndBaseline) {
  const std::string scenario = kSrc + "/scenarios/guarded-cas-claim.yaml";
  for (const char* k : {"1", "2"}) {
    auto r = RunTo(scenario, dir_->path / (std::string("shard") + k), 2,
                   {"--shard", std::string(k) + "/2"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const auto s1 = nlohmann::json::parse(Slurp(dir_->path / "shard1" / "racelab.json"));
  const auto s2 = nlohmann::json::parse(Slurp(dir_->path / "shard2" / "racelab.json"));
  EXPECT_EQ(s1["results"].size(), 2u);  // plan results 1 and 3 of 3
  EXPECT_EQ(s2["results"].size(), 1u);  // plan result 2
  const fs::path merged = dir_->path / "joined";
  auto m = Racelab({"merge", (dir_->path / "shard2" / "racelab.json").string(),
                    (dir_->path / "shard1" / "racelab.json").string(), "--out", merged.string(),
                    "--format", "json"});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  const auto j = nlohmann::json::parse(Slurp(merged / "racelab.json"));
  ASSERT_EQ(j["results"].size(), 3u);
  EXPECT_EQ(j["results"][0]["isolation"], "read committed");
  EXPECT_EQ(j["results"][1]["isolation"], "repeatable read");
  EXPECT_EQ(j["results"][2]["isolation"], "serializable");
  // A shard gated on the merged baseline is judged on its own results: the other shard's are not
  // "missing" from it.
  auto gated =
      Racelab({"run", scenario, "--trials", "2", "--format", "console", "--out",
               (dir_->path / "gated").string(), "--dsn", TestConninfo(), "--allow-superuser", "-q",
               "--shard", "2/2", "--baseline", (merged / "racelab.json").string()});
  EXPECT_EQ(gated.exit_code, 0) << gated.out << gated.err;
  EXPECT_EQ(gated.out.find("not in NEW"), std::string::npos) << gated.out;
  EXPECT_NE(gated.out.find("1 result: 0 regressions"), std::string::npos) << gated.out;

  auto honest = RunTo(scenario, dir_->path / "again", 10,
                      {"--isolation", "rc", "--baseline", Report("a").string()});
  EXPECT_EQ(honest.exit_code, 0) << honest.out << honest.err;
  auto broken = Racelab({"run", (dir_->path / "guarded-cas-claim.yaml").string(), "--trials", "10",
                         "--isolation", "rc", "--baseline", Report("a").string(), "--format",
                         "console", "--dsn", TestConninfo(), "--allow-superuser", "-q"});
  EXPECT_EQ(broken.exit_code, 1) << broken.out << broken.err;
  EXPECT_NE(broken.out.find("REGRESSION    guarded-cas-claim [read committed]"), std::string::npos)
      << broken.out;
  auto bad = RunTo(scenario, dir_->path / "bad", 1, {"--shard", "0/2"});
  EXPECT_EQ(bad.exit_code, 2);
}

// A shard with nothing in it (one result, split in two) starts no server: the embedded cluster is
// asked for with binaries that do not exist, so starting it would exit 3. It writes valid empty
// reports, exits 0, passes a --baseline, and merges with the shard that ran without a warning.
TEST_F(CompareCliTest, EmptyShardWritesEmptyReportsAndStartsNoServer) {
  const std::string scenario = kSrc + "/scenarios/guarded-cas-claim.yaml";
  const fs::path empty = dir_->path / "empty-shard";
  const fs::path missing_bindir = dir_->path / "no-such-bindir";
  auto r = Racelab({"run", scenario, "--isolation", "rc", "--trials", "2", "--shard", "2/2",
                    "--format", "console,json,junit", "--out", empty.string(), "--pg-bindir",
                    missing_bindir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("shard 2/2: 0 of 1 results"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("starting embedded"), std::string::npos) << r.err;
  const std::string json = Slurp(empty / "racelab.json");
  const auto json_violations = ValidateJsonText(SchemaPath("racelab-report.schema.json"), json);
  EXPECT_TRUE(json_violations.empty()) << json_violations.front();
  const auto xml_violations =
      ValidateXmlText(SchemaPath("racelab-junit.xsd"), Slurp(empty / "racelab.junit.xml"));
  EXPECT_TRUE(xml_violations.empty()) << xml_violations.front();
  const auto j = nlohmann::json::parse(json);
  EXPECT_TRUE(j["results"].empty());
  EXPECT_EQ(j["target"]["engine"], "postgresql");

  // The same empty shard gated on a baseline: nothing ran, nothing regressed (what only the
  // baseline holds is noted, not judged).
  auto gated = Racelab({"run", scenario, "--isolation", "rc", "--shard", "2/2", "--format", "json",
                        "--out", (dir_->path / "empty-gated").string(), "--pg-bindir",
                        missing_bindir.string(), "--baseline", Report("a").string(), "-q"});
  EXPECT_EQ(gated.exit_code, 0) << gated.out << gated.err;

  // Joined with the shard that ran: its one result, and no "differs" warning for the empty shard's
  // missing server version.
  const fs::path full = dir_->path / "full-shard";
  auto ran = RunTo(scenario, full, 2, {"--isolation", "rc", "--shard", "1/2"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  auto m = Racelab({"merge", (empty / "racelab.json").string(), (full / "racelab.json").string(),
                    "--out", (dir_->path / "joined-empty").string(), "--format", "json"});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_EQ(m.err.find("warning"), std::string::npos) << m.err;
  const auto joined = nlohmann::json::parse(Slurp(dir_->path / "joined-empty" / "racelab.json"));
  ASSERT_EQ(joined["results"].size(), 1u);
  EXPECT_FALSE(joined["target"]["server_version"].get<std::string>().empty());
}

TEST_F(CompareCliTest, UnreadableOrInvalidInputIsAUsageErrorNamingTheFile) {
  const fs::path missing = dir_->path / "missing.json";
  auto r = Racelab({"compare", Report("a"), missing.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(missing.string() + ": cannot read the file"), std::string::npos) << r.err;
  const fs::path truncated = dir_->path / "truncated.json";
  std::ofstream(truncated) << Slurp(Report("a")).substr(0, 200);
  r = Racelab({"compare", truncated.string(), Report("a")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(truncated.string() + ":"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not valid JSON"), std::string::npos) << r.err;
  r = Racelab({"compare", Report("a"), Report("b"), "--alpha", "2"});
  EXPECT_EQ(r.exit_code, 2);
}

}  // namespace
}  // namespace racelab::testing
