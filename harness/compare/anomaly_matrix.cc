#include "harness/compare/anomaly_matrix.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "harness/compare/compare_command.h"
#include "harness/compare/report_file.h"
#include "harness/model/terminal_text.h"
#include "reports/html_matrix.h"
#include "reports/xml_writer.h"

namespace racelab::compare {
namespace {

std::string Column(const ResultView& r, bool several_engines) {
  return several_engines ? r.engine + " " + r.isolation : r.isolation;
}

// Markdown text: syntax characters backslash-escaped, line breaks as spaces.
std::string Md(std::string_view text) {
  static constexpr std::string_view kSyntax = "\\`*_[]<>!#|~&$";
  std::string out;
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7F)
      out += ' ';
    else {
      if (kSyntax.find(ch) != std::string_view::npos) out += '\\';
      out += ch;
    }
  }
  return out;
}

// Rows in the order of the literature, weakest guarantee first (docs/compare.md "Row order"):
// Adya's G0 (PL-1), G1a–G1c (PL-2); Hermitage's OTV and PMP, which every level that prevents G1 and
// no more still lets through in part; P4, lost update (Berenson et al. 1995: prevented by Cursor
// Stability, between READ COMMITTED and REPEATABLE READ; Adya's G-cursor, PL-CS); G-single, read
// skew (Adya's PL-2+; Berenson's A5A); G2-item, write skew (PL-2.99; A5B); G2 (PL-3). This is also
// the column order of Hermitage's summary table (github.com/ept/hermitage, README.md).
constexpr std::string_view kAnomalyOrder[] = {"g0",  "g1a", "g1b",      "g1c",     "otv",
                                              "pmp", "p4",  "g-single", "g2-item", "g2"};

// Rank of a scenario named "anomaly-<id>" (its place in kAnomalyOrder); other scenarios after them.
size_t RowRank(const std::string& scenario) {
  constexpr std::string_view kPrefix = "anomaly-";
  if (scenario.rfind(kPrefix, 0) != 0) return std::size(kAnomalyOrder);
  const std::string_view id = std::string_view(scenario).substr(kPrefix.size());
  for (size_t i = 0; i < std::size(kAnomalyOrder); ++i) {
    if (kAnomalyOrder[i] == id) return i;
  }
  return std::size(kAnomalyOrder);
}

// Levels weakest first; a level racelab does not know goes last.
size_t LevelRank(const std::string& level) {
  constexpr std::string_view kLevels[] = {"read uncommitted", "read committed", "repeatable read",
                                          "serializable"};
  for (size_t i = 0; i < std::size(kLevels); ++i) {
    if (kLevels[i] == level) return i;
  }
  return std::size(kLevels);
}

}  // namespace

namespace {

MatrixCell CellOfTrials(const ResultView& r) {
  MatrixCell c;
  c.expectation_failed = r.verdict == "fail";
  if (r.verdict == "error") {
    c.text = "error";
    return c;
  }
  int64_t seen = 0;
  for (const auto& [winners, trials] : r.winners) {
    if (winners != "0") seen += trials;
  }
  if (seen > 0) {
    c.occurs = true;
    c.text = seen >= r.trials ? "occurs" : fmt::format("occurs {}/{}", seen, r.trials);
    return c;
  }
  // The engine's own codes when the report names them (1205, SQLITE_BUSY say more than HY000).
  std::string every, some;
  for (const auto& [code, count] : r.errors ? *r.errors : r.sqlstates) {
    if (count >= r.trials)
      every += (every.empty() ? "" : ", ") + code;
    else if (count > 0)
      some += fmt::format("{}{} ×{}", some.empty() ? "" : ", ", code, count);
  }
  c.by_error = !every.empty();
  c.text = c.by_error ? "prevented by error (" + every + ")" : "prevented";
  if (!some.empty()) c.text += " (" + some + ")";
  return c;
}

}  // namespace

MatrixCell CellOf(const ResultView& r) {
  MatrixCell c = CellOfTrials(r);
  // Cut short by SIGINT/SIGTERM: what the trials that ran showed, and that they were fewer.
  if (c.text != "error" && (r.verdict == "interrupted" || !r.interrupted.empty())) {
    c.text += fmt::format(" (interrupted after {} trial{})", r.trials, r.trials == 1 ? "" : "s");
  }
  return c;
}

