// "html" reporter: racelab.html, one self-contained page for a person (a teacher projecting it, a
// reviewer opening a CI artifact). Inline CSS, no JavaScript, no external resources.
//
// Layout: title; target lines (one per engine) and run line; **failures first** (each result that
// did not pass, linked, with its failing expectations); for a run of several engines the
// side-by-side table (one column per engine, reports/engine_table.h); the summary table (scenario ×
// isolation level: verdict in colour, winners histogram, errors with their condition names,
// retries, blocked ms p50/p95/max, skew µs p50/p95); the isolation anomaly matrix when the run
// has anomaly-* results (reports/html_matrix.h); then one section per scenario — scenarios with
// a failing result first, then the others, each in order of first appearance —: title, the
// `teaches` lesson (blank lines split paragraphs), file and params, and per result (isolation
// level) its expectations table and its representative trial (reports/html_trial.h: timeline,
// notes, the steps with their labels and SQL). Every element and every piece of text goes through
// XmlWriter, the one escaping writer (reports/html_util.h). Output is deterministic: the only date
// is RunReport::created_at.

#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "harness/model/isolation.h"
#include "reports/engine_table.h"
#include "reports/format_util.h"
#include "reports/html_matrix.h"
#include "reports/html_trial.h"
#include "reports/html_util.h"
#include "reports/reporters.h"
#include "reports/svg_timeline.h"
#include "reports/xml_writer.h"

