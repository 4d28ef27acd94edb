// "console" reporter: the summary a person sees in the terminal (stdout, no file).
//
// A fixed-width table, one row per result: scenario, isolation, verdict, winners, errors,
// retries, blocked p95 ms, skew p95 µs, and params when two results of one scenario differ in them
// (an ordered scenario's permutations: order=a.begin b.begin …, as the Markdown names them; failures
// below say "with order=…" too) — or, for a run of several engines, one row per scenario × level and
// one column per engine, side by side (reports/engine_table.h), then each engine's server.
// Column widths are computed from the content (in UTF-8 code points, so "×" and "µ" count as one).
// Under it, for each result that did not pass, its failed expectations with the first failure's detail (or the harness error). The last line counts
// verdicts: "12 results: 11 pass, 1 fail, 0 error" (", 1 interrupted" when a stop request cut one short). Plain text, no colours; every data string goes
// through SanitizeForTerminal, so no value can send an escape sequence to the terminal.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "harness/model/isolation.h"
#include "harness/model/terminal_text.h"
#include "reports/engine_table.h"
#include "reports/format_util.h"
#include "reports/reporters.h"

namespace racelab::internal {
namespace {

constexpr size_t kColumns = 8;
using TableRow = std::array<std::string, kColumns>;

const TableRow kHeader = {"scenario",  "isolation", "verdict",        "winners",
                          "errors",    "retries",   "blocked p95 ms", "skew p95 µs"};
// Numeric columns are right-aligned.
constexpr std::array<bool, kColumns> kRightAligned = {false, false, false, false,
                                                      false, true,  true,  true};

// Display width of UTF-8 text: code points (every byte that is not a continuation byte).
size_t Width(std::string_view text) {
  size_t width = 0;
  for (char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++width;
  }
  return width;
}

// A table cell: control characters escaped, on one line (harness/model/terminal_text.h).
std::string Cell(std::string_view text) { return SanitizeForTerminal(text, /*keep_newlines=*/false); }

// The scenarios (of one engine) whose results differ in params — as an ordered scenario's
// permutations do (`order=a.begin b.begin …`): their results are told apart by their params, as in
// the Markdown report.
std::set<std::pair<std::string, std::string>> ScenariosWithSeveralParams(const RunReport& report) {
  std::map<std::pair<std::string, std::string>, const PlanItem*> first;
  std::set<std::pair<std::string, std::string>> several;
  for (const ResultSummary& r : report.results) {
    const PlanItem& item = ItemOf(r);
    auto [it, added] = first.emplace(std::make_pair(item.engine, item.scenario), &item);
    if (!added && it->second->params != item.params) several.insert(it->first);
  }
  return several;
}

TableRow MakeRow(const ResultSummary& r) {
  const PlanItem& item = ItemOf(r);
  return {Cell(item.scenario),
          std::string(IsolationName(item.isolation)),
          VerdictName(r.verdict),
          Histogram(r.winners),
          Cell(Histogram(r.errors)),
          std::to_string(r.retries),
          r.blocked_ms.count == 0 ? std::string(kNone) : FormatMs(r.blocked_ms.p95),
          FormatSkewUs(r.skew_us, r.skew_us.p95)};
}

// `params`: a last column with each row's params (empty: none), when results are told apart by them.
void WriteTable(const std::vector<TableRow>& rows, const std::vector<std::string>& params, std::ostream& out) {
  std::array<size_t, kColumns> widths{};
  for (const TableRow& row : rows) {
    for (size_t c = 0; c < kColumns; ++c) widths[c] = std::max(widths[c], Width(row[c]));
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    const TableRow& row = rows[r];
    std::string line;
    for (size_t c = 0; c < kColumns; ++c) {
      const std::string pad(widths[c] - Width(row[c]), ' ');
      if (c > 0) line += "  ";
      line += kRightAligned[c] ? pad + row[c] : row[c] + pad;
    }
    if (r < params.size()) line += "  " + params[r];
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  }
}

// `text` with every line after the first indented by `indent`.
std::string IndentLines(std::string_view text, std::string_view indent) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\n') out += indent;
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
  return out;
}

// A run of several engines: one row per scenario × level (× params), one column per engine
// (reports/engine_table.h), then each engine's server.
void WriteSideBySide(const RunReport& report, std::ostream& out) {
  const EngineTable table = BuildEngineTable(report);
  const bool with_params = std::any_of(table.rows.begin(), table.rows.end(),
                                       [](const EngineRow& row) { return row.params != kNone; });
  std::vector<std::vector<std::string>> grid;
  std::vector<std::string> header = {"scenario", "isolation"};
  if (with_params) header.push_back("params");
  for (const std::string& engine : table.engines) header.push_back(Cell(engine));
  grid.push_back(std::move(header));
  for (const EngineRow& row : table.rows) {
    std::vector<std::string> line = {Cell(row.scenario), row.isolation};
    if (with_params) line.push_back(Cell(row.params));
    for (const EngineCell& cell : row.cells) {
      line.push_back(cell.result != nullptr ? Cell(EngineCellText(*cell.result)) : "— " + Cell(cell.missing));
    }
    grid.push_back(std::move(line));
  }
  std::vector<size_t> widths(grid.front().size(), 0);
  for (const auto& line : grid) {
    for (size_t c = 0; c < line.size(); ++c) widths[c] = std::max(widths[c], Width(line[c]));
  }
  for (const auto& line : grid) {
    std::string text;
    for (size_t c = 0; c < line.size(); ++c) {
      if (c > 0) text += "  ";
      text += line[c] + std::string(widths[c] - Width(line[c]), ' ');
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out << text << '\n';
  }
  out << "\nper engine: verdict · winners (count×trials) · most frequent error×occurrences · statements in a lock wait\n";
  for (const std::string& engine : table.engines) {
    const TargetInfo* t = TargetOf(report, engine);
    out << fmt::format("{}: {}\n", Cell(engine),
                       t == nullptr ? std::string("not started")
                                    : Cell(fmt::format("{}, {}", t->server_version.empty() ? "server version unknown" : t->server_version,
                                                       t->embedded ? "embedded" : "external")));
  }
}

// `with_params`: the label names the result's params too ("… with order=a.begin b.begin …"), as the
// Markdown's list of failures does.
void WriteProblems(const RunReport& report, const ResultSummary& r, bool with_params, std::ostream& out) {
  std::string label = EngineResultLabel(report, ItemOf(r));
  if (with_params) label += " with " + FormatParams(ItemOf(r).params);
  out << fmt::format("{}: {}\n", VerdictName(r.verdict), SanitizeForTerminal(label, false));
  if (!r.error.empty()) out << "  " << IndentLines(SanitizeForTerminal(r.error), "  ") << '\n';
  if (!r.interrupted.empty()) out << "  " << SanitizeForTerminal(InterruptedText(r), false) << '\n';
  for (const ExpectationTally& e : r.expectations) {
    if (!e.Failing()) continue;
    out << fmt::format("  - {}: failed in {} of {} trials\n", SanitizeForTerminal(e.text), e.failed, r.trials);
    if (!e.first_failure.empty()) {
      out << "    first failure: " << IndentLines(SanitizeForTerminal(e.first_failure), "      ") << '\n';
    }
  }
}

class ConsoleReporter : public Reporter {
 public:
  std::string_view name() const override { return "console"; }
  std::string_view file_name() const override { return ""; }
  void Write(const RunReport& report, std::ostream& out) const override {
    // Results of one scenario and level told apart only by their params (an ordered scenario's
    // permutations) are named by them: a "params" column, and "with …" after each problem's label.
    const auto several_params = ScenariosWithSeveralParams(report);
    auto told_by_params = [&](const ResultSummary& r) {
      return several_params.count({ItemOf(r).engine, ItemOf(r).scenario}) != 0;
    };
    if (SeveralEngines(report)) {
      WriteSideBySide(report, out);
    } else {
      std::vector<TableRow> rows = {kHeader};
      std::vector<std::string> params;
      if (!several_params.empty()) params.push_back("params");
      for (const ResultSummary& r : report.results) {
        rows.push_back(MakeRow(r));
        if (!several_params.empty()) params.push_back(Cell(FormatParams(ItemOf(r).params)));
      }
      WriteTable(rows, params, out);
    }
    bool first = true;
    for (const ResultSummary& r : report.results) {
      if (r.verdict == Verdict::kPass) continue;
      if (first) out << '\n';
      first = false;
      WriteProblems(report, r, told_by_params(r), out);
    }
    out << '\n' << CountsLine(CountVerdicts(report.results));
    if (!report.not_run.empty()) {
      out << fmt::format(", {} not run ({})", report.not_run.size(), report.not_run.front().reason);
    }
    out << '\n';
  }
};

}  // namespace

std::unique_ptr<Reporter> MakeConsoleReporter() { return std::make_unique<ConsoleReporter>(); }

}  // namespace racelab::internal
