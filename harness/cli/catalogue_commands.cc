// `racelab list` and `racelab explain`: what would run, without connecting.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string_view>

#include "harness/cli/app.h"
#include "harness/engine_registry/registry.h"
#include "harness/eval/evaluator.h"
#include "harness/loader/catalogue.h"
#include "harness/loader/order_planner.h"
#include "harness/loader/planner.h"
#include "harness/loader/spec_parser.h"
#include "harness/loader/spec_permutations.h"
#include "harness/model/step_kind.h"
#include "harness/model/terminal_text.h"

namespace racelab::cli {
namespace {

// One step as `racelab explain` lists it: the kind's report name (harness/model/step_kind.h) and
// its value ("barrier b1", "sleep 500 ms", "commit"); an SQL step as "name: SQL" with its
// modifiers.
std::string StepLine(const Step& s) {
  const StepKindInfo& info = InfoOf(s.kind);
  std::string value;
  switch (s.kind) {  // no default: -Wswitch names a new kind here
    case StepKind::kSql: {
      std::string sql = s.sql;
      for (auto& c : sql) c = c == '\n' ? ' ' : c;
      std::string line = fmt::format("{}: {}", s.name, sql);
      if (!s.when.empty()) line += fmt::format("   [when {}]", s.when);
      if (!s.capture.empty()) line += fmt::format("   [capture {}]", fmt::join(s.capture, ", "));
      if (s.on_error == OnError::kContinue) line += "   [on_error continue]";
      return line;
    }
    case StepKind::kProbe: {  // on racelab's control connection, with what it must read
      std::string sql = s.sql;
      for (auto& c : sql) c = c == '\n' ? ' ' : c;
      return fmt::format("{}: probe {}   [equals {}]", s.name, sql, fmt::join(s.equals, ", "));
    }
    case StepKind::kBarrier:
      value = s.barrier;
      break;
    case StepKind::kSleep:
      value = s.sleep_ms + " ms";
      break;
    case StepKind::kAwaitBlocked:
    case StepKind::kAwaitEnded:
    case StepKind::kTerminate:
      value = s.target;
      break;
    case StepKind::kProgram:  // a stretch of an exec session's program: its pause point
      return s.name == "start" ? "start: the program, until its first pause point"
                               : fmt::format("{}: released from pause point {}", s.name, s.name);
    case StepKind::kBegin:
    case StepKind::kCommit:
    case StepKind::kRollback:
      break;  // info.takes_value is false
  }
  std::string line(info.report_name);
  if (info.takes_value) line += " " + value;
  return line;
}

// A spec file as `racelab list` shows it: its file name (what `racelab run DIR/NAME.spec` takes)
// and how many permutations a run of it runs (its permutation lines, else every interleaving).
struct SpecRow {
  std::string file_name;
  size_t permutations = 0;
};
// The engine a spec file runs on (the registry's, PostgreSQL), or "-" when this build has none.
std::string_view SpecEngineName() {
  const EngineDescriptor* e = IsolationSpecEngine();
  return e != nullptr ? e->name() : "-";
}

// Parses the spec at `path` and counts its permutations without building them; never connects.
// Errors: kUsage "FILE:LINE:COL: what" (a spec file's limits, harness/loader/limits.h).
Result<SpecRow> ReadSpecRow(const std::string& path) {
  Result<IsolationSpec> spec = LoadSpecFile(path);
  if (!spec.ok()) return spec.status();
  Result<size_t> count = CountSpecPermutations(*spec);
  if (!count.ok()) return count.status();
  return SpecRow{std::filesystem::path(path).filename().string(), *count};
}

}  // namespace

int ListCommand(const std::vector<std::string>& tags, const StopFlag* stop) {
  const std::string dir = DefaultScenarioDir();
  // The folder's spec files are listed too (they have no tags: not with --tag). A folder of spec
  // files only is not an empty catalogue; any other listing error is LoadScenarios' to report.
  Result<CatalogueFiles> files = CatalogueFilesIn(dir);
  std::vector<SpecRow> specs;
  if (files.ok() && tags.empty()) {
    for (const std::string& path : files->specs) {
      if (stop->stop_requested()) return InterruptedExitCode(stop);
      Result<SpecRow> row = ReadSpecRow(path);
      if (!row.ok()) return UsageError(row.status().message());
      specs.push_back(std::move(row).value());
    }
  }
  std::vector<Scenario> scenarios;
  if (!files.ok() || !files->scenarios.empty() || files->specs.empty()) {
    auto loaded = LoadScenarios({}, dir, [stop] { return stop->stop_requested(); });
    if (stop->stop_requested()) return InterruptedExitCode(stop);
    if (!loaded.ok()) return UsageError(loaded.status().message());
    scenarios = FilterByTags(std::move(loaded.value()), tags);
  }
  size_t width = 4, tag_width = 4, engine_width = 7;
  for (const auto& s : scenarios) {
    width = std::max(width, s.name.size());
    tag_width = std::max(tag_width, fmt::format("{}", fmt::join(s.tags, ",")).size());
    engine_width = std::max(engine_width, fmt::format("{}", fmt::join(s.engines, ",")).size());
  }
  for (const SpecRow& spec : specs) width = std::max(width, spec.file_name.size());
  if (!specs.empty()) engine_width = std::max(engine_width, SpecEngineName().size());
  // ENGINES: the scenario's engines: list, the engines `racelab run --engine` runs it on.
  std::cout << fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", "NAME", width, "TAGS", tag_width,
                           "ENGINES", engine_width, "TITLE");
  for (const auto& s : scenarios) {
    // Names, tags and titles come from scenario files: control characters are shown escaped.
    std::cout << fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", SanitizeForTerminal(s.name, false),
                             width,
                             SanitizeForTerminal(fmt::format("{}", fmt::join(s.tags, ",")), false),
                             tag_width, fmt::format("{}", fmt::join(s.engines, ",")), engine_width,
                             SanitizeForTerminal(s.title, false));
  }
  for (const SpecRow& spec : specs) {
    std::cout << fmt::format(
        "{:<{}}  {:<{}}  {:<{}}  PostgreSQL isolation spec file, {} permutation(s)\n",
        SanitizeForTerminal(spec.file_name, false), width, "-", tag_width, SpecEngineName(),
        engine_width, spec.permutations);
  }
  std::cout << fmt::format("{} scenario(s) in {}\n", scenarios.size(),
                           SanitizeForTerminal(dir, false));
  if (!specs.empty()) {
    std::cout << fmt::format("{} spec file(s): run one by its path (racelab run {}/{})\n",
                             specs.size(), SanitizeForTerminal(dir, false),
                             SanitizeForTerminal(specs[0].file_name, false));
  }
  return 0;
}

