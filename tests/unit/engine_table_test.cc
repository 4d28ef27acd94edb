// A run of several engines in the reports: the side-by-side table (reports/engine_table.h) as the
// console, Markdown and HTML show it, each result's engine and each engine's server in racelab.json
// (valid against schemas/racelab-report.schema.json) and JUnit (valid against racelab-junit.xsd),
// and
// `--engine` lists (harness/cli/run_plan.h). No database: a hand-built report.

#include "reports/engine_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "harness/cli/run_plan.h"
#include "reports/reporter.h"
#include "tests/schema/schema_check.h"
#include "tests/unit/render_report.h"

namespace racelab {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

PlanItem Item(const std::string& scenario, const std::string& engine, IsolationLevel level) {
  PlanItem item;
  item.scenario = scenario;
  item.title = scenario + " title";
  item.file = "scenarios/" + scenario + ".yaml";
  item.engine = engine;
  item.isolation = level;
  item.trials = 3;
  return item;
}

TargetInfo Target(const std::string& engine, const std::string& version) {
  TargetInfo t;
  t.engine = engine;
  t.server_version = version;
  t.embedded = true;
  return t;
}

// claim on postgresql at rc and ser, on sqlite at ser only; only-sqlite on sqlite; one item not
// run.
struct TwoEngineRun {
  TwoEngineRun() {
    plan.items = {Item("claim", "postgresql", IsolationLevel::kReadCommitted),
                  Item("claim", "postgresql", IsolationLevel::kSerializable),
                  Item("claim", "sqlite", IsolationLevel::kSerializable),
                  Item("only-sqlite", "sqlite", IsolationLevel::kSerializable),
                  Item("later", "sqlite", IsolationLevel::kSerializable)};
    auto result = [&](size_t i, Verdict v, std::map<int, int> winners,
                      std::map<std::string, int> codes, size_t waits) {
      ResultSummary r;
      r.item = &plan.items[i];
      r.trials = 3;
      r.verdict = v;
      r.winners = std::move(winners);
      r.sqlstates = std::move(codes);
      r.blocked_ms.count = waits;
      r.expectations = {{"winners = 1", v == Verdict::kPass ? 3 : 2, v == Verdict::kPass ? 0 : 1,
                         v == Verdict::kPass ? "" : "trial 2: winners = 2", 0}};
      return r;
    };
    report.racelab_version = "0.1.0";
    report.created_at = "2026-11-30T22:00:00Z";
    report.command = "racelab run --engine postgresql,sqlite";
    report.details = "failed";
    report.target = Target("postgresql", "15.8 (Debian 15.8-0+deb12u1)");
    report.targets = {report.target, Target("sqlite", "3.40.1")};
    report.results = {
        result(0, Verdict::kPass, {{2, 3}}, {}, 0),
        result(1, Verdict::kPass, {{1, 3}}, {{"40001", 3}}, 3),
        result(2, Verdict::kPass, {{1, 3}}, {{"SQLITE_BUSY_SNAPSHOT", 3}}, 0),
        result(3, Verdict::kFail, {{1, 2}, {2, 1}}, {{"HY000", 1}, {"SQLITE_BUSY", 4}}, 1)};
    report.not_run = {{&plan.items[4], "interrupted by signal 2"}};
    report.skipped = {{"claim", "sqlite", "read committed",
                       "not in its isolation: list on sqlite (serializable)"},
                      {"only-sqlite", "postgresql", "", "not in its engines: list (sqlite)"},
                      {"later", "postgresql", "", "not in its engines: list (sqlite)"}};
  }
  Plan plan;
  RunReport report;
};

using testing::Render;

// The console line starting with `first_cell`, split at runs of two or more spaces.
std::vector<std::string> ConsoleRow(const std::string& text, const std::string& first_cell,
                                    const std::string& level) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::regex gap(" {2,}");
    for (std::sregex_token_iterator it(line.begin(), line.end(), gap, -1), end; it != end; ++it)
      cells.push_back(*it);
    if (cells.size() > 1 && cells[0] == first_cell && cells[1] == level) return cells;
  }
  return {};
}

