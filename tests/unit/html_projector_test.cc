// The HTML page for a projector (issue 21): step labels from what the scenario wrote, the SQL of
// each step, failures first, a timeline that scrolls rather than shrinks.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "harness/model/step_label.h"
#include "tests/unit/render_report.h"
#include "tests/unit/sample_report.h"

namespace racelab {
namespace {

using internal::IsGeneratedStepName;
using internal::SqlLabel;
using internal::StepLabel;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(StepLabelTest, GeneratedNamesAreTheKindsKeyAndAPosition) {
  EXPECT_TRUE(IsGeneratedStepName("sql3", StepKind::kSql));
  EXPECT_TRUE(IsGeneratedStepName("commit12", StepKind::kCommit));
  EXPECT_TRUE(IsGeneratedStepName("sleep_ms2", StepKind::kSleep));
  EXPECT_FALSE(IsGeneratedStepName("claim", StepKind::kSql));
  EXPECT_FALSE(IsGeneratedStepName("sql", StepKind::kSql));
  EXPECT_FALSE(IsGeneratedStepName("sql0", StepKind::kSql));     // positions start at 1
  EXPECT_FALSE(IsGeneratedStepName("sql3", StepKind::kCommit));  // another kind's key
  EXPECT_FALSE(IsGeneratedStepName("sql3b", StepKind::kSql));
}

TEST(StepLabelTest, AStatementIsLabelledByItsVerbAndTable) {
  EXPECT_EQ(SqlLabel("UPDATE runs SET status = 'running' WHERE id = 1"), "UPDATE runs");
  EXPECT_EQ(SqlLabel("update only public.runs set x = 1"), "UPDATE public.runs");
  EXPECT_EQ(SqlLabel("INSERT INTO runs (id) VALUES (1)"), "INSERT INTO runs");
  EXPECT_EQ(SqlLabel("DELETE FROM runs WHERE id = 1"), "DELETE FROM runs");
  EXPECT_EQ(SqlLabel("SELECT id FROM runs WHERE status = 'queued' LIMIT 1 FOR UPDATE SKIP LOCKED"),
            "SELECT … FROM runs FOR UPDATE SKIP LOCKED");
  EXPECT_EQ(SqlLabel("SELECT count(*) FROM runs"), "SELECT … FROM runs");
  EXPECT_EQ(SqlLabel("SELECT pg_advisory_lock(42)"), "SELECT pg_advisory_lock(…)");
  EXPECT_EQ(SqlLabel("LOCK TABLE runs IN ACCESS EXCLUSIVE MODE"), "LOCK TABLE runs");
  EXPECT_EQ(SqlLabel("WITH c AS (SELECT id FROM runs) UPDATE runs SET x = 1"),
            "WITH … UPDATE runs");
  // A subquery's FROM, a comment's and a literal's words are not the statement's.
  EXPECT_EQ(SqlLabel("-- FROM jobs\nSELECT (SELECT 1 FROM jobs), 'FROM x' FROM \"Runs\""),
            "SELECT … FROM \"Runs\"");
  EXPECT_EQ(SqlLabel("  "), "");
}

TEST(StepLabelTest, ANamedStepKeepsItsNameAndAnAttemptIsNumbered) {
  StepEvent e;
  e.kind = StepKind::kSql;
  e.step = "claim";
  e.sql = "UPDATE runs SET x = 1";
  EXPECT_EQ(StepLabel(e), "claim");
  e.step = "sql2";
  EXPECT_EQ(StepLabel(e), "UPDATE runs");
  e.attempt = 2;
  EXPECT_EQ(StepLabel(e), "UPDATE runs #2");
  e = StepEvent{};
  e.kind = StepKind::kCommit;
  e.step = "commit4";
  EXPECT_EQ(StepLabel(e), "COMMIT");
  e.kind = StepKind::kBarrier;
  e.step = "barrier2";
  EXPECT_EQ(StepLabel(e), "barrier");
}

TEST(ReporterHtmlProjectorTest, StepsShowTheirLabelsAndSql) {
  auto run = testing::MakeSampleRun();
  run->report.results[0].trial_details[0].result.events[0].sql = "BEGIN ISOLATION LEVEL <x>";
  const std::string html = testing::Render("html", run->report);
  EXPECT_THAT(html, HasSubstr("<th>SQL</th>"));
  EXPECT_THAT(html, HasSubstr("<td class=\"sql\">BEGIN ISOLATION LEVEL &lt;x&gt;</td>"));
  // A generated name is labelled by its kind, with the name beside it; the SVG uses the label.
  EXPECT_THAT(html, HasSubstr("<td>COMMIT (commit4)</td>"));
  EXPECT_THAT(html, HasSubstr(">COMMIT</text>"));
  EXPECT_THAT(html, Not(HasSubstr(">commit4</text>")));
  // The timeline keeps its width in a box that scrolls on a narrow screen.
  const size_t box = html.find("<div class=\"timeline-box\">");
  ASSERT_NE(box, std::string::npos);
  EXPECT_EQ(html.find("<svg ", box), html.find_first_not_of(" \n", html.find('>', box) + 1));
  EXPECT_THAT(html, HasSubstr("div.timeline-box{overflow-x:auto}"));
}

TEST(ReporterHtmlProjectorTest, FailuresComeFirst) {
  auto run = testing::MakeSampleRun();
  const std::string html = testing::Render("html", run->report);
  const size_t failures = html.find("<h2>Failures</h2>");
  const size_t summary = html.find("<h2>Summary</h2>");
  ASSERT_NE(failures, std::string::npos);
  EXPECT_LT(failures, summary);
  // The failing result's scenario section comes before the passing one's.
  const std::string failing = run->report.results[1].item->scenario;
  const std::string passing = run->report.results[0].item->scenario;
  ASSERT_NE(failing, passing);
  EXPECT_LT(html.find("<h2>" + failing), html.find("<h2>" + passing));

  for (ResultSummary& r : run->report.results) r.verdict = Verdict::kPass;
  EXPECT_THAT(testing::Render("html", run->report), Not(HasSubstr("<h2>Failures</h2>")));
}

TEST(ReporterHtmlProjectorTest, ParamsHaveAColumnAndALongOneIsFolded) {
  auto run = testing::MakeSampleRun();
  const std::string html = testing::Render("html", run->report);
  const size_t summary = html.find("<table class=\"summary\">");
  ASSERT_NE(summary, std::string::npos);
  EXPECT_NE(html.find("<th>params</th>", summary), std::string::npos);
  // "workers=2, note=a<b & …" is longer than a summary cell shows: folded under its first words,
  // the whole text inside.
  EXPECT_THAT(html, HasSubstr("<summary>workers=2, …</summary>"));
  EXPECT_THAT(html,
              HasSubstr("<span>workers=2, note=a&lt;b &amp; &quot;c&quot; | &#39;d&#39;</span>"));

  for (ResultSummary& r : run->report.results) {
    const_cast<PlanItem*>(r.item)->params = {{"workers", "2"}};
  }
  const std::string short_params = testing::Render("html", run->report);
  EXPECT_THAT(short_params, HasSubstr("<td class=\"params\">workers=2</td>"));
  for (ResultSummary& r : run->report.results) const_cast<PlanItem*>(r.item)->params.clear();
  EXPECT_THAT(testing::Render("html", run->report), Not(HasSubstr("<th>params</th>")));
}

}  // namespace
}  // namespace racelab