namespace racelab::internal {
namespace {

constexpr std::string_view kPageCss = R"css(
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;font-size:16px;line-height:1.45;color:#212529;max-width:1280px;margin:0 auto;padding:16px 24px 48px}
h1{font-size:28px;margin:8px 0}
h2{font-size:22px;margin:36px 0 8px;padding-top:12px;border-top:3px solid #dee2e6}
h3{font-size:18px;margin:24px 0 8px}
p{margin:6px 0}
p.meta{color:#495057;font-size:14px}
p.teaches{font-size:17px;max-width:62em;background:#f8f9fa;border-left:4px solid #4dabf7;padding:6px 12px;margin:4px 0}
p.error{color:#8a1111;font-weight:600}
pre.command{font-size:13px;background:#f1f3f5;padding:6px 10px;white-space:pre-wrap;word-break:break-all;margin:6px 0}
code{font-size:14px;background:#f1f3f5;padding:1px 4px}
table{border-collapse:collapse;margin:8px 0;font-size:15px}
th,td{border:1px solid #ced4da;padding:4px 10px;text-align:left;vertical-align:top}
th{background:#e9ecef}
td.num{text-align:right;font-variant-numeric:tabular-nums}
table.summary{font-size:14px}
table.summary th,table.summary td{padding:4px 8px}
table.summary td{white-space:nowrap}
table.summary th{vertical-align:bottom}
table.summary td.errors{white-space:normal;max-width:11em}
table.summary td.scenario{white-space:normal;min-width:9em;max-width:15em}
table.summary td.isolation{white-space:normal}
table.summary td.params{white-space:normal;max-width:14em;overflow-wrap:anywhere;font-size:13px}
table.summary td.params details{margin:0}
table.summary td.params summary{white-space:nowrap}
tr.failed td{background:#fff5f5}
.verdict{font-weight:700;padding:1px 8px;border-radius:4px}
.v-pass{background:#d3f9d8;color:#1b5e20}
.v-fail{background:#ffc9c9;color:#8a1111}
.v-error{background:#ffe8cc;color:#7a3e00}
.v-interrupted{background:#e9ecef;color:#343a40}
td.v-pass,td.v-fail,td.v-error,td.v-interrupted{font-weight:700;text-align:center}
td.engine-cell{font-weight:400;text-align:left}
td.engine-cell a{color:inherit}
td.missing{color:#868e96}
a{color:#1864ab}
ul.notes{margin:4px 0;padding-left:22px;font-size:15px}
ul.notes li.failed,ul.failures li.failed{color:#8a1111;font-weight:600}
details{margin:6px 0 12px}
summary{cursor:pointer;color:#1864ab}
)css";
static_assert(NeedsNoEscaping(kPageCss), "CSS inside <style> is not unescaped by the browser");

void WriteHead(XmlWriter& xml) {
  xml.StartElement("head");
  xml.StartElement("meta").Attribute("charset", "utf-8").EndElement();
  xml.StartElement("meta")
      .Attribute("name", "viewport")
      .Attribute("content", "width=device-width, initial-scale=1")
      .EndElement();
  Leaf(xml, "title", "racelab report");
  xml.StartElement("style")
      .Text(std::string(kPageCss) + std::string(TimelineCss()) + std::string(HtmlTrialCss()) +
            std::string(AnomalyMatrixCss()))
      .EndElement();
  xml.EndElement();
}

void WriteTarget(const TargetInfo& target, XmlWriter& xml) {
  std::string where = fmt::format("Target: {} {}, {}", target.engine, target.server_version,
                                  target.embedded ? "embedded" : "external");
  if (!target.embedded && !target.dsn_redacted.empty()) where += " " + target.dsn_redacted;
  if (!target.settings.empty()) where += " (" + FormatParams(target.settings) + ")";
  Leaf(xml, "p", where, "meta");
}

void WriteHeader(const RunReport& report, XmlWriter& xml) {
  Leaf(xml, "h1", "racelab report");
  if (report.targets.empty()) WriteTarget(report.target, xml);
  for (const TargetInfo& target : report.targets)
    WriteTarget(target, xml);  // a run of several engines
  Leaf(xml, "p",
       fmt::format("Run: racelab {}, {}, seed {}", report.racelab_version, report.created_at,
                   report.seed),
       "meta");
  if (!report.command.empty()) Leaf(xml, "pre", report.command, "command");
  Leaf(xml, "p", CountsLine(CountVerdicts(report.results)));
  if (!report.run_error.empty())
    Leaf(xml, "p", "The run ended early: " + report.run_error, "error");
  if (!report.not_run.empty()) {
    std::string names;
    for (const NotRunResult& n : report.not_run) {
      names += (names.empty() ? "" : ", ") + EngineResultLabel(report, ItemOf(n));
    }
    Leaf(xml, "p",
         fmt::format("Not run ({}): {}: {}", report.not_run.size(), report.not_run.front().reason,
                     names),
         "error");
  }
}

// Failures first, as racelab.md has them: each result that did not pass, linked to its section,
// with its error and its failing expectations (the run's error and what did not run are in the
// header). Nothing when every result passed.
void WriteFailures(const RunReport& report, XmlWriter& xml) {
  if (std::all_of(report.results.begin(), report.results.end(),
                  [](const ResultSummary& r) { return r.verdict == Verdict::kPass; })) {
    return;
  }
  Leaf(xml, "h2", "Failures");
  xml.StartElement("ul").Attribute("class", "failures");
  for (size_t i = 0; i < report.results.size(); ++i) {
    const ResultSummary& r = report.results[i];
    if (r.verdict == Verdict::kPass) continue;
    const PlanItem& item = ItemOf(r);
    xml.StartElement("li");
    xml.StartElement("a").Attribute("href", fmt::format("#result-{}", i + 1));
    xml.Text(EngineResultLabel(report, item)).EndElement();
    Leaf(xml, "span", VerdictName(r.verdict), "verdict " + VerdictClass(r.verdict));
    Leaf(xml, "span",
         fmt::format("{} trial{}{}", r.trials, r.trials == 1 ? "" : "s",
                     item.params.empty() ? "" : " with " + FormatParams(item.params)));
    xml.StartElement("ul");
    if (!r.error.empty()) Leaf(xml, "li", "error: " + r.error);
    if (!r.interrupted.empty()) Leaf(xml, "li", InterruptedText(r));
    for (const ExpectationTally& e : r.expectations) {
      if (!e.Failing()) continue;
      Leaf(xml, "li",
           fmt::format("{}: failed in {} of {} trials; {}", e.text, e.failed, r.trials,
                       e.first_failure),
           "failed");
    }
    xml.EndElement();
    xml.EndElement();
  }
  xml.EndElement();
}

// A run of several engines: one row per scenario × level (× params), one column per engine
// (reports/engine_table.h); each cell in its verdict's colour, linked to its result's section.
void WriteSideBySide(const RunReport& report, XmlWriter& xml) {
  if (!SeveralEngines(report)) return;
  const EngineTable table = BuildEngineTable(report);
  const bool with_params = std::any_of(table.rows.begin(), table.rows.end(),
                                       [](const EngineRow& row) { return row.params != kNone; });
  Leaf(xml, "h2", "Side by side");
  xml.StartElement("table").Attribute("class", "summary side-by-side");
  xml.StartElement("tr");
  Leaf(xml, "th", "scenario");
  Leaf(xml, "th", "isolation");
  if (with_params) Leaf(xml, "th", "params");
  for (const std::string& engine : table.engines) Leaf(xml, "th", engine);
  xml.EndElement();
  for (const EngineRow& row : table.rows) {
    xml.StartElement("tr");
    Leaf(xml, "td", row.scenario);
    Leaf(xml, "td", row.isolation);
    if (with_params) Leaf(xml, "td", row.params);
    for (const EngineCell& cell : row.cells) {
      if (cell.result == nullptr) {
        Leaf(xml, "td", "— " + cell.missing, "missing");
        continue;
      }
      xml.StartElement("td").Attribute("class",
                                       "engine-cell " + VerdictClass(cell.result->verdict));
      xml.StartElement("a").Attribute(
          "href", fmt::format("#result-{}", cell.result - report.results.data() + 1));
      xml.Text(EngineCellText(*cell.result)).EndElement();
      xml.EndElement();
    }
    xml.EndElement();
  }
  xml.EndElement();
  Leaf(xml, "p",
       "One column per engine: verdict · winners (count×trials) · the most frequent "
       "error×occurrences · "
       "statements seen in a lock wait; — = not run on that engine, and why.",
       "legend");
}

// A summary row's params; a long text (a converted spec's `order=t1.begin t1.write_x …`) folded
// under its first words, so that the row keeps one line until a reader opens it.
void WriteParamsCell(const std::string& params, XmlWriter& xml) {
  constexpr size_t kFoldAt = 16;  // bytes; the cut moves back to a space or comma
  if (params.size() <= kFoldAt + 8) {
    Leaf(xml, "td", params, "params");
    return;
  }
  size_t cut = params.find_last_of(" ,", kFoldAt);
  if (cut == std::string::npos || cut < kFoldAt / 2) cut = kFoldAt;
  while (cut > 0 && (static_cast<unsigned char>(params[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
  xml.StartElement("td").Attribute("class", "params");
  xml.StartElement("details");
  Leaf(xml, "summary", params.substr(0, cut) + " …");
  Leaf(xml, "span", params);
  xml.EndElement();
  xml.EndElement();
}

void WriteSummaryTable(const RunReport& report, XmlWriter& xml) {
  const bool several = SeveralEngines(report);
  // Params in a column of their own (it wraps: a converted spec's `order=…` is long), when any
  // result has them.
  const bool with_params =
      std::any_of(report.results.begin(), report.results.end(),
                  [](const ResultSummary& r) { return !ItemOf(r).params.empty(); });
  Leaf(xml, "h2", "Summary");
  xml.StartElement("table").Attribute("class", "summary");
  xml.StartElement("tr");
  Leaf(xml, "th", "scenario");
  if (several) Leaf(xml, "th", "engine");
  Leaf(xml, "th", "isolation");
  if (with_params) Leaf(xml, "th", "params");
  for (std::string_view name : {"verdict", "trials", "winners", "errors", "retries",
                                "blocked ms p50 / p95 / max", "skew µs p50 / p95"}) {
    Leaf(xml, "th", name);
  }
  xml.EndElement();
  for (size_t i = 0; i < report.results.size(); ++i) {
    const ResultSummary& r = report.results[i];
    const PlanItem& item = ItemOf(r);
    const std::string skew = r.skew_us.count == 0 ? std::string(kNone)
                                                  : FormatSkewUs(r.skew_us, r.skew_us.p50) + " / " +
                                                        FormatSkewUs(r.skew_us, r.skew_us.p95);
    xml.StartElement("tr");
    xml.StartElement("td").Attribute("class", "scenario");  // long names wrap at their hyphens
    xml.StartElement("a").Attribute("href", fmt::format("#result-{}", i + 1));
    xml.Text(item.scenario).EndElement();
    xml.EndElement();
    if (several) Leaf(xml, "td", item.engine);
    Leaf(xml, "td", IsolationName(item.isolation), "isolation");
    if (with_params) WriteParamsCell(FormatParams(item.params), xml);
    const std::string verdict_class = VerdictClass(r.verdict);
    Leaf(xml, "td", VerdictName(r.verdict), verdict_class);
    Leaf(xml, "td", std::to_string(r.trials), "num");
    Leaf(xml, "td", Histogram(r.winners));
    // Named codes are long ("25P03 idle_in_transaction_session_timeout×20"): this cell wraps.
    Leaf(xml, "td", NamedErrorHistogram(item.engine, r.errors), "errors");
    Leaf(xml, "td", std::to_string(r.retries), "num");
    Leaf(xml, "td", FormatBlockedMs(r.blocked_ms), "num");
    Leaf(xml, "td", skew, "num");
    xml.EndElement();
  }
  xml.EndElement();
  Leaf(xml, "p",
       std::string(kSummaryLegend) +
           " On this page each code has the name its engine gives it, where it gives one: "
           "PostgreSQL's SQLSTATE condition names (40001 serialization_failure), MariaDB's error "
           "symbols (1213 ER_LOCK_DEADLOCK; its deadlock counts as 40001, shown bare).",
       "legend");
}

// The run's anomaly-* results as the isolation anomaly matrix (RunReport::anomaly_matrix), when it
// has them.
void WriteAnomalyMatrix(const RunReport& report, XmlWriter& xml) {
  if (!report.anomaly_matrix || report.anomaly_matrix->rows.empty()) return;
  xml.StartElement("h2").Attribute("id", "anomaly-matrix").Text("Isolation anomaly matrix");
  xml.EndElement();
  WriteAnomalyMatrixTable(*report.anomaly_matrix, xml);
  Leaf(xml, "p", AnomalyMatrixLegend(), "legend");
}

void WriteResultSection(const ResultSummary& r, size_t number, bool show_params,
                        bool several_engines, XmlWriter& xml) {
  const PlanItem& item = ItemOf(r);
  xml.StartElement("h3").Attribute("id", fmt::format("result-{}", number));
  Leaf(xml, "span", VerdictName(r.verdict), "verdict " + VerdictClass(r.verdict));
  Leaf(xml, "span",
       fmt::format("{}{} · {} trial{}", several_engines ? item.engine + " · " : "",
                   IsolationName(item.isolation), r.trials, r.trials == 1 ? "" : "s"));
  xml.EndElement();
  if (show_params) Leaf(xml, "p", "Params: " + FormatParams(item.params));
  if (!r.error.empty()) Leaf(xml, "p", "Error: " + r.error, "error");
  if (!r.interrupted.empty()) Leaf(xml, "p", "Interrupted: " + InterruptedText(r));
  if (!r.expectations.empty()) {
    xml.StartElement("table").Attribute("class", "expectations");
    HeaderRow(xml, {"expectation", "passed", "failed", "first failure"});
    for (const ExpectationTally& e : r.expectations) {
      xml.StartElement("tr");
      if (e.Failing()) xml.Attribute("class", "failed");
      Leaf(xml, "td",
           e.max_widened_by_ms > 0 ? fmt::format("{} (widened by at most {} ms in these trials)",
                                                 e.text, FormatMs(e.max_widened_by_ms))
                                   : e.text);
      Leaf(xml, "td", std::to_string(e.passed), "num");
      Leaf(xml, "td", std::to_string(e.failed), "num");
      Leaf(xml, "td", e.Failing() ? e.first_failure : "");
      xml.EndElement();
    }
    xml.EndElement();
  }
  WriteHtmlTrial(r, xml);
}

// The `teaches` lesson: one <p> per paragraph (paragraphs are separated by a blank line).
void WriteTeaches(std::string_view teaches, XmlWriter& xml) {
  std::string paragraph;
  const auto flush = [&] {
    while (!paragraph.empty() && (paragraph.back() == ' ' || paragraph.back() == '\n')) {
      paragraph.pop_back();
    }
    if (!paragraph.empty()) Leaf(xml, "p", paragraph, "teaches");
    paragraph.clear();
  };
  size_t pos = 0;
  while (pos <= teaches.size()) {
    size_t end = teaches.find('\n', pos);
    if (end == std::string_view::npos) end = teaches.size();
    std::string_view line = teaches.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) {
      flush();
    } else {
      if (!paragraph.empty()) paragraph += '\n';
      paragraph += line;
    }
    pos = end + 1;
  }
  flush();
}

void WriteScenarioSection(const ScenarioGroup& group, const RunReport& report, XmlWriter& xml) {
  const PlanItem& first = ItemOf(*group.results.front());
  xml.StartElement("section");
  Leaf(xml, "h2", first.title.empty() ? group.scenario : group.scenario + ": " + first.title);
  WriteTeaches(first.teaches, xml);
  const bool same_params =
      std::all_of(group.results.begin(), group.results.end(),
                  [&](const ResultSummary* r) { return ItemOf(*r).params == first.params; });
  std::vector<std::string> facts;
  if (!first.file.empty()) facts.push_back("File: " + first.file);
  if (same_params) facts.push_back("Params: " + FormatParams(first.params));
  if (!facts.empty()) Leaf(xml, "p", fmt::format("{}", fmt::join(facts, " · ")), "meta");
  for (const ResultSummary* r : group.results) {
    const size_t number = static_cast<size_t>(r - report.results.data()) + 1;
    WriteResultSection(*r, number, !same_params, SeveralEngines(report), xml);
  }
  xml.EndElement();
}

class HtmlReporter : public Reporter {
 public:
  std::string_view name() const override { return "html"; }
  std::string_view file_name() const override { return "racelab.html"; }
  void Write(const RunReport& report, std::ostream& out) const override {
    out << "<!DOCTYPE html>\n";
    XmlWriter xml(out);
    xml.StartElement("html").Attribute("lang", "en");
    WriteHead(xml);
    xml.StartElement("body");
    WriteHeader(report, xml);
    WriteFailures(report, xml);
    WriteSideBySide(report, xml);
    WriteSummaryTable(report, xml);
    WriteAnomalyMatrix(report, xml);
    const std::vector<ScenarioGroup> groups = GroupByScenario(report.results);
    for (const bool failing : {true, false}) {  // scenarios with a failing result first
      for (const ScenarioGroup& group : groups) {
        if (AnyFailing(group) == failing) WriteScenarioSection(group, report, xml);
      }
    }
    xml.Close();
  }
};

}  // namespace

std::unique_ptr<Reporter> MakeHtmlReporter() { return std::make_unique<HtmlReporter>(); }

}  // namespace racelab::internal