TEST(EngineTable, OneRowPerScenarioAndLevelOneColumnPerEngine) {
  TwoEngineRun run;
  const internal::EngineTable table = internal::BuildEngineTable(run.report);
  EXPECT_THAT(table.engines, ElementsAre("postgresql", "sqlite"));
  ASSERT_EQ(table.rows.size(), 4u);
  EXPECT_EQ(table.rows[0].scenario + " @ " + table.rows[0].isolation, "claim @ read committed");
  EXPECT_EQ(table.rows[1].scenario + " @ " + table.rows[1].isolation, "claim @ serializable");
  EXPECT_EQ(table.rows[2].scenario, "only-sqlite");
  EXPECT_EQ(table.rows[3].scenario, "later");
  EXPECT_EQ(table.rows[1].cells[0].result, &run.report.results[1]);
  EXPECT_EQ(table.rows[1].cells[1].result, &run.report.results[2]);
  EXPECT_EQ(table.rows[0].cells[1].result, nullptr);
  EXPECT_EQ(table.rows[0].cells[1].missing, "not in its isolation: list on sqlite (serializable)");
  EXPECT_EQ(table.rows[2].cells[0].missing, "not in its engines: list (sqlite)");
  EXPECT_EQ(table.rows[3].cells[1].missing, "not run: interrupted by signal 2");
  EXPECT_EQ(internal::EngineCellText(run.report.results[1]),
            "pass · winners 1×3 · 40001×3 · 3 lock waits");
  EXPECT_EQ(internal::EngineCellText(run.report.results[3]),
            "fail · winners 1×2, 2×1 · SQLITE_BUSY×4 +1 more · 1 lock wait");
}

