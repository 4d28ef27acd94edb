// The reports a real `racelab run` writes, as a CI job reads them: validated against the checked-in
// schemas (schemas/: the JSON Schema with valijson, the JUnit XSD — a restriction of the Jenkins
// xUnit junit-10.xsd — with libxml2); what --details keeps; and a JUnit file on every exit: 1, 2 (a
// scenario-file error), 3 (an unreachable server) and 130 (SIGINT, the results not run as skipped).
// Runs against the test server (--dsn, a superuser: --allow-superuser).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/integration/pg_test_env.h"
#include "tests/integration/subprocess.h"
#include "tests/integration/test_files.h"
#include "tests/schema/schema_check.h"

namespace racelab::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const std::string kBin = RACELAB_BINARY;
const std::string kSrc = RACELAB_SOURCE_DIR;
const std::string kFormats = "json,junit,md,md-summary";

// Every file report in `dir` matches its schema; md-summary fits a pull-request comment.
void ExpectValidReports(const fs::path& dir) {
  EXPECT_THAT(
      ValidateJsonText(SchemaPath("racelab-report.schema.json"), Slurp(dir / "racelab.json")),
      IsEmpty());
  EXPECT_THAT(ValidateXmlText(SchemaPath("racelab-junit.xsd"), Slurp(dir / "racelab.junit.xml")),
              IsEmpty());
  ASSERT_TRUE(fs::exists(dir / "racelab-summary.md"));
  EXPECT_LE(fs::file_size(dir / "racelab-summary.md"), 61440u);
  EXPECT_TRUE(fs::exists(dir / "racelab.md"));
}