int ExplainCommand(const std::string& name, const StopFlag* stop) {
  auto loaded =
      LoadScenarios({name}, DefaultScenarioDir(), [stop] { return stop->stop_requested(); });
  if (stop->stop_requested()) return InterruptedExitCode(stop);
  if (!loaded.ok()) return UsageError(loaded.status().message());
  std::ostringstream
      out;  // printed once, through SanitizeForTerminal: the text comes from scenario files
  for (const auto& any_engine : loaded.value()) {
    for (const std::string& engine :
         any_engine.engines) {  // the file as read for each of its engines
      const Scenario& s = *any_engine.ForEngine(engine);
      if (any_engine.engines.size() > 1) out << "── on " << engine << " ──\n";
      out << s.name << " — " << s.title << "\n" << s.loc.file << "\n\n" << s.teaches << "\n";
      if (s.teaches.empty() || s.teaches.back() != '\n') out << "\n";
      if (!s.tags.empty()) out << "Tags: " << fmt::format("{}", fmt::join(s.tags, ", ")) << "\n";
      out << "Engines: " << fmt::format("{}", fmt::join(s.engines, ", ")) << "\n";
      out << "Parameters (override with --set NAME=VALUE):\n";
      for (const auto& [k, v] : s.params) out << "  " << k << " = " << v << "\n";
      out << "Isolation levels:";
      for (auto l : s.isolation.empty() ? AllIsolationLevels() : s.isolation)
        out << " [" << IsolationName(l) << "]";
      out << "\n\nSessions:\n";
      for (const auto& sess : s.sessions) {
        out << "  " << sess.name << " × " << sess.count << "\n";
        for (const auto& [k, v] : sess.settings) out << "    SET " << k << " = " << v << "\n";
        for (const auto& st : sess.steps) {
          out << "    - " << StepLine(st) << "\n";
          // The question racelab step shows before the step (docs/step.md "Predict, then watch").
          if (!st.ask.empty()) out << "        ask: " << st.ask << "\n";
        }
      }
      if (!s.outcome.win_step.empty()) {
        out << fmt::format("\nA session wins when its step '{}' returns {} row(s){}.\n",
                           s.outcome.win_step, s.outcome.win_rows,
                           s.outcome.win_committed ? " and it commits" : "");
      }
      // Exactly what the evaluator will check, level by level (the base with that level's
      // overrides).
      PlanOptions options;
      options.isolation = s.isolation.empty() ? AllIsolationLevels() : s.isolation;
      options.engine = engine;
      auto items = ExpandScenario(any_engine, options);
      if (!items.ok()) return UsageError(items.status().message());
      std::string params;
      for (const auto& [k, v] : s.params)
        params += fmt::format("{}{} = {}", params.empty() ? "" : ", ", k, v);
      out << "\nChecked in every trial" << (params.empty() ? "" : " (with " + params + ")")
          << ":\n";
      for (const PlanItem& item : items.value()) {
        // An ordered scenario's permutations are one item per level each: named as the reports name
        // them.
        auto order = std::find_if(item.params.begin(), item.params.end(),
                                  [](const auto& p) { return p.first == kOrderParam; });
        out << "  at " << IsolationName(item.isolation)
            << (order == item.params.end()
                    ? ""
                    : fmt::format(" with {}={}", order->first, order->second))
            << ":\n";
        for (const std::string& text : CheckTexts(item)) out << "    " << text << "\n";
      }
      if (any_engine.engines.size() > 1) out << "\n";
    }
  }
  std::cout << SanitizeForTerminal(out.str(), /*keep_newlines=*/true);
  return 0;
}

}  // namespace racelab::cli
