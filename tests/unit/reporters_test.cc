// Unit tests for reports/: registry, goldens, JSON contract, XML escaping, per-format details.
//
// Golden files: tests/golden/{racelab.json, racelab.md, racelab.junit.xml, racelab.html,
// console.txt} are the
// exact bytes each reporter writes for the sample run (tests/unit/sample_report.h). After an
// intended change to a format, regenerate them and review the diff:
//
//   RACELAB_UPDATE_GOLDEN=1 ./build/tests/unit/reporters_test
//   (or, from the build directory: RACELAB_UPDATE_GOLDEN=1 ctest -R Reporter)
//
// With RACELAB_UPDATE_GOLDEN=1 the golden tests rewrite the files under the source tree and pass.

#include "reports/reporters.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "reports/reporter.h"
#include "reports/svg_timeline.h"
#include "reports/xml_writer.h"
#include "tests/unit/render_report.h"
#include "tests/unit/sample_report.h"

namespace racelab {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using testing::Render;

bool UpdateGolden() {
  const char* value = std::getenv("RACELAB_UPDATE_GOLDEN");
  return value != nullptr && std::string(value) == "1";
}

void ExpectMatchesGolden(const std::string& file, const std::string& actual) {
  const std::string path = std::string(RACELAB_SOURCE_DIR) + "/tests/golden/" + file;
  if (UpdateGolden()) {
    std::ofstream(path, std::ios::binary) << actual;
    std::cout << "rewrote " << path << '\n';
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << "missing golden " << path << "; run with RACELAB_UPDATE_GOLDEN=1";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(expected.str(), actual)
      << "differs from " << path << " (RACELAB_UPDATE_GOLDEN=1 rewrites it after review)";
}

// --- Registry ------------------------------------------------------------------------------------

TEST(ReporterRegistryTest, NamesInRegistryOrder) {
  EXPECT_THAT(ReporterNames(),
              ::testing::ElementsAre("console", "json", "md", "md-summary", "junit", "html"));
}

TEST(ReporterRegistryTest, EveryNameMakesItsReporter) {
  for (const std::string& name : ReporterNames()) {
    Result<std::unique_ptr<Reporter>> reporter = MakeReporter(name);
    ASSERT_TRUE(reporter.ok()) << name;
    EXPECT_EQ((*reporter)->name(), name);
  }
  EXPECT_EQ((*MakeReporter("console"))->file_name(), "");
  EXPECT_EQ((*MakeReporter("json"))->file_name(), "racelab.json");
  EXPECT_EQ((*MakeReporter("md"))->file_name(), "racelab.md");
  EXPECT_EQ((*MakeReporter("md-summary"))->file_name(), "racelab-summary.md");
  EXPECT_EQ((*MakeReporter("junit"))->file_name(), "racelab.junit.xml");
  EXPECT_EQ((*MakeReporter("html"))->file_name(), "racelab.html");
}

TEST(ReporterRegistryTest, UnknownNameIsUsageErrorListingValidNames) {
  Result<std::unique_ptr<Reporter>> reporter = MakeReporter("html5");
  ASSERT_FALSE(reporter.ok());
  EXPECT_EQ(reporter.status().code(), StatusCode::kUsage);
  EXPECT_THAT(reporter.status().message(), HasSubstr("html5"));
  EXPECT_THAT(reporter.status().message(), HasSubstr("console, json, md, md-summary, junit, html"));
}

// --- Goldens -------------------------------------------------------------------------------------

class ReporterGoldenTest : public ::testing::Test {
 protected:
  std::unique_ptr<testing::SampleRun> run_ = testing::MakeSampleRun();
};

TEST_F(ReporterGoldenTest, Json) {
  ExpectMatchesGolden("racelab.json", Render("json", run_->report));
}
TEST_F(ReporterGoldenTest, Markdown) {
  ExpectMatchesGolden("racelab.md", Render("md", run_->report));
}
TEST_F(ReporterGoldenTest, Junit) {
  ExpectMatchesGolden("racelab.junit.xml", Render("junit", run_->report));
}
TEST_F(ReporterGoldenTest, Html) {
  ExpectMatchesGolden("racelab.html", Render("html", run_->report));
}
TEST_F(ReporterGoldenTest, Console) {
  ExpectMatchesGolden("console.txt", Render("console", run_->report));
}

TEST_F(ReporterGoldenTest, OutputIsDeterministic) {
  for (const std::string& name : ReporterNames()) {
    auto again = testing::MakeSampleRun();
    EXPECT_EQ(Render(name, run_->report), Render(name, again->report)) << name;
  }
}

// --- JSON contract -------------------------------------------------------------------------------

// Fails the test unless `obj` is an object that has every key in `keys`.
void ExpectKeys(const nlohmann::json& obj, std::initializer_list<const char*> keys,
                const std::string& where) {
  ASSERT_TRUE(obj.is_object()) << where;
  for (const char* key : keys) EXPECT_TRUE(obj.contains(key)) << where << " lacks \"" << key << '"';
}

TEST(ReporterJsonTest, ParsesBackWithEveryContractField) {
  auto run = testing::MakeSampleRun();
  const nlohmann::json j = nlohmann::json::parse(Render("json", run->report));
  ExpectKeys(j,
             {"schema_version", "racelab_version", "created_at", "command", "seed", "details",
              "target", "summary", "results"},
             "report");
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_EQ(j["details"], "all");
  EXPECT_FALSE(j.contains("not_run")) << "omitted when every result ran";
  EXPECT_FALSE(j.contains("run_error"));
  EXPECT_EQ(j["seed"], 42);
  ExpectKeys(j["target"], {"engine", "server_version", "embedded", "settings"}, "target");
  EXPECT_FALSE(j["target"].contains("dsn")) << "no dsn for the embedded cluster";
  EXPECT_EQ(j["target"]["settings"]["fsync"], "off");
  EXPECT_EQ(j["summary"],
            nlohmann::json::parse(
                R"({"results":2,"pass":1,"fail":1,"error":0,"interrupted":0,"not_run":0})"));

  ASSERT_EQ(j["results"].size(), 2u);
  for (const nlohmann::json& r : j["results"]) {
    ExpectKeys(r,
               {"scenario", "title", "file", "isolation", "params", "trials", "verdict", "winners",
                "sqlstates", "blocked_ms", "skew_us", "expectations", "duration_us",
                "representative_trial", "trial_details_omitted", "trial_details"},
               "result");
    EXPECT_FALSE(r.contains("error"));
    ExpectKeys(r["blocked_ms"], {"p50", "p95", "max", "count"}, "blocked_ms");
    ExpectKeys(r["skew_us"], {"p50", "p95", "max", "count"}, "skew_us");
    EXPECT_TRUE(r["skew_us"]["p95"].is_number_integer());
    for (const nlohmann::json& e : r["expectations"]) {
      ExpectKeys(e, {"text", "passed", "failed"}, "expectation");
      EXPECT_EQ(e.contains("first_failure"), e["failed"].get<int>() > 0);
    }
    for (const nlohmann::json& t : r["trial_details"]) {
      ExpectKeys(
          t,
          {"trial", "verdict", "duration_us", "checks", "sessions", "barriers", "events", "finals"},
          "trial");
      for (const nlohmann::json& s : t["sessions"]) {
        ExpectKeys(s, {"label", "role", "committed", "won", "attempts"}, "session");
      }
      for (const nlohmann::json& b : t["barriers"]) {
        ExpectKeys(b, {"barrier", "occurrence", "released_us", "skew_us"}, "barrier");
      }
      for (const nlohmann::json& e : t["events"]) {
        ExpectKeys(e,
                   {"session", "step", "kind", "attempt", "sent_us", "completed_us", "skipped",
                    "cancelled_by_deadline", "lock_wait", "blocked_ms"},
                   "event");
        if (e["lock_wait"].get<bool>()) ExpectKeys(e, {"wait_event", "blocked_by"}, "lock wait");
      }
    }
  }
  const nlohmann::json& cas = j["results"][0];
  EXPECT_EQ(cas["isolation"], "read committed");
  EXPECT_EQ(cas["winners"], nlohmann::json::parse(R"({"1":2})"));
  EXPECT_EQ(cas["blocked_ms"]["p95"], 2.889);  // ms rounded to 3 decimals
  EXPECT_EQ(cas["skew_us"]["p95"], 29);        // µs rounded to an integer
  const nlohmann::json& naive = j["results"][1];
  EXPECT_EQ(naive["verdict"], "fail");
  EXPECT_EQ(naive["sqlstates"]["40001"], 2);
  EXPECT_EQ(naive["params"]["note"], "a<b & \"c\" | 'd'");
  EXPECT_EQ(naive["trial_details"][1]["finals"][1]["value"], nullptr);
  EXPECT_EQ(naive["representative_trial"], 1) << "the trial number of the first failing trial";
  EXPECT_EQ(naive["duration_us"], 3900 + 4000);
  EXPECT_EQ(naive["trial_details_omitted"], 0);
}

TEST(ReporterJsonTest, ExternalTargetHasRedactedDsnAndErrorWhenSet) {
  auto run = testing::MakeSampleRun();
  run->report.target.embedded = false;
  run->report.results[1].verdict = Verdict::kError;
  run->report.results[1].error = "deadline passed";
  const nlohmann::json j = nlohmann::json::parse(Render("json", run->report));
  EXPECT_EQ(j["target"]["dsn"], "host=/tmp/racelab-sock port=54329 user=racelab");
  EXPECT_EQ(j["results"][1]["error"], "deadline passed");
  EXPECT_EQ(j["summary"]["error"], 1);
}

// --- XML escaping --------------------------------------------------------------------------------

TEST(ReporterXmlWriterTest, EscapesMarkupCharacters) {
  EXPECT_EQ(EscapeXml("a<b & \"c\" > 'd'"), "a&lt;b &amp; &quot;c&quot; &gt; &#39;d&#39;");
  EXPECT_EQ(EscapeXml("&amp;"), "&amp;amp;");  // no double-escape shortcuts: & is always escaped
}

TEST(ReporterXmlWriterTest, StripsCharactersIllegalInXml10) {
  EXPECT_EQ(EscapeXml(std::string("a\x01"
                                  "b\x08\x0B\x0C\x1F"
                                  "c\0d",
                                  10)),
            "abcd");
  EXPECT_EQ(EscapeXml("x\xEF\xBF\xBEy\xEF\xBF\xBFz"), "xyz");          // U+FFFE, U+FFFF
  EXPECT_EQ(EscapeXml("µ×—\xF0\x9F\x98\x80"), "µ×—\xF0\x9F\x98\x80");  // valid UTF-8 is kept
  EXPECT_EQ(EscapeXml("a\xFF"
                      "b\xED\xA0\x80"),
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(ReporterXmlWriterTest, WhitespaceKeptInTextAndReferencedInAttributes) {
  EXPECT_EQ(EscapeXml("a\tb\nc\r", XmlContext::kText), "a\tb\nc\r");
  EXPECT_EQ(EscapeXml("a\tb\nc\r", XmlContext::kAttribute), "a&#9;b&#10;c&#13;");
}

TEST(ReporterXmlWriterTest, WritesNestedElements) {
  std::ostringstream out;
  {
    XmlWriter xml(out);
    xml.WriteDeclaration();
    xml.StartElement("a").Attribute("n", int64_t{3});
    xml.StartElement("b").Attribute("q", "x\"<y\x01").EndElement();
    xml.StartElement("c").Text("1 < 2 & 'ok'").EndElement();
    // <a> left open: the destructor closes it.
  }
  EXPECT_EQ(out.str(),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<a n=\"3\">\n"
            "  <b q=\"x&quot;&lt;y\"/>\n"
            "  <c>1 &lt; 2 &amp; &#39;ok&#39;</c>\n"
            "</a>\n");
}

// --- Per-format details --------------------------------------------------------------------------

TEST(ReporterJunitTest, ErrorVerdictAndCounts) {
  auto run = testing::MakeSampleRun();
  run->report.results[0].verdict = Verdict::kError;
  run->report.results[0].error = "lost connection <worker.2> & \x02gave up";
  const std::string xml = Render("junit", run->report);
  EXPECT_THAT(xml,
              HasSubstr("<testsuites name=\"racelab\" tests=\"2\" failures=\"1\" errors=\"1\""));
  EXPECT_THAT(xml, HasSubstr("<testsuite name=\"guarded-cas-claim [read committed]\" tests=\"1\" "
                             "failures=\"0\" errors=\"1\" skipped=\"0\""));
  EXPECT_THAT(xml, HasSubstr("<error message=\"lost connection &lt;worker.2&gt; &amp; gave up\""));
  EXPECT_THAT(xml, Not(HasSubstr("\x02")));
}

// An interrupted result (SIGINT/SIGTERM, every trial that ran passed) is neither a pass nor an
// error in any format: JSON counts it apart, JUnit shows it skipped with what cut it short.
TEST(ReporterInterruptedTest, EveryFormatNamesItAndNoneCountsItAnError) {
  auto run = testing::MakeSampleRun();
  ResultSummary& r = run->report.results[0];
  r.verdict = Verdict::kInterrupted;
  r.interrupted = "interrupted during trial 4 of 20; that trial is not evaluated";
  const nlohmann::json j = nlohmann::json::parse(Render("json", run->report));
  EXPECT_EQ(j["results"][0]["verdict"], "interrupted");
  EXPECT_EQ(j["results"][0]["interrupted"], r.interrupted);
  EXPECT_FALSE(j["results"][0].contains("error"));
  EXPECT_EQ(j["summary"]["error"], 0);
  EXPECT_EQ(j["summary"]["interrupted"], 1);
  EXPECT_EQ(j["summary"]["pass"], 0);
  const std::string xml = Render("junit", run->report);
  EXPECT_THAT(xml,
              HasSubstr("<testsuites name=\"racelab\" tests=\"2\" failures=\"1\" errors=\"0\""));
  EXPECT_THAT(xml, HasSubstr("<testsuite name=\"guarded-cas-claim [read committed]\" tests=\"1\" "
                             "failures=\"0\" errors=\"0\" skipped=\"1\""));
  const std::string ran =
      fmt::format("{} — {} trials ran before it, all passed", r.interrupted, r.trials);
  EXPECT_THAT(xml, HasSubstr("<skipped message=\"" + ran + "\"/>"));
  const std::string console = Render("console", run->report);
  EXPECT_THAT(console,
              HasSubstr("interrupted: guarded-cas-claim [read committed]\n  " + ran + "\n"));
  EXPECT_THAT(console, HasSubstr("2 results: 0 pass, 1 fail, 0 error, 1 interrupted"));
  EXPECT_THAT(Render("md", run->report), HasSubstr("Interrupted: " + ran));
  EXPECT_THAT(Render("html", run->report), HasSubstr("class=\"verdict v-interrupted\""));
  // Unchanged for a run nobody interrupted: no count, no field.
  auto plain = testing::MakeSampleRun();
  EXPECT_THAT(Render("console", plain->report), Not(HasSubstr("interrupted")));
  EXPECT_EQ(nlohmann::json::parse(Render("json", plain->report))["summary"]["interrupted"], 0);
}

TEST(ReporterMarkdownTest, GroupsResultsByScenarioAndEscapesPipes) {
  auto run = testing::MakeSampleRun();
  // A second level of the first scenario, appended after the other scenario's result.
  Plan plan;
  plan.items = {run->plan.items[0], run->plan.items[1], run->plan.items[0]};
  plan.items[2].isolation = IsolationLevel::kRepeatableRead;
  RunReport report = run->report;
  report.results.push_back(report.results[0]);
  for (size_t i = 0; i < 3; ++i) report.results[i].item = &plan.items[i];

  const std::string md = Render("md", report);
  const size_t cas = md.find("## guarded-cas-claim");
  const size_t naive = md.find("## naive-select-then-update");
  ASSERT_NE(cas, std::string::npos);
  ASSERT_NE(naive, std::string::npos);
  EXPECT_EQ(md.find("## guarded-cas-claim", cas + 1), std::string::npos)
      << "one section per scenario";
  const size_t rc = md.find("### read committed", cas);
  const size_t rr = md.find("### repeatable read", cas);
  EXPECT_LT(rc, rr);
  EXPECT_LT(naive, cas) << "scenarios with a failing result come first";
  // In a table cell: '|', '<' and '&' escaped (reports/markdown_reporter.cc, Text).
  EXPECT_THAT(
      md,
      HasSubstr("| final SELECT error FROM runs WHERE id=1 = a\\<b \\& \"c\" \\| 'd' | 1 | 1 |"));
}

// Occurrences of `needle` in `text`.
size_t Count(const std::string& text, std::string_view needle) {
  size_t n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) {
    ++n;
  }
  return n;
}

// Empty when every start tag after the doctype has its end tag, properly nested (self-closed and
// HTML void elements excepted); else what went wrong. Enough for XmlWriter's output, where '<'
// and '>' never appear unescaped in text or attribute values.
std::string TagBalanceError(const std::string& html) {
  std::vector<std::string> open;
  for (size_t pos = html.find('<'); pos != std::string::npos; pos = html.find('<', pos + 1)) {
    const size_t end = html.find('>', pos);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(pos);
    const std::string tag = html.substr(pos + 1, end - pos - 1);
    if (tag.empty() || tag[0] == '!' || tag.back() == '/') continue;
    if (tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (open.empty() || open.back() != name) {
        return "</" + name + "> closes <" + (open.empty() ? "" : open.back()) + ">";
      }
      open.pop_back();
    } else {
      open.push_back(tag.substr(0, tag.find_first_of(" \n")));
    }
  }
  return open.empty() ? "" : "<" + open.back() + "> never closed";
}

TEST(ReporterHtmlTest, OneSvgPerResultEscapedAndBalanced) {
  auto run = testing::MakeSampleRun();
  const std::string html = Render("html", run->report);
  EXPECT_THAT(html, ::testing::StartsWith("<!DOCTYPE html>\n<html lang=\"en\">"));
  EXPECT_EQ(Count(html, "<svg "), run->report.results.size());
  EXPECT_EQ(Count(html, "</svg>"), run->report.results.size());
  EXPECT_EQ(TagBalanceError(html), "");
  // The sample's nasty string, in text and in attribute-free cells alike, only ever escaped.
  EXPECT_THAT(html, HasSubstr("note=a&lt;b &amp; &quot;c&quot; | &#39;d&#39;"));
  EXPECT_THAT(html, HasSubstr("first failure"));
  EXPECT_THAT(html, Not(HasSubstr("a<b")));
  // Self-contained and static: no script, no external resources.
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("src=")));
  EXPECT_THAT(html, Not(HasSubstr("<link")));
  // The picture: lock wait with its tooltip, the barrier line and its name.
  EXPECT_THAT(html, HasSubstr("class=\"bar b-lock\""));
  EXPECT_THAT(html, HasSubstr("blocked 2.678 ms by worker.1 (transactionid, seen by poll)"));
  EXPECT_THAT(html, HasSubstr("<g class=\"barrier\">"));
}

TEST(ReporterHtmlTest, ErrorAndEmptyReport) {
  auto run = testing::MakeSampleRun();
  run->report.results[0].verdict = Verdict::kError;
  run->report.results[0].error = "lost connection <worker.2> & \x02gave up";
  run->report.results[0].trial_details.clear();  // no picture without a trial
  const std::string html = Render("html", run->report);
  EXPECT_THAT(html, HasSubstr("<td class=\"v-error\">error</td>"));
  EXPECT_THAT(html, HasSubstr("Error: lost connection &lt;worker.2&gt; &amp; gave up"));
  EXPECT_EQ(Count(html, "<svg "), 1u);
  EXPECT_EQ(TagBalanceError(html), "");

  const std::string empty = Render("html", RunReport{});
  EXPECT_THAT(empty, HasSubstr("0 results: 0 pass, 0 fail, 0 error"));
  EXPECT_EQ(TagBalanceError(empty), "");
}

TEST(ReporterConsoleTest, EndsWithCountsLine) {
  auto run = testing::MakeSampleRun();
  const std::string text = Render("console", run->report);
  EXPECT_THAT(text, ::testing::EndsWith("\n2 results: 1 pass, 1 fail, 0 error\n"));
  EXPECT_THAT(text, HasSubstr("first failure: trial 2: got NULL"));
}

TEST(ReporterConsoleTest, EmptyReport) {
  EXPECT_EQ(Render("console", RunReport{}),
            "scenario  isolation  verdict  winners  errors  retries  blocked p95 ms  skew p95 µs\n"
            "\n0 results: 0 pass, 0 fail, 0 error\n");
}

}  // namespace
}  // namespace racelab