AnomalyMatrix BuildMatrix(const ReportView& report, const std::string& engine) {
  AnomalyMatrix m;
  std::vector<const ResultView*> results;
  std::vector<std::string> engines;  // first seen first
  for (const auto& r : report.results) {
    if (!engine.empty() && r.engine != engine) continue;
    if (r.scenario.rfind("anomaly-", 0) != 0) {
      // Its winners are not sessions that saw an anomaly (a claim's winner, a lock holder): no
      // cell.
      if (std::find(m.left_out.begin(), m.left_out.end(), r.scenario) == m.left_out.end()) {
        m.left_out.push_back(r.scenario);
      }
      continue;
    }
    results.push_back(&r);
    if (std::find(engines.begin(), engines.end(), r.engine) == engines.end())
      engines.push_back(r.engine);
  }
  m.engines = engines;
  const bool several = engines.size() > 1;
  // Columns: per engine (first seen first), its levels weakest first.
  std::vector<std::pair<std::pair<size_t, size_t>, std::string>>
      columns;  // ((engine, level rank), name)
  for (const ResultView* r : results) {
    const std::string col = Column(*r, several);
    if (std::none_of(columns.begin(), columns.end(),
                     [&](const auto& c) { return c.second == col; })) {
      const size_t e = std::find(engines.begin(), engines.end(), r->engine) - engines.begin();
      columns.push_back({{e, LevelRank(r->isolation)}, col});
    }
  }
  std::stable_sort(columns.begin(), columns.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& c : columns) m.columns.push_back(c.second);
  std::map<std::string, size_t> row_of;
  for (const ResultView* r : results) {
    auto [it, fresh] = row_of.emplace(r->scenario, m.rows.size());
    if (fresh) m.rows.push_back({r->scenario, std::vector<MatrixCell>(m.columns.size())});
    const size_t col =
        std::find(m.columns.begin(), m.columns.end(), Column(*r, several)) - m.columns.begin();
    auto& cell = m.rows[it->second].cells[col];
    if (cell.text.empty()) cell = CellOf(*r);  // several param sets: the first
  }
  std::stable_sort(m.rows.begin(), m.rows.end(), [](const auto& a, const auto& b) {
    return RowRank(a.scenario) < RowRank(b.scenario);
  });
  return m;
}

void WriteMatrixConsole(const AnomalyMatrix& m, std::ostream& out) {
  size_t first = 8;
  for (const auto& row : m.rows) first = std::max(first, row.scenario.size());
  std::vector<size_t> width;
  for (size_t c = 0; c < m.columns.size(); ++c) {
    size_t w = m.columns[c].size();
    for (const auto& row : m.rows) w = std::max(w, MatrixCellText(row.cells[c]).size());
    width.push_back(w);
  }
  std::string line = fmt::format("{:<{}}", "scenario", first);
  for (size_t c = 0; c < m.columns.size(); ++c)
    line += fmt::format("  {:<{}}", m.columns[c], width[c]);
  out << SanitizeForTerminal(line) << "\n";
  for (const auto& row : m.rows) {
    line = fmt::format("{:<{}}", row.scenario, first);
    for (size_t c = 0; c < m.columns.size(); ++c)
      line += fmt::format("  {:<{}}", MatrixCellText(row.cells[c]), width[c]);
    out << SanitizeForTerminal(line) << "\n";
  }
}

void WriteMatrixMarkdown(const AnomalyMatrix& m, const std::string& source, std::ostream& out) {
  out << "# Isolation anomaly matrix"
      << (m.engines.size() == 1 ? " — " + Md(m.engines.front()) : "") << "\n\nObserved in `"
      << Md(source)
      << "`: occurs = a session saw the anomaly; prevented by error (SQLSTATE) = no trial saw it "
         "and the "
         "server aborted a transaction of the interleaving in every trial; prevented = no trial "
         "saw it.\n\n";
  out << "| scenario |";
  for (const auto& c : m.columns) out << " " << Md(c) << " |";
  out << "\n|---|";
  for (size_t i = 0; i < m.columns.size(); ++i) out << "---|";
  out << "\n";
  for (const auto& row : m.rows) {
    out << "| " << Md(row.scenario) << " |";
    for (const auto& cell : row.cells)
      out << " "
          << (cell.occurs ? "**" + Md(MatrixCellText(cell)) + "**" : Md(MatrixCellText(cell)))
          << " |";
    out << "\n";
  }
}

void WriteMatrixHtml(const AnomalyMatrix& m, const std::string& source, std::ostream& out) {
  out << "<!DOCTYPE html>\n";
  XmlWriter xml(out);
  xml.StartElement("html").Attribute("lang", "en");
  xml.StartElement("head");
  xml.StartElement("meta").Attribute("charset", "utf-8").EndElement();
  xml.StartElement("title").Text("racelab isolation anomaly matrix").EndElement();
  xml.StartElement("style")
      .Text(
          "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
          "td,th{border:1px solid #999;padding:.3em .7em;text-align:left}" +
          std::string(internal::AnomalyMatrixCss()))
      .EndElement();
  xml.EndElement();
  xml.StartElement("body");
  xml.StartElement("h1")
      .Text("Isolation anomaly matrix" +
            (m.engines.size() == 1 ? " — " + m.engines.front() : std::string()))
      .EndElement();
  xml.StartElement("p").Text("Observed in ").StartElement("code").Text(source).EndElement();
  xml.Text(": " + std::string(internal::AnomalyMatrixLegend())).EndElement();
  internal::WriteAnomalyMatrixTable(m, xml);
  xml.Close();
}

