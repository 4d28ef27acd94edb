// racelab.html's isolation anomaly matrix section: attached from the run's own anomaly-* results
// (compare::AttachAnomalyMatrix, as `run` and `merge` do), drawn by the HTML reporter.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "harness/compare/anomaly_matrix.h"
#include "tests/unit/render_report.h"
#include "tests/unit/sample_report.h"

namespace racelab {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(MatrixSectionTest, ARunWithAnomalyScenariosShowsTheMatrixOnItsPage) {
  auto run = testing::MakeSampleRun();
  // The sample's two results as anomaly scenarios: the first (1 winner in 2 of 2 trials) occurs,
  // the second failed its expectations.
  const_cast<PlanItem*>(run->report.results[0].item)->scenario = "anomaly-g1a";
  const_cast<PlanItem*>(run->report.results[1].item)->scenario = "anomaly-g0";
  compare::AttachAnomalyMatrix(&run->report);
  ASSERT_TRUE(run->report.anomaly_matrix.has_value());
  const AnomalyMatrix& m = *run->report.anomaly_matrix;
  ASSERT_EQ(m.rows.size(), 2u);
  EXPECT_EQ(m.rows[0].scenario, "anomaly-g0");  // the literature's order: G0 before G1a
  EXPECT_EQ(m.columns, (std::vector<std::string>{"read committed", "serializable"}));

  const std::string html = testing::Render("html", run->report);
  const size_t section = html.find("<h2 id=\"anomaly-matrix\">Isolation anomaly matrix</h2>");
  ASSERT_NE(section, std::string::npos);
  EXPECT_LT(html.find("<h2>Summary</h2>"), section);
  EXPECT_NE(html.find("<table class=\"matrix\">", section), std::string::npos);
  EXPECT_THAT(html, HasSubstr("<td class=\"occurs\">occurs</td>"));
  EXPECT_THAT(html, HasSubstr("<td class=\"not-run\">not run</td>"));
  EXPECT_THAT(html, HasSubstr("(expectation failed)</td>"));
}

TEST(MatrixSectionTest, ARunWithoutAnomalyScenariosHasNone) {
  auto run = testing::MakeSampleRun();  // guarded-cas-claim, naive-select-then-update
  compare::AttachAnomalyMatrix(&run->report);
  EXPECT_FALSE(run->report.anomaly_matrix.has_value());
  EXPECT_THAT(testing::Render("html", run->report), Not(HasSubstr("anomaly-matrix")));
}

}  // namespace
}  // namespace racelab
