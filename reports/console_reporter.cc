// "console" reporter: the summary a person sees in the terminal (stdout, no file).
//
// A fixed-width table, one row per result: scenario, isolation, verdict, winners, errors,
// retries, blocked p95 ms, skew p95 µs, and params when two results of one scenario differ in them
// (an ordered scenario's permutations: order=a.begin b.begin …, as the Markdown names them;
// failures below say "with order=…" too) — or, for a run of several engines, one row per scenario ×
// level and one column per engine, side by side (reports/engine_table.h), then each engine's
// server. Column widths are computed from the content (in UTF-8 code points, so "×" and "µ" count
// as one). On a terminal of known width (TerminalStyle, from the CLI) the tables fit it:
// low-priority columns are dropped (skew, retries, blocked, in that order) and then the widest
// cells cut with "…" (reports/table_layout.h), with a line naming what was left out; every other
// line is folded at spaces. Width 0 (a file, a pipe) prints everything, unchanged. Under it, for
// each result that did not pass, its failed expectations with the first failure's detail (or the
// harness error). The last line counts verdicts: "12 results: 11 pass, 1 fail, 0 error" (", 1
// interrupted" when a stop request cut one short). Plain text; verdicts coloured only when
// TerminalStyle::color says so. Every data string goes through SanitizeForTerminal, so no value can
// send an escape sequence to the terminal.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "harness/model/isolation.h"
#include "harness/model/terminal_layout.h"
#include "harness/model/terminal_text.h"
#include "reports/engine_table.h"
#include "reports/format_util.h"
#include "reports/reporters.h"
#include "reports/table_layout.h"

