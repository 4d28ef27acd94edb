// `racelab list` and `racelab explain`: what would run, without connecting (STYLE.md habit 12).
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "harness/cli/app.h"
#include "harness/loader/catalogue.h"
#include "harness/model/terminal_text.h"

namespace racelab::cli {
namespace {

std::string StepLine(const Step& s) {
  switch (s.kind) {
    case StepKind::kBegin: return "begin";
    case StepKind::kCommit: return "commit";
    case StepKind::kRollback: return "rollback";
    case StepKind::kBarrier: return "barrier " + s.barrier;
    case StepKind::kSleep: return "sleep " + s.sleep_ms + " ms";
    case StepKind::kAwaitBlocked: return "await_blocked " + s.target;
    case StepKind::kTerminate: return "terminate " + s.target;
    case StepKind::kSql: {
      std::string sql = s.sql;
      for (auto& c : sql) c = c == '\n' ? ' ' : c;
      std::string line = fmt::format("{}: {}", s.name, sql);
      if (!s.when.empty()) line += fmt::format("   [when {}]", s.when);
      if (!s.capture.empty()) line += fmt::format("   [capture {}]", fmt::join(s.capture, ", "));
      if (s.on_error == OnError::kContinue) line += "   [on_error continue]";
      return line;
    }
  }
  return "";
}

void PrintExpect(const ExpectSpec& e, const std::string& indent, std::ostream& out) {
  if (e.winners) out << indent << "winners = " << *e.winners << "\n";
  if (e.sqlstates) {
    for (const auto& [code, n] : *e.sqlstates) out << indent << "SQLSTATE " << code << " × " << n << "\n";
    out << indent << "no other SQLSTATE\n";
  }
  if (e.distinct_claims.value_or(false)) out << indent << "claims are distinct\n";
  if (e.lock_waits) out << indent << "statements in a lock wait = " << *e.lock_waits << "\n";
  for (const auto& r : e.step_rows.value_or(std::vector<StepRowsSpec>{})) {
    out << indent << r.sessions << " session(s) get " << r.rows << " rows from " << r.step << "\n";
  }
  for (const auto& b : e.blocked.value_or(std::vector<BlockedSpec>{})) {
    out << indent << b.session << "/" << b.step << " blocked" << (b.min_ms ? " ≥ " + *b.min_ms + " ms" : "")
        << (b.max_ms ? " ≤ " + *b.max_ms + " ms" : "") << (b.by.empty() ? "" : " by " + b.by) << "\n";
  }
  for (const auto& f : e.final.value_or(std::vector<FinalCheck>{})) {
    out << indent << f.sql << " = '" << f.equals << "'\n";
  }
}

}  // namespace

int ListCommand(const std::vector<std::string>& tags) {
  auto loaded = LoadScenarios({}, DefaultScenarioDir());
  if (!loaded.ok()) return UsageError(loaded.status().message());
  auto scenarios = FilterByTags(std::move(loaded.value()), tags);
  size_t width = 4, tag_width = 4;
  for (const auto& s : scenarios) {
    width = std::max(width, s.name.size());
    tag_width = std::max(tag_width, fmt::format("{}", fmt::join(s.tags, ",")).size());
  }
  std::cout << fmt::format("{:<{}}  {:<{}}  {}\n", "NAME", width, "TAGS", tag_width, "TITLE");
  for (const auto& s : scenarios) {
    // Names, tags and titles come from scenario files: control characters are shown escaped.
    std::cout << fmt::format("{:<{}}  {:<{}}  {}\n", SanitizeForTerminal(s.name, false), width,
                             SanitizeForTerminal(fmt::format("{}", fmt::join(s.tags, ",")), false), tag_width,
                             SanitizeForTerminal(s.title, false));
  }
  std::cout << fmt::format("{} scenario(s) in {}\n", scenarios.size(), DefaultScenarioDir());
  return 0;
}

int ExplainCommand(const std::string& name) {
  auto loaded = LoadScenarios({name}, DefaultScenarioDir());
  if (!loaded.ok()) return UsageError(loaded.status().message());
  std::ostringstream out;  // printed once, through SanitizeForTerminal: the text comes from scenario files
  for (const auto& s : loaded.value()) {
    out << s.name << " — " << s.title << "\n" << s.loc.file << "\n\n" << s.teaches << "\n";
    if (s.teaches.empty() || s.teaches.back() != '\n') out << "\n";
    out << "Tags: " << fmt::format("{}", fmt::join(s.tags, ", ")) << "\n";
    out << "Parameters (override with --set NAME=VALUE):\n";
    for (const auto& [k, v] : s.params) out << "  " << k << " = " << v << "\n";
    out << "Isolation levels:";
    for (auto l : s.isolation.empty() ? AllIsolationLevels() : s.isolation) out << " [" << IsolationName(l) << "]";
    out << "\n\nSessions:\n";
    for (const auto& sess : s.sessions) {
      out << "  " << sess.name << " × " << sess.count << "\n";
      for (const auto& [k, v] : sess.settings) out << "    SET " << k << " = " << v << "\n";
      for (const auto& st : sess.steps) out << "    - " << StepLine(st) << "\n";
    }
    if (!s.outcome.win_step.empty()) {
      out << fmt::format("\nA session wins when its step '{}' returns {} row(s){}.\n", s.outcome.win_step,
                         s.outcome.win_rows, s.outcome.win_committed ? " and it commits" : "");
    }
    out << "\nExpected at every level:\n";
    PrintExpect(s.expect, "  ", out);
    for (const auto& [level, e] : s.expect_at) {
      out << "At " << IsolationName(level) << " (overrides):\n";
      PrintExpect(e, "  ", out);
    }
  }
  std::cout << SanitizeForTerminal(out.str());
  return 0;
}

}  // namespace racelab::cli