namespace racelab {
namespace {

// --- md-summary ----------------------------------------------------------------------------------

TEST(ReporterMdSummaryTest, FailuresFirstAndTheTableFolded) {
  auto run = testing::MakeSampleRun();
  const std::string md = Render("md-summary", run->report);
  const size_t failures = md.find("## Failures");
  const size_t table = md.find("<details><summary>All 2 results</summary>");
  ASSERT_NE(failures, std::string::npos) << md;
  ASSERT_NE(table, std::string::npos) << md;
  EXPECT_LT(failures, table);
  EXPECT_THAT(md, HasSubstr("- **naive-select-then-update \\[serializable\\]**: fail (2 trials)"));
  EXPECT_THAT(md, HasSubstr("failed in 1 of 2 trials; trial 2: got NULL"));
  EXPECT_THAT(md, Not(HasSubstr("Summary cut"))) << "a small report is not cut";
  EXPECT_THAT(md, Not(HasSubstr("| t ms |"))) << "no trial timelines in the summary";
}

TEST(ReporterMdSummaryTest, AHugeRunIsCutUnder64KbWithANote) {
  auto run = testing::MakeSampleRun();
  // 3,000 failing results with long expectation texts and errors: megabytes before the cut.
  const ResultSummary failing = run->report.results[1];
  run->report.results.clear();
  for (int i = 0; i < 3000; ++i) {
    ResultSummary r = failing;
    r.error = std::string(2000, 'e') + "é";  // clipped, never split inside a UTF-8 character
    run->report.results.push_back(r);
  }
  const std::string md = Render("md-summary", run->report);
  EXPECT_LE(md.size(), 61440u);
  EXPECT_THAT(md, HasSubstr("_Summary cut at 60 KB for a pull-request comment: "));
  EXPECT_THAT(md, HasSubstr("racelab.md and racelab.json._\n"));
  EXPECT_EQ(Count(md, "<details"), Count(md, "</details>")) << "an open <details> is closed";
  EXPECT_THAT(md, ::testing::StartsWith("# racelab summary\n"));
  // Every value is clipped: no 2,000-byte error survives.
  EXPECT_THAT(md, Not(HasSubstr(std::string(1000, 'e'))));
}

TEST(ReporterMdSummaryTest, FitToBudgetKeepsWholeLines) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "line " + std::to_string(i) + " ünïcödé\n";
  const std::string fitted = internal::FitToBudget(text);
  EXPECT_LE(fitted.size(), internal::kMaxSummaryBytes);
  const size_t note = fitted.find("\n_Summary cut");
  ASSERT_NE(note, std::string::npos);
  EXPECT_EQ(text.compare(0, note, fitted, 0, note), 0) << "a prefix of whole lines";
  EXPECT_EQ(internal::FitToBudget("short\n"), "short\n");
}

}  // namespace
}  // namespace racelab

// A session ended by an error whose SQLSTATE is generic is named by the engine's code in its lane
// (SQLite's SQLITE_BUSY, not HY000), and the JSON keeps both.
TEST(ReporterTimelineTest, LaneNamesTheEngineCodeOfAGenericSqlstate) {
  racelab::TrialResult trial;
  racelab::SessionResult busy;
  busy.label = "writer";
  busy.role = "writer";
  busy.sqlstate = "HY000";
  busy.error_code = "SQLITE_BUSY";
  racelab::SessionResult pg = busy;
  pg.label = "other";
  pg.sqlstate = "40001";
  pg.error_code = "";
  trial.sessions = {busy, pg};
  std::ostringstream svg;
  {
    racelab::XmlWriter xml(svg);
    racelab::internal::WriteSvgTimeline(trial, xml);
  }
  EXPECT_THAT(svg.str(), ::testing::HasSubstr("ended by SQLITE_BUSY"));
  EXPECT_THAT(svg.str(), ::testing::Not(::testing::HasSubstr("ended by HY000")));
  EXPECT_THAT(svg.str(), ::testing::HasSubstr("ended by 40001"));
}