TEST(EngineTable, ConsoleShowsTheEnginesSideBySideAndEachServer) {
  TwoEngineRun run;
  const std::string text = Render("console", run.report);
  EXPECT_THAT(ConsoleRow(text, "scenario", "isolation"),
              ElementsAre("scenario", "isolation", "postgresql", "sqlite"));
  EXPECT_THAT(ConsoleRow(text, "claim", "read committed"),
              ElementsAre("claim", "read committed", "pass · winners 2×3",
                          "— not in its isolation: list on sqlite (serializable)"));
  EXPECT_THAT(ConsoleRow(text, "claim", "serializable"),
              ElementsAre("claim", "serializable", "pass · winners 1×3 · 40001×3 · 3 lock waits",
                          "pass · winners 1×3 · SQLITE_BUSY_SNAPSHOT×3"));
  EXPECT_THAT(ConsoleRow(text, "only-sqlite", "serializable"),
              ElementsAre("only-sqlite", "serializable", "— not in its engines: list (sqlite)",
                          "fail · winners 1×2, 2×1 · SQLITE_BUSY×4 +1 more · 1 lock wait"));
  EXPECT_NE(
      text.find("postgresql: 15.8 (Debian 15.8-0+deb12u1), embedded\nsqlite: 3.40.1, embedded\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("fail: only-sqlite [serializable] on sqlite\n"), std::string::npos) << text;
}

TEST(EngineTable, MarkdownAndHtmlPutTheEnginesSideBySide) {
  TwoEngineRun run;
  const std::string md = Render("md", run.report);
  EXPECT_NE(
      md.find(
          "## Side by side\n\n| scenario | isolation | postgresql | sqlite |\n|---|---|---|---|\n"
          "| claim | read committed | pass · winners 2×3 | — not in its isolation: list on sqlite "
          "(serializable) |\n"
          "| claim | serializable | pass · winners 1×3 · 40001×3 · 3 lock waits | "
          "pass · winners 1×3 · SQLITE\\_BUSY\\_SNAPSHOT×3 |\n"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("Target: postgresql 15.8 (Debian 15.8-0+deb12u1), embedded\n\nTarget: sqlite "
                    "3.40.1, embedded\n"),
            std::string::npos);
  EXPECT_NE(md.find("### sqlite · serializable: pass (3 trials)"), std::string::npos);
  EXPECT_NE(md.find("| claim | sqlite | serializable | pass |"), std::string::npos)
      << "summary table with engines";
  EXPECT_NE(Render("md-summary", run.report).find("## Side by side"), std::string::npos);
  const std::string html = Render("html", run.report);
  EXPECT_NE(html.find("<h2>Side by side</h2>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"missing\">— not in its engines: list (sqlite)</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(
      html.find(
          "<td class=\"engine-cell v-pass\">\n          <a href=\"#result-3\">pass · winners 1×3 · "
          "SQLITE_BUSY_SNAPSHOT×3</a>"),
      std::string::npos);
}

TEST(EngineTable, OneEngineReportsAreUnchanged) {
  TwoEngineRun run;
  run.report.targets.clear();
  run.report.skipped.clear();
  run.report.results.resize(2);  // postgresql only
  run.report.not_run.clear();
  EXPECT_FALSE(internal::SeveralEngines(run.report));
  EXPECT_EQ(Render("md", run.report).find("Side by side"), std::string::npos);
  EXPECT_EQ(Render("console", run.report).find("sqlite"), std::string::npos);
  const auto json = nlohmann::json::parse(Render("json", run.report));
  EXPECT_FALSE(json.contains("targets"));
  EXPECT_EQ(json["results"][0]["engine"], "postgresql");
}

TEST(EngineTable, JsonNamesEachResultsEngineAndEachServerAndMatchesTheSchema) {
  TwoEngineRun run;
  const std::string text = Render("json", run.report);
  EXPECT_THAT(testing::ValidateJsonText(testing::SchemaPath("racelab-report.schema.json"), text),
              IsEmpty());
  const auto json = nlohmann::json::parse(text);
  ASSERT_EQ(json["targets"].size(), 2u);
  EXPECT_EQ(json["targets"][1]["engine"], "sqlite");
  EXPECT_EQ(json["targets"][1]["server_version"], "3.40.1");
  EXPECT_EQ(json["results"][2]["engine"], "sqlite");
  EXPECT_EQ(json["not_run"][0]["engine"], "sqlite");
  const nlohmann::json first_skip = {
      {"scenario", "claim"},
      {"engine", "sqlite"},
      {"isolation", "read committed"},
      {"reason", "not in its isolation: list on sqlite (serializable)"}};
  EXPECT_EQ(json["skipped"][0], first_skip);
  EXPECT_FALSE(json["skipped"][1].contains("isolation"));
}

TEST(EngineTable, JunitNamesEachResultWithItsEngineAndServer) {
  TwoEngineRun run;
  const std::string xml = Render("junit", run.report);
  EXPECT_THAT(testing::ValidateXmlText(testing::SchemaPath("racelab-junit.xsd"), xml), IsEmpty());
  EXPECT_NE(xml.find("<testsuite name=\"claim [serializable] on sqlite\""), std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<property name=\"server_version\" value=\"3.40.1\"/>"), std::string::npos);
  std::set<std::string> names;
  std::regex suite("<testsuite name=\"([^\"]*)\"");
  for (std::sregex_iterator it(xml.begin(), xml.end(), suite), end; it != end; ++it) {
    EXPECT_TRUE(names.insert((*it)[1]).second) << "two suites named " << (*it)[1];
  }
}

TEST(EngineList, CommaListsAllAndTheDsnsEngine) {
  EXPECT_THAT(*cli::ParseEngineList("postgresql,sqlite", {}), ElementsAre("postgresql", "sqlite"));
  EXPECT_THAT(*cli::ParseEngineList("sqlite, postgresql,sqlite", {}),
              ElementsAre("sqlite", "postgresql"));
  EXPECT_EQ(cli::ParseEngineList("all", {})->size(), 3u);
  EXPECT_THAT(*cli::ParseEngineList("", {}), ElementsAre("postgresql"));
  EXPECT_THAT(*cli::ParseEngineList("", {"sqlite:///tmp/x.db"}), ElementsAre("sqlite"));
  EXPECT_THAT(*cli::ParseEngineList("postgresql,sqlite", {"sqlite:///tmp/x.db"}),
              ElementsAre("postgresql", "sqlite"));
  auto bad = cli::ParseEngineList("postgresql,oracle", {});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kUsage);
  EXPECT_NE(bad.status().message().find("unknown engine 'oracle'"), std::string::npos)
      << bad.status().message();
  auto other = cli::ParseEngineList("postgresql,sqlite", {"mysql://u:Secr3t@h/db"});
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().message().find("Secr3t"), std::string::npos)
      << "no password in a message";
  EXPECT_NE(other.status().message().find("not a server of any engine in --engine"),
            std::string::npos);
  // One --dsn per engine: without --engine, the run is on the DSNs' engines, in their order.
  EXPECT_THAT(*cli::ParseEngineList("", {"sqlite:/tmp/x.db", "host=/tmp dbname=d"}),
              ElementsAre("sqlite", "postgresql"));
  EXPECT_THAT(*cli::ParseEngineList("all", {"sqlite:/tmp/x.db", "mariadb://u@h/"}),
              ElementsAre("postgresql", "sqlite", "mariadb"));
  auto twice = cli::ParseEngineList("", {"postgresql://u:Secr3t@h/a", "host=h dbname=b"});
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("both servers of postgresql"), std::string::npos)
      << twice.status().message();
  EXPECT_EQ(twice.status().message().find("Secr3t"), std::string::npos);
  EXPECT_EQ(cli::DsnOfEngine({"sqlite:/tmp/x.db", "host=h"}, "postgresql", true), "host=h");
  EXPECT_EQ(cli::DsnOfEngine({"sqlite:/tmp/x.db"}, "mariadb", true), "");
  EXPECT_EQ(cli::DsnOfEngine({"sqlite:/tmp/x.db"}, "postgresql", false), "sqlite:/tmp/x.db");
}

}  // namespace
}  // namespace racelab
