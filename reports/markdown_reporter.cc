// "md" reporter: racelab.md, for a person (a teacher, a reviewer reading a CI artifact).
//
// Layout: title; target and run lines; one summary table (scenario × isolation level); then one
// section per scenario, in order of first appearance in the report: title, the `teaches` lesson,
// file and params, and per result (isolation level) its expectations with passed/failed counts and
// the representative trial (ResultSummary::representative_trial) as a step timeline. Escaping by
// construction, in helpers every value goes through: Text (and Cell) backslash-escape Markdown syntax
// and put the value on one line; Code writes inline code on one line with a fence longer than any
// backtick run inside. No value — a final query's result, a --set value, multi-line SQL, a server
// message — can end its span or paragraph. The `teaches` lesson is Markdown as authored, minus raw HTML.
// Trials are numbered from 1 in this report ("trial 2 of 20" is TrialResult::index 1).

#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "harness/model/isolation.h"
#include "reports/format_util.h"
#include "reports/reporters.h"

namespace racelab::internal {
namespace {

// A C0 control character (or DEL) as its Unicode control picture, U+2400 + c ("\n" -> "␊",
// ESC -> "␛", DEL -> "␡"): visible, and never a line break that could end a paragraph or span.
std::string ControlPicture(unsigned char c) {
  const unsigned code = c == 0x7F ? 0x2421 : 0x2400 + c;
  return {static_cast<char>(0xE0 | (code >> 12)), static_cast<char>(0x80 | ((code >> 6) & 0x3F)),
          static_cast<char>(0x80 | (code & 0x3F))};
}

// Data text outside code spans, escaped by construction: every character Markdown (CommonMark + GFM
// tables, strikethrough, autolinks, math) could read as syntax is backslash-escaped (CommonMark §2.4:
// any ASCII punctuation may be), line breaks become spaces and other control characters their control
// pictures, so a value is one run of literal text: it cannot start a block (no line of its own), open
// a span, link, image, table cell or HTML tag.
std::string Text(std::string_view text) {
  static constexpr std::string_view kSyntax = "\\`*_[]<>!#|~&$";
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;  // the '\n' becomes the space
    if (c == '\n' || c == '\r') {
      out += ' ';
    } else if (c < 0x20 || c == 0x7F) {
      out += ControlPicture(c);
    } else {
      if (kSyntax.find(static_cast<char>(c)) != std::string_view::npos) out += '\\';
      out += static_cast<char>(c);
    }
  }
  return out;
}

// One table cell: Text() ('|' is escaped there too, as GFM tables require).
std::string Cell(std::string_view text) { return Text(text); }

// Inline code, escaped by construction: control characters (line breaks included) become their
// control pictures, so the span is on one line and no blank line can end it; the fence is one
// backtick longer than the longest backtick run inside, so no backtick can close it (CommonMark §6.1).
std::string Code(std::string_view text) {
  std::string body;
  size_t longest = 0, run = 0;
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
    body += (c < 0x20 || c == 0x7F) ? ControlPicture(c) : std::string(1, ch);
  }
  if (body.empty()) return "` `";
  const std::string fence(longest + 1, '`');
  const bool pad = longest > 0;
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

// The `teaches` lesson is Markdown as authored, minus raw HTML: '<' and '&' are escaped.
std::string Lesson(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '<' || c == '&') out += '\\';
    out += c;
  }
  return out;
}

void Row(std::ostream& out, std::initializer_list<std::string> cells) {
  out << '|';
  for (const std::string& c : cells) out << ' ' << Cell(c) << " |";
  out << '\n';
}

void WriteTimeline(const ResultSummary& r, std::ostream& out) {
  const TrialVerdict* t = RepresentativeTrial(r);
  if (t == nullptr) return;
  const TrialResult& trial = t->result;
  out << fmt::format("Representative trial: {} of {} ({}, {} ms).\n\n", trial.index + 1,
                     r.trial_details.size(), VerdictName(t->verdict),
                     FormatUsAsMs(trial.duration_us));
  if (!trial.error.empty()) out << "Trial error: " << Text(trial.error) << "\n\n";
  out << "| t ms | session | step | result | blocked ms | blocked by |\n"
      << "|---:|---|---|---|---:|---|\n";
  for (const StepEvent& e : trial.events) {
    std::string step = e.attempt > 1 ? fmt::format("{} (attempt {})", e.step, e.attempt) : e.step;
    Row(out, {FormatUsAsMs(e.sent_us), e.session, step, StepOutcomeText(e),
              e.lock_wait ? FormatMs(e.blocked_ms()) : "", BlockedByText(e)});
  }
  out << '\n';
  for (const BarrierRelease& b : trial.barriers) {
    out << fmt::format("- barrier {} #{} released at {} ms, skew {} µs\n", Code(b.barrier),
                       b.occurrence, FormatUsAsMs(b.released_us), b.skew_us);
  }
  for (const FinalValue& f : trial.finals) {
    const std::string value = !f.error.empty()      ? "error: " + Text(f.error)
                              : f.value.has_value() ? Code(*f.value)
                                                    : "NULL";
    out << fmt::format("- final {} = {}\n", Code(f.sql), value);
  }
  for (const Check& c : t->checks) {
    if (!c.passed) out << fmt::format("- failed: {}: {}\n", Text(c.text), Text(c.detail));
    if (c.widened_by_ms > 0) {
      out << fmt::format("- upper bound widened by {} ms of measured lateness: {}\n", FormatMs(c.widened_by_ms),
                         Text(c.text));
    }
  }
  if (!trial.barriers.empty() || !trial.finals.empty() ||
      std::any_of(t->checks.begin(), t->checks.end(),
                  [](const Check& c) { return !c.passed || c.widened_by_ms > 0; })) {
    out << '\n';
  }
}

