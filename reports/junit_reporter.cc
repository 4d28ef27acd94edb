// "junit" reporter: racelab.junit.xml, for CI systems that show test results (Jenkins, GitLab, …).
//
// Shape (a subset of the Jenkins xUnit plugin's junit-10.xsd, which Jenkins' JUnit and xUnit
// readers and GitLab's test report parser all read; tests/unit/junit_schema_test.cc checks every
// file against schemas/racelab-junit.xsd, a restriction of it): <testsuites name="racelab" tests
// failures errors time>  — no `skipped` here: junit-10.xsd rejects it
//   <testsuite> per ResultSummary (scenario × isolation level × params), name "<scenario>
//   [<level>]"
//     (+ " on <engine>" when the run covered several engines),
//     tests failures errors skipped time, then <properties> (engine, server_version,
//     isolation_level, seed, trials, details, file, param.<name> per parameter) — junit-10.xsd
//     allows properties on a testsuite only, hence one suite per result — and one <testcase> named
//     like the suite, classname "racelab.<scenario>", time = the sum of its trials' durations in
//     seconds:
//     - verdict fail: ONE <failure> (many CI tools show only the first), message the failed
//       expectations "<text>: failed in K of N trials" joined by "; ", body each one with its
//       first_failure detail (a generic failure when none is marked failed);
//     - verdict error: one <error>, message the harness error, body the failed expectations if any;
//     - fail or error: <system-out> with the representative (first failing) trial's steps, when the
//       run kept it (--details failed or all; trial_text.h);
//     - verdict interrupted (a stop request cut it short, every trial that ran passed): <skipped>,
//       message "interrupted during trial 4 of 20; that trial is not evaluated — 3 trials ran
//       before it, all passed" — not judged, as JUnit readers show a test that did not finish;
//   one <testsuite> per result that did not run (RunReport::not_run: an interrupt), its testcase
//     <skipped message="not run: <reason>"/>;
//   when the run ended early (RunReport::run_error: a scenario-file error, the server unreachable),
//     a first <testsuite name="racelab"> whose testcase "racelab run" has that <error>, so the file
//     exists and is red on every exit.
// Counts follow JUnit's meaning: tests = testcases, failures = testcases that failed, errors =
// testcases in error, skipped = testcases not run or interrupted. All escaping is XmlWriter's.

#include <fmt/format.h>

#include <ostream>
#include <string>

#include "harness/model/isolation.h"
#include "reports/engine_table.h"
#include "reports/format_util.h"
#include "reports/reporters.h"
#include "reports/trial_text.h"
#include "reports/xml_writer.h"