void AttachAnomalyMatrix(RunReport* report) {
  report->anomaly_matrix.reset();
  const bool any = std::any_of(report->results.begin(), report->results.end(), [](const auto& r) {
    return r.item != nullptr && r.item->scenario.rfind("anomaly-", 0) == 0;
  });
  if (!any) return;
  Result<ReportView> view = ViewOfRun(*report, "this run");
  if (!view.ok()) return;  // the page then has no matrix; racelab.json and `racelab matrix` remain
  AnomalyMatrix m = BuildMatrix(*view);
  if (!m.rows.empty()) report->anomaly_matrix = std::move(m);
}

CLI::App* AddMatrixSubcommand(CLI::App& app, MatrixArgs* args) {
  auto* m = app.add_subcommand(
      "matrix",
      "Print the isolation anomaly matrix (anomaly × level → occurs / prevented / prevented "
      "by error) observed in a report of racelab run --tag anomalies --format json");
  m->add_option("report", args->report, "racelab.json of the anomalies run")->required();
  m->add_option("--engine", args->engine,
                "Only the results of this engine (postgresql, mariadb, sqlite): the report of "
                "racelab run --engine "
                "NAME --tag anomalies, or a merged report of several engines");
  m->add_option("--format", args->formats, "Outputs: console,md,html")->capture_default_str();
  m->add_option("--out", args->out, "Folder for racelab-matrix.md and racelab-matrix.html")
      ->capture_default_str();
  return m;
}

int MatrixCommand(const MatrixArgs& args) {
  auto usage = [](const std::string& message) {
    std::cerr << "racelab: " << SanitizeForTerminal(message, true) << "\n";
    return 2;
  };
  std::vector<std::string> formats;
  std::stringstream in(args.formats);
  for (std::string f; std::getline(in, f, ',');) {
    if (f.empty()) continue;
    if (f != "console" && f != "md" && f != "html")
      return usage("--format: unknown format '" + f + "' for matrix (valid: console, md, html)");
    formats.push_back(f);
  }
  auto report = ReadReportView(args.report, args.stop);
  if (int code = ExitCodeIfInterrupted(args.stop); code != 0) return code;
  if (!report.ok()) return usage(report.status().message());
  if (report->results.empty())
    return usage(args.report + ": no results (run racelab run --tag anomalies first)");
  const AnomalyMatrix m = BuildMatrix(*report, args.engine);
  if (m.rows.empty() && !m.left_out.empty()) {
    return usage(fmt::format(
        "{}: no anomaly-* scenario{} (G0 … G2; its {} scenario(s) are not anomalies: their "
        "winners are not sessions that saw one) — run racelab run --tag anomalies",
        args.report, args.engine.empty() ? "" : " of engine '" + args.engine + "'",
        m.left_out.size()));
  }
  if (m.rows.empty()) {
    std::set<std::string> engines;
    for (const auto& r : report->results) engines.insert(r.engine);
    std::string listed;
    for (const auto& e : engines) listed += (listed.empty() ? "" : ", ") + e;
    return usage(fmt::format(
        "{}: no result of engine '{}' (it holds {}; run racelab run --engine {} --tag anomalies)",
        args.report, args.engine, listed, args.engine));
  }
  if (!m.left_out.empty()) {
    std::cerr << "racelab: " << m.left_out.size() << " scenario(s) of "
              << SanitizeForTerminal(args.report)
              << " left out, not anomaly-* (their winners are not anomalies): "
              << SanitizeForTerminal(fmt::format("{}", fmt::join(m.left_out, ", "))) << "\n";
  }
  for (const auto& f : formats) {
    if (f == "console") {
      WriteMatrixConsole(m, std::cout);
      continue;
    }
    std::error_code ec;
    std::filesystem::create_directories(args.out, ec);
    const auto path =
        std::filesystem::path(args.out) / (f == "md" ? "racelab-matrix.md" : "racelab-matrix.html");
    std::ofstream file(path);
    if (f == "md")
      WriteMatrixMarkdown(m, args.report, file);
    else
      WriteMatrixHtml(m, args.report, file);
    if (!file) return usage("cannot write " + path.string());
  }
  return 0;
}

}  // namespace racelab::compare
