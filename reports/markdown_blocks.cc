#include "reports/markdown_blocks.h"

#include <fmt/format.h>

#include <algorithm>

#include "harness/model/isolation.h"
#include "reports/engine_table.h"
#include "reports/format_util.h"
#include "reports/markdown_text.h"

namespace racelab::internal::md {

std::string Row(std::initializer_list<std::string> cells) {
  std::string out = "|";
  for (const std::string& c : cells) out += " " + Cell(c) + " |";
  return out + "\n";
}

std::string TargetLine(const TargetInfo& target) {
  std::string out =
      fmt::format("Target: {} {}, {}", Text(target.engine), Text(target.server_version),
                  target.embedded ? "embedded" : "external");
  if (!target.embedded && !target.dsn_redacted.empty()) out += " " + Code(target.dsn_redacted);
  if (!target.settings.empty()) out += " (" + Text(FormatParams(target.settings)) + ")";
  return out + "\n\n";
}

std::string Header(const RunReport& report, std::string_view title) {
  std::string out = fmt::format("# {}\n\n", title);
  if (report.targets.empty()) out += TargetLine(report.target);
  for (const TargetInfo& target : report.targets)
    out += TargetLine(target);  // a run of several engines
  out += fmt::format("Run: racelab {}, {}, seed {}", report.racelab_version, report.created_at,
                     report.seed);
  if (!report.command.empty()) out += ": " + Code(report.command);
  out += "\n\n" + CountsLine(CountVerdicts(report.results));
  if (!report.not_run.empty()) out += fmt::format(", {} not run", report.not_run.size());
  return out + "\n\n";
}

std::string Failures(const RunReport& report, size_t max_value_bytes) {
  auto clip = [&](std::string_view text) {
    return max_value_bytes == 0 ? std::string(text) : Clip(text, max_value_bytes);
  };
  std::string out;
  if (!report.run_error.empty())
    out += "- **racelab run**: error: " + Text(clip(report.run_error)) + "\n";
  for (const ResultSummary& r : report.results) {
    if (r.verdict == Verdict::kPass) continue;
    out += fmt::format("- **{}**: {} ({} trial{})", Text(EngineResultLabel(report, ItemOf(r))),
                       VerdictName(r.verdict), r.trials, r.trials == 1 ? "" : "s");
    const PlanItem& item = ItemOf(r);
    if (!item.params.empty()) out += " with " + Code(clip(FormatParams(item.params)));
    out += "\n";
    if (!r.error.empty()) out += "  - error: " + Text(clip(r.error)) + "\n";
    if (!r.interrupted.empty()) out += "  - " + Text(clip(InterruptedText(r))) + "\n";
    for (const ExpectationTally& e : r.expectations) {
      if (!e.Failing()) continue;
      out += fmt::format("  - {}: failed in {} of {} trials; {}\n", Text(clip(e.text)), e.failed,
                         r.trials, Text(clip(e.first_failure)));
    }
  }
  if (!report.not_run.empty()) {
    out += fmt::format("- **not run** ({}):", report.not_run.size());
    for (const NotRunResult& n : report.not_run)
      out += " " + Text(EngineResultLabel(report, ItemOf(n))) + ";";
    out.pop_back();
    out += " — " + Text(clip(report.not_run.front().reason)) + "\n";
  }
  if (out.empty()) return out;
  return "## Failures\n\n" + out + "\n";
}

std::string SideBySide(const RunReport& report) {
  if (!SeveralEngines(report)) return "";
  const EngineTable table = BuildEngineTable(report);
  const bool with_params = std::any_of(table.rows.begin(), table.rows.end(),
                                       [](const EngineRow& row) { return row.params != kNone; });
  std::string out = "## Side by side\n\n| scenario | isolation |";
  std::string rule = "|---|---|";
  if (with_params) {
    out += " params |";
    rule += "---|";
  }
  for (const std::string& engine : table.engines) {
    out += " " + Cell(engine) + " |";
    rule += "---|";
  }
  out += "\n" + rule + "\n";
  for (const EngineRow& row : table.rows) {
    out += "| " + Cell(row.scenario) + " | " + Cell(row.isolation) + " |";
    if (with_params) out += " " + Cell(row.params) + " |";
    for (const EngineCell& cell : row.cells) {
      out += " " +
             (cell.result != nullptr ? Cell(EngineCellText(*cell.result))
                                     : "— " + Cell(cell.missing)) +
             " |";
    }
    out += "\n";
  }
  return out +
         "\nOne column per engine: verdict · winners (count×trials) · the most frequent "
         "error×occurrences · "
         "statements seen in a lock wait; — = not run on that engine, and why.\n\n";
}

std::string SummaryTable(const RunReport& report) {
  const bool several = SeveralEngines(report);
  std::string out =
      several ? "| scenario | engine | isolation | verdict | trials | winners | errors | retries "
                "| blocked ms p50/p95/max | skew µs p50/p95 |\n"
                "|---|---|---|---|---:|---|---|---:|---|---|\n"
              : "| scenario | isolation | verdict | trials | winners | errors | retries "
                "| blocked ms p50/p95/max | skew µs p50/p95 |\n"
                "|---|---|---|---:|---|---|---:|---|---|\n";
  for (const ResultSummary& r : report.results) {
    const PlanItem& item = ItemOf(r);
    const std::string skew = r.skew_us.count == 0 ? std::string(kNone)
                                                  : FormatSkewUs(r.skew_us, r.skew_us.p50) + " / " +
                                                        FormatSkewUs(r.skew_us, r.skew_us.p95);
    if (several) {
      out += Row({item.scenario, item.engine, std::string(IsolationName(item.isolation)),
                  VerdictName(r.verdict), std::to_string(r.trials), Histogram(r.winners),
                  Histogram(r.errors), std::to_string(r.retries), FormatBlockedMs(r.blocked_ms),
                  skew});
      continue;
    }
    out += Row({item.scenario, std::string(IsolationName(item.isolation)), VerdictName(r.verdict),
                std::to_string(r.trials), Histogram(r.winners), Histogram(r.errors),
                std::to_string(r.retries), FormatBlockedMs(r.blocked_ms), skew});
  }
  return out + "\n" + kSummaryLegend + "\n\n";
}

}  // namespace racelab::internal::md
