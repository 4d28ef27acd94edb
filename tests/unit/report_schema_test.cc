// The checked-in schemas (schemas/) against what racelab really writes and reads:
// - racelab-report.schema.json (valijson) on every JSON report the sample run renders: the golden
//   file, an interrupted run, a run that ended on an error, --details none;
// - racelab-junit.xsd (libxml2), a restriction of the Jenkins xUnit junit-10.xsd, on the same runs'
//   JUnit files;
// - racelab-scenario.schema.json on every scenario file of the catalogue (scenarios/*.yaml).
// Each schema is also shown to reject a document it must reject, so a test cannot pass because a
// schema accepts anything.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "reports/reporter.h"
#include "tests/schema/schema_check.h"
#include "tests/temp_dir.h"
#include "tests/unit/render_report.h"
#include "tests/unit/sample_report.h"

namespace racelab {
namespace {

using ::testing::IsEmpty;
using ::testing::Not;
using testing::SchemaPath;
using testing::ValidateJsonText;
using testing::ValidateXmlText;
using testing::ValidateYamlFile;

const std::string kReportSchema = SchemaPath("racelab-report.schema.json");
const std::string kScenarioSchema = SchemaPath("racelab-scenario.schema.json");
const std::string kJunitSchema = SchemaPath("racelab-junit.xsd");

using testing::Render;

// The sample run in the shapes a real run can end in.
enum class Shape { kFinished, kInterrupted, kRunError, kDetailsNone, kErrorVerdict };

std::unique_ptr<testing::SampleRun> SampleIn(Shape shape) {
  auto run = testing::MakeSampleRun();
  RunReport& report = run->report;
  switch (shape) {
    case Shape::kFinished:
      break;
    case Shape::kInterrupted:
      // The result running at the signal is cut short (its trials that ran passed); the next did
      // not run.
      report.not_run.push_back({&run->plan.items[1], "interrupted by signal 2"});
      report.results.pop_back();
      report.results[0].verdict = Verdict::kInterrupted;
      report.results[0].interrupted =
          "interrupted during trial 3 of 20; that trial is not evaluated";
      break;
    case Shape::kRunError:
      report.run_error = "cannot connect to host=db port=1: Connection refused";
      report.not_run = {{&run->plan.items[0], "the run ended before it"},
                        {&run->plan.items[1], "the run ended before it"}};
      report.results.clear();
      break;
    case Shape::kDetailsNone:
      report.details = "none";
      for (ResultSummary& r : report.results) {
        r.trial_details_omitted = r.trials;
        r.trial_details.clear();
      }
      break;
    case Shape::kErrorVerdict:
      report.results[0].verdict = Verdict::kError;
      report.results[0].error = "trial 1: lost connection <worker.2> & \x02 gave up";
      report.results[0].representative_trial = 1;
      report.results[0].trial_details[1].verdict = Verdict::kError;
      break;
  }
  return run;
}

class ReportShapes : public ::testing::TestWithParam<Shape> {};

TEST_P(ReportShapes, JsonMatchesTheReportSchema) {
  auto run = SampleIn(GetParam());
  EXPECT_THAT(ValidateJsonText(kReportSchema, Render("json", run->report)), IsEmpty());
}

TEST_P(ReportShapes, JunitMatchesTheJunitSchema) {
  auto run = SampleIn(GetParam());
  EXPECT_THAT(ValidateXmlText(kJunitSchema, Render("junit", run->report)), IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(All, ReportShapes,
                         ::testing::Values(Shape::kFinished, Shape::kInterrupted, Shape::kRunError,
                                           Shape::kDetailsNone, Shape::kErrorVerdict));

TEST(ReportSchemaTest, RejectsAFieldTheSchemaDoesNotDocument) {
  auto run = testing::MakeSampleRun();
  nlohmann::json j = nlohmann::json::parse(Render("json", run->report));
  j["results"][0]["undocumented"] = 1;
  EXPECT_THAT(ValidateJsonText(kReportSchema, j.dump()), Not(IsEmpty()));
  j = nlohmann::json::parse(Render("json", run->report));
  j["results"][0]["verdict"] = "passed";
  EXPECT_THAT(ValidateJsonText(kReportSchema, j.dump()), Not(IsEmpty()));
  j = nlohmann::json::parse(Render("json", run->report));
  j["results"][0]["trial_details"][0]["verdict"] = "interrupted";
  EXPECT_THAT(ValidateJsonText(kReportSchema, j.dump()), Not(IsEmpty()))
      << "a trial is never interrupted";
  j = nlohmann::json::parse(Render("json", run->report));
  j["target"]["dsn"] = "host=db password=hunter2";
  EXPECT_THAT(ValidateJsonText(kReportSchema, j.dump()), Not(IsEmpty()))
      << "a password in the report";
}

TEST(JunitSchemaTest, RejectsSkippedOnTestsuitesAsJenkinsXunitDoes) {
  auto run = testing::MakeSampleRun();
  std::string xml = Render("junit", run->report);
  const std::string open = "<testsuites name=\"racelab\"";
  ASSERT_NE(xml.find(open), std::string::npos);
  xml.replace(xml.find(open), open.size(), open + " skipped=\"0\"");
  EXPECT_THAT(ValidateXmlText(kJunitSchema, xml), Not(IsEmpty()));
}

TEST(JunitSchemaTest, NotRunResultsAreSkippedTestcasesAndTheRunErrorIsAnError) {
  auto run = SampleIn(Shape::kRunError);
  const std::string xml = Render("junit", run->report);
  EXPECT_THAT(xml, ::testing::HasSubstr(
                       "<testsuites name=\"racelab\" tests=\"3\" failures=\"0\" errors=\"1\""));
  EXPECT_THAT(xml, ::testing::HasSubstr(
                       "<error message=\"cannot connect to host=db port=1: Connection refused\""));
  EXPECT_THAT(xml, ::testing::HasSubstr("<skipped message=\"not run: the run ended before it\"/>"));
}

TEST(ScenarioSchemaTest, EveryCatalogueFileMatches) {
  int files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(RACELAB_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    EXPECT_THAT(ValidateYamlFile(kScenarioSchema, entry.path().string()), IsEmpty())
        << entry.path();
  }
  EXPECT_GE(files, 30);
}

// The complete scenarios of docs/scenario-format.md (```yaml blocks starting "name:") match the
// schema too: each key the reference documents — errors, counts with bounds, one_of, final any_of —
// is in it.
TEST(ScenarioSchemaTest, EveryDocsExampleMatches) {
  std::ifstream docs(std::string(RACELAB_SOURCE_DIR) + "/docs/scenario-format.md");
  ASSERT_TRUE(docs);
  const ::racelab::testing::TempDir temp;  // removed with its files when the test ends
  const std::string dir = temp.path.string() + "/";
  std::string line, block;
  bool inside = false;
  int examples = 0;
  while (std::getline(docs, line)) {
    if (!inside && line == "```yaml") {
      inside = true;
      block.clear();
    } else if (inside && line == "```") {
      inside = false;
      if (block.rfind("name:", 0) != 0) continue;  // a fragment
      std::string path = dir + "docs-example-" + std::to_string(++examples) + ".yaml";
      std::ofstream(path) << block;
      EXPECT_THAT(ValidateYamlFile(kScenarioSchema, path), IsEmpty())
          << block.substr(0, block.find('\n'));
    } else if (inside) {
      block += line + "\n";
    }
  }
  EXPECT_GE(examples, 8);
}

// The ordered fixtures too: `order:` entries with isolationtester's markers, a step listed twice.
TEST(ScenarioSchemaTest, OrderedFixturesMatch) {
  for (const char* name : {"markers", "lost-update-two-orders", "deferrable-waits"}) {
    const std::string path =
        std::string(RACELAB_SOURCE_DIR) + "/tests/fixtures/order/" + name + ".yaml";
    EXPECT_THAT(ValidateYamlFile(kScenarioSchema, path), IsEmpty()) << path;
  }
}

TEST(ScenarioSchemaTest, RejectsAMisspelledKeyAndAStepWithTwoKinds) {
  const ::racelab::testing::TempDir temp;  // removed with its files when the test ends
  const std::string dir = temp.path.string() + "/";
  const std::string good = std::string(RACELAB_SOURCE_DIR) + "/scenarios/guarded-cas-claim.yaml";
  ASSERT_THAT(ValidateYamlFile(kScenarioSchema, good), IsEmpty());
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + name) << text;
    return dir + name;
  };
  const std::string head = "name: x\ntitle: t\nteaches: l\n";
  EXPECT_THAT(ValidateYamlFile(kScenarioSchema, write("a.yaml", head + "sesions: []\n")),
              Not(IsEmpty()));
  EXPECT_THAT(
      ValidateYamlFile(
          kScenarioSchema,
          write(
              "b.yaml",
              head +
                  "sessions:\n  - name: w\n    steps:\n      - { sql: SELECT 1, barrier: go }\n")),
      Not(IsEmpty()));
  EXPECT_THAT(
      ValidateYamlFile(
          kScenarioSchema,
          write("c.yaml",
                head + "isolation: [snapshot]\nsessions:\n  - name: w\n    steps: [begin]\n")),
      Not(IsEmpty()));
  EXPECT_THAT(ValidateYamlFile(kScenarioSchema,
                               write("d.yaml", head + "sessions:\n  - name: w\n    steps: [begin, "
                                                      "{ sql: SELECT 1, name: s }, commit]\n")),
              IsEmpty());
}

// `ask:` (racelab step's question) is text, on the steps step mode holds; not on a barrier.
TEST(ScenarioSchemaTest, AskIsTextOnAHeldStep) {
  const ::racelab::testing::TempDir temp;  // removed with its files when the test ends
  const std::string dir = temp.path.string() + "/";
  auto check = [&](const std::string& name, const std::string& step) {
    std::ofstream(dir + name) << "name: x\ntitle: t\nteaches: l\nsessions:\n  - name: w\n    "
                                 "steps:\n      - "
                              << step << "\n";
    return ValidateYamlFile(kScenarioSchema, dir + name);
  };
  EXPECT_THAT(check("a1.yaml", "{ sql: SELECT 1, ask: 'Will w wait?' }"), IsEmpty());
  EXPECT_THAT(
      check("a2.yaml", "{ commit: , ask: { postgresql: 'Does it fail?', default: 'No?' } }"),
      IsEmpty());
  EXPECT_THAT(check("a3.yaml", "{ sql: SELECT 1, ask: [Will, w, wait] }"), Not(IsEmpty()));
  EXPECT_THAT(check("a4.yaml", "{ sql: SELECT 1, ask: \"\" }"), Not(IsEmpty()));
  EXPECT_THAT(check("a5.yaml", "{ barrier: go, ask: 'Who is first?' }"), Not(IsEmpty()));
}

TEST(ScenarioSchemaTest, RejectsAMisspelledKeyOfErrorsBoundsOneOfAndAnyOf) {
  const ::racelab::testing::TempDir temp;  // removed with its files when the test ends
  const std::string dir = temp.path.string() + "/";
  const std::string head =
      "name: x\ntitle: t\nteaches: l\nsessions:\n  - name: w\n    steps: [begin, { commit: , name: "
      "c }]\n";
  auto check = [&](const std::string& name, const std::string& expect) {
    std::ofstream(dir + name) << head + "expect:\n" + expect;
    return ValidateYamlFile(kScenarioSchema, dir + name);
  };
  EXPECT_THAT(check("g.yaml",
                    "  errors: [ { session: w, step: c, sqlstate: \"40001\", detail: pivot } ]\n"
                    "  winners: { at_least: 1 }\n"
                    "  one_of: [ { name: a, min_fraction: 0.5, sqlstates: {} }, { winners: 0 } ]\n"
                    "  final: [ { sql: SELECT 1, any_of: [\"1\", null] } ]\n"),
              IsEmpty());
  EXPECT_THAT(check("h.yaml", "  errors: [ { sesion: w, sqlstate: \"40001\" } ]\n"),
              Not(IsEmpty()));
  EXPECT_THAT(check("i.yaml", "  winners: { at_leest: 1 }\n"), Not(IsEmpty()));
  EXPECT_THAT(check("j.yaml", "  one_of: [ { min_fration: 0.5, winners: 1 }, { winners: 0 } ]\n"),
              Not(IsEmpty()));
  EXPECT_THAT(check("k.yaml", "  final: [ { sql: SELECT 1, any_off: [\"1\", \"2\"] } ]\n"),
              Not(IsEmpty()));
}

TEST(ScenarioSchemaTest, EngineMapsMayStandForAnyValue) {
  const ::racelab::testing::TempDir temp;  // removed with its files when the test ends
  const std::string dir = temp.path.string() + "/";
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + name) << text;
    return dir + name;
  };
  const std::string head =
      "name: x\ntitle: t\nteaches: l\nengines: [postgresql, mariadb, sqlite]\n";
  EXPECT_THAT(
      ValidateYamlFile(
          kScenarioSchema,
          write("e.yaml",
                head + "isolation: { postgresql: [rc, ser], mariadb: [ru, rc], default: rc }\n"
                       "sessions:\n  - name: w\n    steps:\n      - begin\n"
                       "      - sql: { postgresql: UPDATE t SET a = 1 RETURNING a, default: UPDATE "
                       "t SET a = 1 }\n"
                       "        name: claim\n        capture: { postgresql: [a], mariadb: [] }\n"
                       "expect: { sqlstates: { sqlite: { SQLITE_BUSY: 1 }, mariadb: { \"1213\": 1 "
                       "} } }\n")),
      IsEmpty());
  EXPECT_THAT(
      ValidateYamlFile(
          kScenarioSchema,
          write("f.yaml",
                head + "sessions:\n  - name: w\n    steps:\n      - sql: { oracle: SELECT 1 }\n")),
      Not(IsEmpty()))
      << "an engine map's keys are engine names";
}

}  // namespace
}  // namespace racelab
