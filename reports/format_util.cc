#include "reports/format_util.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "harness/model/error_key.h"
#include "harness/model/error_names.h"
#include "harness/model/isolation.h"
#include "harness/model/step_kind.h"

namespace racelab::internal {
namespace {

// "<whole>.<three digits>" of value/1000 for an integer value, exactly.
std::string ThousandthsToText(int64_t thousandths) {
  const char* sign = thousandths < 0 ? "-" : "";
  const uint64_t magnitude =
      thousandths < 0 ? 0 - static_cast<uint64_t>(thousandths) : static_cast<uint64_t>(thousandths);
  return fmt::format("{}{}.{:03}", sign, magnitude / 1000, magnitude % 1000);
}

template <typename Map>
std::string JoinHistogram(const Map& counts) {
  if (counts.empty()) return std::string(kNone);
  std::string out;
  for (const auto& [key, count] : counts) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{}×{}", key, count);
  }
  return out;
}

void Tally(Verdict verdict, VerdictCounts* counts) {
  ++counts->results;
  switch (verdict) {
    case Verdict::kPass:
      ++counts->pass;
      break;
    case Verdict::kFail:
      ++counts->fail;
      break;
    case Verdict::kError:
      ++counts->error;
      break;
    case Verdict::kInterrupted:
      ++counts->interrupted;
      break;
  }
}

}  // namespace

std::string FormatMs(double value) { return fmt::format("{:.3f}", value); }

std::string FormatUsAsMs(int64_t us) { return ThousandthsToText(us); }

std::string FormatUsAsSeconds(int64_t us) {
  // Round to the nearest ms, half away from zero, then print ms/1000.
  const int64_t ms = us >= 0 ? (us + 500) / 1000 : -((-us + 500) / 1000);
  return ThousandthsToText(ms);
}

double RoundMs(double value) { return std::round(value * 1000.0) / 1000.0; }

int64_t RoundUs(double value) { return static_cast<int64_t>(std::llround(value)); }

std::string FormatBlockedMs(const Percentiles& p) {
  if (p.count == 0) return std::string(kNone);
  return fmt::format("{} / {} / {}", FormatMs(p.p50), FormatMs(p.p95), FormatMs(p.max));
}

std::string FormatSkewUs(const Percentiles& p, double value) {
  if (p.count == 0) return std::string(kNone);
  return fmt::format("{}", RoundUs(value));
}

std::string Histogram(const std::map<int, int>& counts) { return JoinHistogram(counts); }
std::string Histogram(const std::map<std::string, int>& counts) { return JoinHistogram(counts); }
std::string NamedErrorHistogram(std::string_view engine, const std::map<std::string, int>& counts) {
  std::map<std::string, int> named;
  for (const auto& [code, count] : counts) named[ErrorKeyWithName(engine, code)] = count;
  return JoinHistogram(named);
}

std::string_view StepKindName(StepKind kind) { return InfoOf(kind).report_name; }

const PlanItem& ItemOf(const ResultSummary& summary) {
  static const PlanItem kEmpty;
  return summary.item != nullptr ? *summary.item : kEmpty;
}

const PlanItem& ItemOf(const NotRunResult& not_run) {
  static const PlanItem kEmpty;
  return not_run.item != nullptr ? *not_run.item : kEmpty;
}

std::string ResultLabel(const ResultSummary& summary) { return ResultLabel(ItemOf(summary)); }

std::string ResultLabel(const PlanItem& item) {
  return fmt::format("{} [{}]", item.scenario, IsolationName(item.isolation));
}

int64_t TotalDurationUs(const ResultSummary& summary) { return summary.duration_us; }

const TrialVerdict* RepresentativeTrial(const ResultSummary& summary) {
  const int index = summary.representative_trial;
  if (index < 0 || static_cast<size_t>(index) >= summary.trial_details.size()) return nullptr;
  return &summary.trial_details[static_cast<size_t>(index)];
}

std::string InterruptedText(const ResultSummary& summary) {
  if (summary.interrupted.empty()) return "";
  return fmt::format(
      "{} — {} trial{} ran before it{}", summary.interrupted, summary.trials,
      summary.trials == 1 ? "" : "s",
      summary.verdict == Verdict::kInterrupted && summary.trials > 0 ? ", all passed" : "");
}

VerdictCounts CountVerdicts(const std::vector<ResultSummary>& results) {
  VerdictCounts counts;
  for (const ResultSummary& r : results) Tally(r.verdict, &counts);
  return counts;
}

VerdictCounts CountVerdicts(const std::vector<const ResultSummary*>& results) {
  VerdictCounts counts;
  for (const ResultSummary* r : results) Tally(r->verdict, &counts);
  return counts;
}

std::string CountsLine(const VerdictCounts& c) {
  return fmt::format("{} result{}: {} pass, {} fail, {} error{}", c.results,
                     c.results == 1 ? "" : "s", c.pass, c.fail, c.error,
                     c.interrupted > 0 ? fmt::format(", {} interrupted", c.interrupted) : "");
}

bool AnyFailing(const ScenarioGroup& group) {
  return std::any_of(group.results.begin(), group.results.end(),
                     [](const ResultSummary* r) { return r->verdict != Verdict::kPass; });
}

std::vector<ScenarioGroup> GroupByScenario(const std::vector<ResultSummary>& results) {
  std::vector<ScenarioGroup> groups;
  for (const ResultSummary& r : results) {
    const std::string& name = ItemOf(r).scenario;
    ScenarioGroup* group = nullptr;
    for (ScenarioGroup& g : groups) {
      if (g.scenario == name) group = &g;
    }
    if (group == nullptr) group = &groups.emplace_back(ScenarioGroup{name, {}});
    group->results.push_back(&r);
  }
  return groups;
}

std::string FormatParams(const std::vector<std::pair<std::string, std::string>>& params) {
  if (params.empty()) return std::string(kNone);
  std::string out;
  for (const auto& [key, value] : params) {
    if (!out.empty()) out += ", ";
    out += key + "=" + value;
  }
  return out;
}

std::string StepOutcomeText(const StepEvent& e) {
  if (e.skipped) return "skipped";
  if (!e.sqlstate.empty()) {
    // SQLSTATE, or the engine's code where the SQLSTATE is generic (SQLITE_BUSY, not HY000).
    const std::string code = ErrorKey(e.sqlstate, e.error_code);
    std::string text = e.message.empty() ? code : code + " " + e.message;
    if (e.cancelled_by_deadline) text += " (cancelled at deadline)";
    return text;
  }
  if (e.rows < 0) return "ok";
  std::string text = fmt::format("{} row{}", e.rows, e.rows == 1 ? "" : "s");
  if (!e.captured.empty()) {
    std::string captured;
    for (const auto& [column, value] : e.captured) {
      captured += (captured.empty() ? "" : ", ") + column + "=" + value;
    }
    text += " (" + captured + ")";
  }
  return text;
}

std::string BlockedByText(const StepEvent& e) {
  if (!e.lock_wait) return "";
  std::string text = fmt::format("{}", fmt::join(e.blocked_by, ", "));
  std::string how = e.wait_event;
  const std::string source = e.lock_wait_source == "server_log" ? "server log" : e.lock_wait_source;
  if (!source.empty()) how += (how.empty() ? "" : ", ") + ("seen by " + source);
  if (!how.empty()) text += text.empty() ? how : " (" + how + ")";
  return text;
}

}  // namespace racelab::internal