void WriteResultSection(const ResultSummary& r, bool show_params, std::ostream& out) {
  const PlanItem& item = ItemOf(r);
  out << fmt::format("### {}: {} ({} trial{})\n\n", IsolationName(item.isolation),
                     VerdictName(r.verdict), r.trials, r.trials == 1 ? "" : "s");
  if (show_params) out << "Params: " << Code(FormatParams(item.params)) << "\n\n";
  if (!r.error.empty()) out << "Error: " << Text(r.error) << "\n\n";
  if (!r.expectations.empty()) {
    out << "| expectation | passed | failed | first failure |\n|---|---:|---:|---|\n";
    for (const ExpectationTally& e : r.expectations) {
      std::string text = e.max_widened_by_ms > 0
                             ? fmt::format("{} (widened by at most {} ms in these trials)", e.text,
                                           FormatMs(e.max_widened_by_ms))
                             : e.text;
      Row(out, {text, std::to_string(e.passed), std::to_string(e.failed),
                e.failed > 0 ? e.first_failure : ""});
    }
    out << '\n';
  }
  WriteTimeline(r, out);
}

void WriteScenarioSection(const ScenarioGroup& group, std::ostream& out) {
  const PlanItem& first = ItemOf(*group.results.front());
  out << "## " << Text(group.scenario);
  if (!first.title.empty()) out << ": " << Text(first.title);
  out << "\n\n";
  std::string_view teaches = first.teaches;
  while (!teaches.empty() && (teaches.back() == '\n' || teaches.back() == ' ')) {
    teaches.remove_suffix(1);
  }
  if (!teaches.empty()) out << Lesson(teaches) << "\n\n";
  const bool same_params =
      std::all_of(group.results.begin(), group.results.end(),
                  [&](const ResultSummary* r) { return ItemOf(*r).params == first.params; });
  std::vector<std::string> facts;
  if (!first.file.empty()) facts.push_back("File: " + Code(first.file));
  if (same_params) facts.push_back("Params: " + Code(FormatParams(first.params)));
  if (!facts.empty()) out << fmt::format("{}\n\n", fmt::join(facts, " · "));
  for (const ResultSummary* r : group.results) WriteResultSection(*r, !same_params, out);
}

void WriteHeader(const RunReport& report, std::ostream& out) {
  const TargetInfo& target = report.target;
  out << "# racelab report\n\n";
  out << fmt::format("Target: {} {}, {}", Text(target.engine), Text(target.server_version),
                     target.embedded ? "embedded" : "external");
  if (!target.embedded && !target.dsn_redacted.empty()) out << ' ' << Code(target.dsn_redacted);
  if (!target.settings.empty()) out << " (" << Text(FormatParams(target.settings)) << ')';
  out << "\n\n";
  out << fmt::format("Run: racelab {}, {}, seed {}", report.racelab_version, report.created_at,
                     report.seed);
  if (!report.command.empty()) out << ": " << Code(report.command);
  out << "\n\n" << CountsLine(CountVerdicts(report.results)) << "\n\n";
}

void WriteSummaryTable(const RunReport& report, std::ostream& out) {
  out << "| scenario | isolation | verdict | trials | winners | SQLSTATEs | retries "
         "| blocked ms p50/p95/max | skew µs p50/p95 |\n"
      << "|---|---|---|---:|---|---|---:|---|---|\n";
  for (const ResultSummary& r : report.results) {
    const PlanItem& item = ItemOf(r);
    const std::string skew = r.skew_us.count == 0 ? std::string(kNone)
                                                  : FormatSkewUs(r.skew_us, r.skew_us.p50) + " / " +
                                                        FormatSkewUs(r.skew_us, r.skew_us.p95);
    Row(out, {item.scenario, std::string(IsolationName(item.isolation)), VerdictName(r.verdict),
              std::to_string(r.trials), Histogram(r.winners), Histogram(r.sqlstates),
              std::to_string(r.retries), FormatBlockedMs(r.blocked_ms), skew});
  }
  out << '\n' << kSummaryLegend << "\n\n";
}

class MarkdownReporter : public Reporter {
 public:
  std::string_view name() const override { return "md"; }
  std::string_view file_name() const override { return "racelab.md"; }
  void Write(const RunReport& report, std::ostream& out) const override {
    WriteHeader(report, out);
    WriteSummaryTable(report, out);
    for (const ScenarioGroup& group : GroupByScenario(report.results)) {
      WriteScenarioSection(group, out);
    }
  }
};

}  // namespace

std::unique_ptr<Reporter> MakeMarkdownReporter() { return std::make_unique<MarkdownReporter>(); }

}  // namespace racelab::internal
