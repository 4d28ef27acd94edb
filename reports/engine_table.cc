#include "reports/engine_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "harness/model/isolation.h"
#include "reports/format_util.h"

namespace racelab::internal {
namespace {

void AddEngine(const std::string& engine, std::vector<std::string>* engines) {
  if (!engine.empty() && std::find(engines->begin(), engines->end(), engine) == engines->end()) {
    engines->push_back(engine);
  }
}

// Rank of a level in the table: weakest first (read uncommitted … serializable), unknown ones last.
int LevelRank(IsolationLevel level) {
  switch (level) {
    case IsolationLevel::kReadUncommitted:
      return 0;
    case IsolationLevel::kReadCommitted:
      return 1;
    case IsolationLevel::kRepeatableRead:
      return 2;
    case IsolationLevel::kSerializable:
      return 3;
  }
  return 4;
}

}  // namespace

std::vector<std::string> ReportEngines(const RunReport& report) {
  std::vector<std::string> engines;
  if (report.targets.empty() && report.skipped.empty()) {  // a one-engine run: its target names it
    AddEngine(report.target.engine, &engines);
    if (engines.empty() && !report.results.empty())
      AddEngine(ItemOf(report.results.front()).engine, &engines);
    return engines;
  }
  for (const TargetInfo& t : report.targets) AddEngine(t.engine, &engines);
  AddEngine(report.target.engine, &engines);
  for (const ResultSummary& r : report.results) AddEngine(ItemOf(r).engine, &engines);
  for (const NotRunResult& n : report.not_run) AddEngine(ItemOf(n).engine, &engines);
  for (const SkippedOnEngine& k : report.skipped) AddEngine(k.engine, &engines);
  return engines;
}

bool SeveralEngines(const RunReport& report) { return ReportEngines(report).size() > 1; }

const TargetInfo* TargetOf(const RunReport& report, const std::string& engine) {
  for (const TargetInfo& t : report.targets) {
    if (t.engine == engine) return &t;
  }
  return report.target.engine == engine ? &report.target : nullptr;
}

std::string EngineResultLabel(const RunReport& report, const PlanItem& item) {
  return SeveralEngines(report) ? fmt::format("{} on {}", ResultLabel(item), item.engine)
                                : ResultLabel(item);
}

EngineTable BuildEngineTable(const RunReport& report) {
  EngineTable table;
  table.engines = ReportEngines(report);
  struct Entry {
    const PlanItem* item;
    const ResultSummary* result;  // null: not run
    const std::string* reason;    // not run: why
  };
  std::vector<Entry> entries;
  for (const ResultSummary& r : report.results) entries.push_back({&ItemOf(r), &r, nullptr});
  for (const NotRunResult& n : report.not_run) entries.push_back({&ItemOf(n), nullptr, &n.reason});
  // Rows: scenarios in order of first appearance, levels weakest first, params in order of
  // appearance.
  std::vector<std::string> scenarios;
  std::vector<std::string> param_texts;
  for (const Entry& e : entries) {
    AddEngine(e.item->scenario, &scenarios);
    AddEngine(FormatParams(e.item->params), &param_texts);
  }
  auto key = [&](const PlanItem& item) {
    const std::string params = FormatParams(item.params);
    return std::make_tuple(
        std::find(scenarios.begin(), scenarios.end(), item.scenario) - scenarios.begin(),
        LevelRank(item.isolation),
        std::find(param_texts.begin(), param_texts.end(), params) - param_texts.begin());
  };
  std::stable_sort(entries.begin(), entries.end(),
                   [&](const Entry& a, const Entry& b) { return key(*a.item) < key(*b.item); });
  for (const Entry& e : entries) {
    const std::string isolation(IsolationName(e.item->isolation));
    const std::string params = FormatParams(e.item->params);
    if (table.rows.empty() || table.rows.back().scenario != e.item->scenario ||
        table.rows.back().isolation != isolation || table.rows.back().params != params) {
      table.rows.push_back(
          {e.item->scenario, isolation, params, std::vector<EngineCell>(table.engines.size())});
    }
    const size_t column = std::find(table.engines.begin(), table.engines.end(), e.item->engine) -
                          table.engines.begin();
    if (column >= table.engines.size()) continue;
    EngineCell& cell = table.rows.back().cells[column];
    if (e.result != nullptr) {
      cell.result = e.result;
    } else {
      cell.missing = "not run: " + *e.reason;
    }
  }
  // The cells left empty: skipped on that engine (the scenario, or this level), else not in this
  // run.
  for (EngineRow& row : table.rows) {
    for (size_t c = 0; c < row.cells.size(); ++c) {
      EngineCell& cell = row.cells[c];
      if (cell.result != nullptr || !cell.missing.empty()) continue;
      const SkippedOnEngine* why = nullptr;
      for (const SkippedOnEngine& k : report.skipped) {
        if (k.scenario != row.scenario || k.engine != table.engines[c]) continue;
        if (k.isolation == row.isolation || (k.isolation.empty() && why == nullptr)) why = &k;
      }
      cell.missing = why != nullptr ? why->reason : "not in this run";
    }
  }
  return table;
}

std::pair<std::string, int> TopErrorCode(const ResultSummary& result) {
  std::pair<std::string, int> top{"", 0};
  const auto& counts = result.errors.empty() ? result.sqlstates : result.errors;
  for (const auto& [code, count] : counts) {  // map order: the smallest code wins a tie
    if (count > top.second) top = {code, count};
  }
  return top;
}

std::string EngineCellText(const ResultSummary& result) {
  std::vector<std::string> parts = {VerdictName(result.verdict)};
  if (!result.winners.empty()) parts.push_back("winners " + Histogram(result.winners));
  if (const auto [code, count] = TopErrorCode(result); count > 0) {
    std::string text = fmt::format("{}×{}", code, count);
    const size_t kinds = (result.errors.empty() ? result.sqlstates : result.errors).size();
    if (kinds > 1) text += fmt::format(" +{} more", kinds - 1);
    parts.push_back(text);
  }
  if (result.blocked_ms.count > 0) {
    parts.push_back(fmt::format("{} lock wait{}", result.blocked_ms.count,
                                result.blocked_ms.count == 1 ? "" : "s"));
  }
  return fmt::format("{}", fmt::join(parts, " · "));
}

}  // namespace racelab::internal
