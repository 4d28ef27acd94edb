// `racelab list` and `racelab explain`: what would run, without connecting (STYLE.md habit 12).
#include <iostream>

#include <fmt/format.h>

#include "harness/cli/app.h"
#include "harness/loader/catalogue.h"

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

void PrintExpect(const ExpectSpec& e, const std::string& indent) {
  if (e.winners) std::cout << indent << "winners = " << *e.winners << "\n";
  if (e.sqlstates) {
    for (const auto& [code, n] : *e.sqlstates) std::cout << indent << "SQLSTATE " << code << " × " << n << "\n";
    std::cout << indent << "no other SQLSTATE\n";
  }
  if (e.distinct_claims.value_or(false)) std::cout << indent << "claims are distinct\n";
  if (e.lock_waits) std::cout << indent << "statements in a lock wait = " << *e.lock_waits << "\n";
  for (const auto& r : e.step_rows.value_or(std::vector<StepRowsSpec>{})) {
    std::cout << indent << r.sessions << " session(s) get " << r.rows << " rows from " << r.step << "\n";
  }
  for (const auto& b : e.blocked.value_or(std::vector<BlockedSpec>{})) {
    std::cout << indent << b.session << "/" << b.step << " blocked" << (b.min_ms ? " ≥ " + *b.min_ms + " ms" : "")
              << (b.max_ms ? " ≤ " + *b.max_ms + " ms" : "") << (b.by.empty() ? "" : " by " + b.by) << "\n";
  }
  for (const auto& f : e.final.value_or(std::vector<FinalCheck>{})) {
    std::cout << indent << f.sql << " = '" << f.equals << "'\n";
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
    std::cout << fmt::format("{:<{}}  {:<{}}  {}\n", s.name, width, fmt::format("{}", fmt::join(s.tags, ",")),
                             tag_width, s.title);
  }
  std::cout << fmt::format("{} scenario(s) in {}\n", scenarios.size(), DefaultScenarioDir());
  return 0;
}

int ExplainCommand(const std::string& name) {
  auto loaded = LoadScenarios({name}, DefaultScenarioDir());
  if (!loaded.ok()) return UsageError(loaded.status().message());
  for (const auto& s : loaded.value()) {
    std::cout << s.name << " — " << s.title << "\n" << s.loc.file << "\n\n" << s.teaches << "\n";
    if (s.teaches.empty() || s.teaches.back() != '\n') std::cout << "\n";
    std::cout << "Tags: " << fmt::format("{}", fmt::join(s.tags, ", ")) << "\n";
    std::cout << "Parameters (override with --set NAME=VALUE):\n";
    for (const auto& [k, v] : s.params) std::cout << "  " << k << " = " << v << "\n";
    std::cout << "Isolation levels:";
    for (auto l : s.isolation.empty() ? AllIsolationLevels() : s.isolation) std::cout << " [" << IsolationName(l) << "]";
    std::cout << "\n\nSessions:\n";
    for (const auto& sess : s.sessions) {
      std::cout << "  " << sess.name << " × " << sess.count << "\n";
      for (const auto& [k, v] : sess.settings) std::cout << "    SET " << k << " = " << v << "\n";
      for (const auto& st : sess.steps) std::cout << "    - " << StepLine(st) << "\n";
    }
    if (!s.outcome.win_step.empty()) {
      std::cout << fmt::format("\nA session wins when its step '{}' returns {} row(s){}.\n", s.outcome.win_step,
                               s.outcome.win_rows, s.outcome.win_committed ? " and it commits" : "");
    }
    std::cout << "\nExpected at every level:\n";
    PrintExpect(s.expect, "  ");
    for (const auto& [level, e] : s.expect_at) {
      std::cout << "At " << IsolationName(level) << " (overrides):\n";
      PrintExpect(e, "  ");
    }
  }
  return 0;
}

}  // namespace racelab::cli
