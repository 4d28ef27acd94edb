// "junit" reporter: racelab.junit.xml, for CI systems that show test results (Jenkins, GitLab, …).
//
// <testsuites> holds one <testsuite> per scenario (order of first appearance) and one <testcase>
// per ResultSummary (scenario × isolation level × params), named "<scenario> [<isolation>]" with
// classname "racelab.<scenario>" and time = the sum of its trials' durations in seconds.
// - verdict fail: ONE <failure> (many CI tools show only the first), message the failed expectations
//   "<text>: failed in K of N trials" joined by "; ", body each one with its first_failure detail
//   (a generic failure when none is marked failed);
// - verdict error: one <error>, message the harness error, body the failed expectations if any.
// Counts follow JUnit's meaning: tests = testcases, failures = testcases that failed, errors =
// testcases in error (a testcase counts once, however many <failure> elements it has).
// All escaping is XmlWriter's.

#include <fmt/format.h>

#include <ostream>
#include <string>

#include "reports/format_util.h"
#include "reports/reporters.h"
#include "reports/xml_writer.h"

namespace racelab::internal {
namespace {

std::string FailureMessage(const ExpectationTally& e, int trials) {
  return fmt::format("{}: failed in {} of {} trials", e.text, e.failed, trials);
}

void WriteTestcase(const ResultSummary& r, XmlWriter& xml) {
  const PlanItem& item = ItemOf(r);
  xml.StartElement("testcase")
      .Attribute("name", ResultLabel(r))
      .Attribute("classname", "racelab." + item.scenario)
      .Attribute("time", FormatUsAsSeconds(TotalDurationUs(r)));
  if (r.verdict == Verdict::kFail) {
    std::string message, body;
    for (const ExpectationTally& e : r.expectations) {
      if (e.failed == 0) continue;
      message += (message.empty() ? "" : "; ") + FailureMessage(e, r.trials);
      body += FailureMessage(e, r.trials) + "\n" + e.first_failure + "\n";
    }
    xml.StartElement("failure")
        .Attribute("message", !message.empty() ? message : r.error.empty() ? "verdict fail" : r.error)
        .Attribute("type", "expectation");
    if (!body.empty()) xml.Text(body);
    xml.EndElement();
  } else if (r.verdict == Verdict::kError) {
    std::string body;
    for (const ExpectationTally& e : r.expectations) {
      if (e.failed == 0) continue;
      body += FailureMessage(e, r.trials) + "\n" + e.first_failure + "\n";
    }
    xml.StartElement("error")
        .Attribute("message", r.error.empty() ? "harness error" : r.error)
        .Attribute("type", "error");
    if (!body.empty()) xml.Text(body);
    xml.EndElement();
  }
  xml.EndElement();
}

// The counts and time attributes shared by <testsuites> and <testsuite>.
void WriteCounts(const std::vector<const ResultSummary*>& results, XmlWriter& xml) {
  const VerdictCounts counts = CountVerdicts(results);
  int64_t us = 0;
  for (const ResultSummary* r : results) us += TotalDurationUs(*r);
  xml.Attribute("tests", counts.results)
      .Attribute("failures", counts.fail)
      .Attribute("errors", counts.error)
      .Attribute("skipped", int64_t{0})
      .Attribute("time", FormatUsAsSeconds(us));
}

class JunitReporter : public Reporter {
 public:
  std::string_view name() const override { return "junit"; }
  std::string_view file_name() const override { return "racelab.junit.xml"; }
  void Write(const RunReport& report, std::ostream& out) const override {
    std::vector<const ResultSummary*> all;
    for (const ResultSummary& r : report.results) all.push_back(&r);

    XmlWriter xml(out);
    xml.WriteDeclaration();
    xml.StartElement("testsuites").Attribute("name", "racelab");
    WriteCounts(all, xml);
    for (const ScenarioGroup& group : GroupByScenario(report.results)) {
      xml.StartElement("testsuite").Attribute("name", group.scenario);
      WriteCounts(group.results, xml);
      for (const ResultSummary* r : group.results) WriteTestcase(*r, xml);
      xml.EndElement();
    }
    xml.Close();
  }
};

}  // namespace

std::unique_ptr<Reporter> MakeJunitReporter() { return std::make_unique<JunitReporter>(); }

}  // namespace racelab::internal