namespace racelab::internal {
namespace {

using TableRow = std::vector<std::string>;

// Drop ranks: skew first, then retries, then blocked; scenario, errors and params are cut instead.
const std::vector<TableColumn> kColumnsOfTable = {
    {"scenario", false, 0, 16},     {"isolation", false, 0, 0}, {"verdict", false, 0, 0, true},
    {"winners", false, 0, 0},       {"errors", false, 0, 9},    {"retries", true, 2, 0},
    {"blocked p95 ms", true, 3, 0}, {"skew p95 µs", true, 1, 0}};

// A table cell: control characters escaped, on one line (harness/model/terminal_text.h).
std::string Cell(std::string_view text) {
  return SanitizeForTerminal(text, /*keep_newlines=*/false);
}

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

// The lines of a laid-out table, then a line naming the columns left out to fit the terminal.
void WriteLaidOut(const LaidOutTable& table, const TerminalStyle& terminal, std::ostream& out) {
  for (const std::string& line : table.lines) out << line << '\n';
  if (!table.dropped.empty() || table.cut) {
    std::string note = table.dropped.empty()
                           ? fmt::format("(cells cut with … to fit {} columns)", terminal.width)
                           : fmt::format("(left out to fit {} columns: {})", terminal.width,
                                         fmt::join(table.dropped, ", "));
    for (const std::string& line : FoldLine(note, terminal.width, " ")) out << line << '\n';
  }
}

// `params`: a last column with each row's params (empty: none), when results are told apart by
// them.
void WriteTable(const std::vector<TableRow>& rows, const std::vector<std::string>& params,
                const TerminalStyle& terminal, std::ostream& out) {
  std::vector<TableColumn> columns = kColumnsOfTable;
  std::vector<TableRow> body = rows;
  if (!params.empty()) {
    columns.push_back({"params", false, 0, 12});
    for (size_t r = 0; r < body.size(); ++r) body[r].push_back(params[r]);
  }
  WriteLaidOut(LayOutTable(columns, body, terminal.width, terminal.color), terminal, out);
}

// Writes `text` line by line, each line that is wider than the terminal folded at spaces, its
// continuation indented two columns past the line's own indentation.
void WriteFolded(const std::string& text, const TerminalStyle& terminal, std::ostream& out) {
  if (terminal.width == 0) {
    out << text;
    return;
  }
  for (size_t start = 0; start < text.size();) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    const std::string_view line(text.data() + start, nl - start);
    start = nl + 1;
    const size_t lead = std::min(line.find_first_not_of(' '), line.size());
    for (const std::string& folded : FoldLine(line, terminal.width, std::string(lead + 2, ' ')))
      out << folded << '\n';
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
void WriteSideBySide(const RunReport& report, const TerminalStyle& terminal, std::ostream& out) {
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
      line.push_back(cell.result != nullptr ? Cell(EngineCellText(*cell.result))
                                            : "— " + Cell(cell.missing));
    }
    grid.push_back(std::move(line));
  }
  // Engine cells are cut before the scenario; the params column too, never dropped (it tells rows
  // apart).
  std::vector<TableColumn> columns;
  for (size_t c = 0; c < grid.front().size(); ++c) {
    const bool engine_column = c >= (with_params ? 3u : 2u);
    columns.push_back({grid.front()[c], false, 0, c == 1 ? 0u : engine_column ? 14u : 16u});
  }
  grid.erase(grid.begin());
  WriteLaidOut(LayOutTable(columns, grid, terminal.width), terminal, out);
  std::ostringstream rest;
  rest << "\nper engine: verdict · winners (count×trials) · most frequent error×occurrences · "
          "statements in a lock wait\n";
  for (const std::string& engine : table.engines) {
    const TargetInfo* t = TargetOf(report, engine);
    rest << fmt::format("{}: {}\n", Cell(engine),
                        t == nullptr
                            ? std::string("not started")
                            : Cell(fmt::format("{}, {}",
                                               t->server_version.empty() ? "server version unknown"
                                                                         : t->server_version,
                                               t->embedded ? "embedded" : "external")));
  }
  WriteFolded(rest.str(), terminal, out);
}

// `with_params`: the label names the result's params too ("… with order=a.begin b.begin …"), as the
// Markdown's list of failures does.
void WriteProblems(const RunReport& report, const ResultSummary& r, bool with_params,
                   std::ostream& out) {
  // Not coloured: these lines are folded to the terminal's width afterwards.
  std::string label = EngineResultLabel(report, ItemOf(r));
  if (with_params) label += " with " + FormatParams(ItemOf(r).params);
  out << fmt::format("{}: {}\n", VerdictName(r.verdict), SanitizeForTerminal(label, false));
  if (!r.error.empty()) out << "  " << IndentLines(SanitizeForTerminal(r.error), "  ") << '\n';
  if (!r.interrupted.empty()) out << "  " << SanitizeForTerminal(InterruptedText(r), false) << '\n';
  for (const ExpectationTally& e : r.expectations) {
    if (!e.Failing()) continue;
    out << fmt::format("  - {}: failed in {} of {} trials\n", SanitizeForTerminal(e.text), e.failed,
                       r.trials);
    if (!e.first_failure.empty()) {
      out << "    first failure: " << IndentLines(SanitizeForTerminal(e.first_failure), "      ")
          << '\n';
    }
  }
}

class ConsoleReporter : public Reporter {
 public:
  explicit ConsoleReporter(const TerminalStyle& terminal) : terminal_(terminal) {}
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
      WriteSideBySide(report, terminal_, out);
    } else {
      std::vector<TableRow> rows;
      std::vector<std::string> params;
      for (const ResultSummary& r : report.results) {
        rows.push_back(MakeRow(r));
        if (!several_params.empty()) params.push_back(Cell(FormatParams(ItemOf(r).params)));
      }
      WriteTable(rows, params, terminal_, out);
    }
    std::ostringstream rest;  // folded to the terminal's width
    bool first = true;
    for (const ResultSummary& r : report.results) {
      if (r.verdict == Verdict::kPass) continue;
      if (first) rest << '\n';
      first = false;
      WriteProblems(report, r, told_by_params(r), rest);
    }
    rest << '\n' << CountsLine(CountVerdicts(report.results));
    if (!report.not_run.empty()) {
      rest << fmt::format(", {} not run ({})", report.not_run.size(),
                          report.not_run.front().reason);
    }
    rest << '\n';
    WriteFolded(rest.str(), terminal_, out);
  }

 private:
  TerminalStyle terminal_;
};

}  // namespace

std::unique_ptr<Reporter> MakeConsoleReporter(const TerminalStyle& terminal) {
  return std::make_unique<ConsoleReporter>(terminal);
}

}  // namespace racelab::internal