TEST(CliReports, DefaultDetailsKeepOneRepresentativeOfAPassingResult) {
  TempDir out;
  ProcessResult r = RunProcess(
      {kBin, "run", "guarded-cas-claim", "--isolation", "rc,ser", "--trials", "4", "--dsn",
       TestConninfo(), "--allow-superuser", "--out", out.path.string(), "-q", "--format", kFormats},
      seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectValidReports(out.path);
  const nlohmann::json j = nlohmann::json::parse(Slurp(out.path / "racelab.json"));
  EXPECT_EQ(j["details"], "failed");
  ASSERT_EQ(j["results"].size(), 2u);
  for (const nlohmann::json& result : j["results"]) {
    EXPECT_EQ(result["trials"], 4);
    ASSERT_EQ(result["trial_details"].size(), 1u) << "only the representative of a passing result";
    EXPECT_EQ(result["trial_details_omitted"], 3);
    EXPECT_EQ(result["representative_trial"], result["trial_details"][0]["trial"]);
    EXPECT_GT(result["duration_us"].get<int64_t>(), 0);
  }
}

TEST(CliReports, FailingTrialsAreKeptAndTheJunitFailureShowsTheirSteps) {
  TempDir out;
  ProcessResult r = RunProcess(
      {kBin, "run", kSrc + "/tests/fixtures/wrong_expectation.yaml", "--trials", "3", "--dsn",
       TestConninfo(), "--allow-superuser", "--out", out.path.string(), "-q", "--format", kFormats},
      seconds(180));
  ASSERT_EQ(r.exit_code, 1) << r.err;
  ExpectValidReports(out.path);
  const nlohmann::json j = nlohmann::json::parse(Slurp(out.path / "racelab.json"));
  EXPECT_EQ(j["results"][0]["trial_details"].size(), 3u) << "every failing trial (up to 10)";
  const std::string junit = Slurp(out.path / "racelab.junit.xml");
  EXPECT_THAT(junit, HasSubstr("<property name=\"isolation_level\" value=\"read committed\"/>"));
  EXPECT_THAT(junit, HasSubstr("<property name=\"param.workers\" value=\"2\"/>"));
  EXPECT_THAT(junit, HasSubstr("<system-out>trial 1 of 3: fail"));
  EXPECT_THAT(junit, HasSubstr("worker.1  claim: "));
  const std::string summary = Slurp(out.path / "racelab-summary.md");
  EXPECT_LT(summary.find("## Failures"), summary.find("<details>")) << summary;
}

TEST(CliReports, DetailsNoneKeepsNoTrial) {
  TempDir out;
  ProcessResult r = RunProcess({kBin, "run", "guarded-cas-claim", "--isolation", "rc", "--trials",
                                "3", "--dsn", TestConninfo(), "--allow-superuser", "--out",
                                out.path.string(), "-q", "--format", kFormats, "--details", "none"},
                               seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectValidReports(out.path);
  const nlohmann::json j = nlohmann::json::parse(Slurp(out.path / "racelab.json"));
  EXPECT_TRUE(j["results"][0]["trial_details"].empty());
  EXPECT_EQ(j["results"][0]["trial_details_omitted"], 3);
  EXPECT_EQ(
      RunProcess({kBin, "run", "guarded-cas-claim", "--details", "some"}, seconds(30)).exit_code,
      2);
}

TEST(CliReports, AScenarioFileErrorStillWritesTheJunitFile) {
  TempDir out;
  const std::string bad = kSrc + "/tests/fixtures/bad/unknown_key.yaml";
  ProcessResult r = RunProcess(
      {kBin, "run", bad, "--out", out.path.string(), "-q", "--format", kFormats}, seconds(60));
  ASSERT_EQ(r.exit_code, 2) << r.err;
  ExpectValidReports(out.path);
  const std::string junit = Slurp(out.path / "racelab.junit.xml");
  EXPECT_THAT(junit, HasSubstr("<testcase name=\"racelab run\" classname=\"racelab\""));
  EXPECT_THAT(junit, HasSubstr("unknown_key.yaml:")) << "the error names the file and line";
  EXPECT_FALSE(nlohmann::json::parse(Slurp(out.path / "racelab.json"))["run_error"]
                   .get<std::string>()
                   .empty());
}

TEST(CliReports, AnUnreachableServerWritesTheErrorAndEveryResultAsSkipped) {
  TempDir out;
  ProcessResult r = RunProcess({kBin, "run", "guarded-cas-claim", "--isolation", "rc,rr", "--dsn",
                                "host=127.0.0.1 port=1 user=nobody", "--connect-timeout-ms", "2000",
                                "--out", out.path.string(), "-q", "--format", kFormats},
                               seconds(60));
  ASSERT_EQ(r.exit_code, 3) << r.err;
  ExpectValidReports(out.path);
  const std::string junit = Slurp(out.path / "racelab.junit.xml");
  EXPECT_THAT(junit,
              HasSubstr("<testsuites name=\"racelab\" tests=\"3\" failures=\"0\" errors=\"1\""));
  EXPECT_THAT(junit, HasSubstr("guarded-cas-claim [repeatable read]"));
  EXPECT_THAT(junit, HasSubstr("<skipped message=\"not run: the run ended before it\"/>"));
  // The report names the server it was for: the --dsn's engine, not an embedded one.
  const nlohmann::json target = nlohmann::json::parse(Slurp(out.path / "racelab.json"))["target"];
  EXPECT_EQ(target["engine"], "postgresql") << target;
  EXPECT_EQ(target["embedded"], false) << target;
  EXPECT_THAT(target["dsn"].get<std::string>(), HasSubstr("port=1")) << target;
}

TEST(CliReports, SigintListsTheResultsNotRunAsSkipped) {
  TempDir out;
  Subprocess p({kBin, "run", "lock-hold-wait", "guarded-cas-claim", "--isolation", "rc", "--set",
                "hold_ms=2000", "--trials", "20", "--dsn", TestConninfo(), "--allow-superuser",
                "--out", out.path.string(), "--format", kFormats});
  ASSERT_TRUE(p.WaitForStderr("lock-hold-wait @ read committed: 20 trials", seconds(120)))
      << "the run never started";
  p.Signal(SIGINT);
  ProcessResult r = p.Wait(seconds(60));
  ASSERT_EQ(r.exit_code, 130) << r.err;
  ExpectValidReports(out.path);
  const std::string junit = Slurp(out.path / "racelab.junit.xml");
  EXPECT_THAT(
      junit,
      HasSubstr("<testsuite name=\"guarded-cas-claim [read committed]\" tests=\"1\" failures=\"0\" "
                "errors=\"0\" skipped=\"1\""));
  EXPECT_THAT(junit, HasSubstr("<skipped message=\"not run: interrupted by signal 2\"/>"));
  const nlohmann::json j = nlohmann::json::parse(Slurp(out.path / "racelab.json"));
  EXPECT_EQ(j["summary"]["not_run"], 1);
  // The result running at the signal was stopped, not faulted: `interrupted`, never `error`.
  EXPECT_EQ(j["summary"]["error"], 0) << j["summary"];
  EXPECT_EQ(j["summary"]["interrupted"], 1) << j["summary"];
  const nlohmann::json& cut = j["results"][0];
  EXPECT_EQ(cut["verdict"], "interrupted") << cut.dump();
  EXPECT_FALSE(cut.contains("error")) << cut.dump();
  EXPECT_THAT(
      cut["interrupted"].get<std::string>(),
      ::testing::MatchesRegex(
          "interrupted (during trial [0-9]+ of 20; that trial is not evaluated|before trial "
          "[0-9]+ of 20)"));
  EXPECT_THAT(
      junit,
      HasSubstr("<testsuite name=\"lock-hold-wait [read committed]\" tests=\"1\" failures=\"0\" "
                "errors=\"0\" skipped=\"1\""));
  EXPECT_THAT(junit,
              HasSubstr("<skipped message=\"" + cut["interrupted"].get<std::string>() + " — "));
}

}  // namespace
}  // namespace racelab::testing