namespace racelab::internal {
namespace {

struct Counts {
  int tests = 0, failures = 0, errors = 0, skipped = 0;
  int64_t us = 0;
};

std::string FailureMessage(const ExpectationTally& e, int trials) {
  return fmt::format("{}: failed in {} of {} trials", e.text, e.failed, trials);
}

void WriteCounts(const Counts& c, bool with_skipped, XmlWriter& xml) {
  xml.Attribute("tests", c.tests).Attribute("failures", c.failures).Attribute("errors", c.errors);
  if (with_skipped) xml.Attribute("skipped", c.skipped);
  xml.Attribute("time", FormatUsAsSeconds(c.us));
}

void Property(std::string_view name, std::string_view value, XmlWriter& xml) {
  xml.StartElement("property").Attribute("name", name).Attribute("value", value).EndElement();
}

void WriteProperties(const RunReport& report, const PlanItem& item, int trials, XmlWriter& xml) {
  xml.StartElement("properties");
  // The result's own engine and server: a run may cover several engines (engine_table.h).
  const TargetInfo* target = TargetOf(report, item.engine);
  Property("engine", SeveralEngines(report) ? item.engine : report.target.engine, xml);
  if (target != nullptr && !target->server_version.empty())
    Property("server_version", target->server_version, xml);
  Property("isolation_level", IsolationName(item.isolation), xml);
  Property("seed", std::to_string(report.seed), xml);
  Property("trials", std::to_string(trials), xml);
  Property("details", report.details, xml);
  if (!item.file.empty()) Property("file", item.file, xml);
  for (const auto& [name, value] : item.params) Property("param." + name, value, xml);
  xml.EndElement();
}

void WriteResult(const RunReport& report, const ResultSummary& r, XmlWriter& xml) {
  const PlanItem& item = ItemOf(r);
  Counts c;
  c.tests = 1;
  c.failures = r.verdict == Verdict::kFail ? 1 : 0;
  c.errors = r.verdict == Verdict::kError ? 1 : 0;
  c.skipped = r.verdict == Verdict::kInterrupted ? 1 : 0;
  c.us = TotalDurationUs(r);
  xml.StartElement("testsuite").Attribute("name", EngineResultLabel(report, item));
  WriteCounts(c, /*with_skipped=*/true, xml);
  WriteProperties(report, item, r.trials, xml);
  xml.StartElement("testcase")
      .Attribute("name", EngineResultLabel(report, item))
      .Attribute("classname", "racelab." + item.scenario)
      .Attribute("time", FormatUsAsSeconds(c.us));
  if (r.verdict == Verdict::kInterrupted) {
    xml.StartElement("skipped").Attribute("message", InterruptedText(r)).EndElement();
  } else if (r.verdict != Verdict::kPass) {
    std::string message, body;
    for (const ExpectationTally& e : r.expectations) {
      if (!e.Failing()) continue;
      message += (message.empty() ? "" : "; ") + FailureMessage(e, r.trials);
      body += FailureMessage(e, r.trials) + "\n" + e.first_failure + "\n";
    }
    if (r.verdict == Verdict::kFail) {
      xml.StartElement("failure")
          .Attribute("message", !message.empty()  ? message
                                : r.error.empty() ? "verdict fail"
                                                  : r.error)
          .Attribute("type", "expectation");
    } else {
      xml.StartElement("error")
          .Attribute("message", r.error.empty() ? "harness error" : r.error)
          .Attribute("type", "error");
    }
    if (!body.empty()) xml.Text(body);
    xml.EndElement();
    const TrialVerdict* t = RepresentativeTrial(r);
    if (t != nullptr && t->verdict != Verdict::kPass) {
      xml.StartElement("system-out").Text(TrialStepsText(*t, r.trials)).EndElement();
    }
  }
  xml.EndElement();  // testcase
  xml.EndElement();  // testsuite
}

void WriteNotRun(const RunReport& report, const NotRunResult& n, XmlWriter& xml) {
  const PlanItem& item = ItemOf(n);
  Counts c;
  c.tests = 1;
  c.skipped = 1;
  xml.StartElement("testsuite").Attribute("name", EngineResultLabel(report, item));
  WriteCounts(c, /*with_skipped=*/true, xml);
  WriteProperties(report, item, 0, xml);
  xml.StartElement("testcase")
      .Attribute("name", EngineResultLabel(report, item))
      .Attribute("classname", "racelab." + item.scenario)
      .Attribute("time", FormatUsAsSeconds(0));
  xml.StartElement("skipped").Attribute("message", "not run: " + n.reason).EndElement();
  xml.EndElement();
  xml.EndElement();
}

void WriteRunError(const std::string& error, XmlWriter& xml) {
  Counts c;
  c.tests = 1;
  c.errors = 1;
  xml.StartElement("testsuite").Attribute("name", "racelab");
  WriteCounts(c, /*with_skipped=*/true, xml);
  xml.StartElement("testcase")
      .Attribute("name", "racelab run")
      .Attribute("classname", "racelab")
      .Attribute("time", "0.000");
  xml.StartElement("error").Attribute("message", error).Attribute("type", "run").EndElement();
  xml.EndElement();
  xml.EndElement();
}

class JunitReporter : public Reporter {
 public:
  std::string_view name() const override { return "junit"; }
  std::string_view file_name() const override { return "racelab.junit.xml"; }
  void Write(const RunReport& report, std::ostream& out) const override {
    Counts all;
    for (const ResultSummary& r : report.results) {
      ++all.tests;
      all.failures += r.verdict == Verdict::kFail ? 1 : 0;
      all.errors += r.verdict == Verdict::kError ? 1 : 0;
      all.us += TotalDurationUs(r);
    }
    all.tests += static_cast<int>(report.not_run.size());
    if (!report.run_error.empty()) {
      ++all.tests;
      ++all.errors;
    }
    XmlWriter xml(out);
    xml.WriteDeclaration();
    xml.StartElement("testsuites").Attribute("name", "racelab");
    WriteCounts(all, /*with_skipped=*/false, xml);  // junit-10.xsd has no `skipped` on <testsuites>
    if (!report.run_error.empty()) WriteRunError(report.run_error, xml);
    for (const ResultSummary& r : report.results) WriteResult(report, r, xml);
    for (const NotRunResult& n : report.not_run) WriteNotRun(report, n, xml);
    xml.Close();
  }
};

}  // namespace

std::unique_ptr<Reporter> MakeJunitReporter() { return std::make_unique<JunitReporter>(); }

}  // namespace racelab::internal
