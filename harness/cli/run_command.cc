// `racelab run`: select → plan → target → run → evaluate → report. Orchestration only: the stages
// live in their own libraries; this file wires them and maps outcomes to exit codes.
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include <unistd.h>

#include <fmt/format.h>

#include "harness/cli/app.h"
#include "harness/cli/target.h"
#include "harness/eval/evaluator.h"
#include "harness/loader/catalogue.h"
#include "harness/loader/planner.h"
#include "harness/run/runner.h"
#include "reports/reporter.h"

namespace racelab::cli {
namespace {

Result<std::vector<IsolationLevel>> ParseLevels(const std::string& text) {
  std::vector<IsolationLevel> out;
  if (text.empty()) return out;
  if (text == "all") return AllIsolationLevels();
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    while (!part.empty() && part.front() == ' ') part.erase(part.begin());
    while (!part.empty() && part.back() == ' ') part.pop_back();
    auto level = ParseIsolation(part);
    if (!level) {
      return Status::Usage(fmt::format("--isolation: unknown level '{}' (expected all, or a comma list of rc, rr, "
                                       "ser, read committed, repeatable read, serializable)", part));
    }
    if (std::find(out.begin(), out.end(), *level) == out.end()) out.push_back(*level);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string UtcNow() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Builds the plan; every error here is a usage/scenario error (exit 2).
Result<Plan> BuildPlan(const RunArgs& args) {
  auto scenarios = LoadScenarios(args.selectors, DefaultScenarioDir());
  if (!scenarios.ok()) return scenarios.status();
  std::vector<Scenario> selected = FilterByTags(std::move(scenarios.value()), args.tags);
  if (selected.empty()) return Status::Usage("no scenario matches the selection (see 'racelab list')");
  auto levels = ParseLevels(args.isolation);
  if (!levels.ok()) return levels.status();
  PlanOptions po;
  po.isolation = *levels;
  po.trials = args.trials;
  for (const auto& kv : args.set) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) return Status::Usage(fmt::format("--set '{}': expected NAME=VALUE", kv));
    std::string key = kv.substr(0, eq);
    bool declared = std::any_of(selected.begin(), selected.end(), [&](const Scenario& s) {
      return std::any_of(s.params.begin(), s.params.end(), [&](const auto& p) { return p.first == key; });
    });
    if (!declared) return Status::Usage(fmt::format("--set {}: no selected scenario has a parameter '{}'", key, key));
    po.set[key] = kv.substr(eq + 1);
  }
  Plan plan;
  for (const auto& s : selected) {
    auto items = ExpandScenario(s, po);
    if (!items.ok()) return items.status();
    for (auto& it : items.value()) plan.items.push_back(std::move(it));
  }
  return plan;
}

int ExitCodeFor(const Status& s) { return s.code() == StatusCode::kUsage ? 2 : 3; }

}  // namespace

int RunCommand(const RunArgs& args, const StopFlag* stop) {
  std::vector<std::unique_ptr<Reporter>> reporters;
  std::set<std::string> seen_formats;
  for (size_t start = 0; start <= args.formats.size();) {
    size_t comma = args.formats.find(',', start);
    std::string name = args.formats.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? args.formats.size() + 1 : comma + 1;
    if (name.empty() || !seen_formats.insert(name).second) continue;
    auto r = MakeReporter(name);
    if (!r.ok()) return UsageError("--format: " + r.status().message());
    reporters.push_back(std::move(r.value()));
  }
  auto plan = BuildPlan(args);
  if (!plan.ok()) return UsageError(plan.status().message());

  TargetOptions to{args.dsn, args.pg_bindir, args.connect_timeout_ms, stop};
  if (!args.quiet) std::cerr << (args.dsn.empty() ? "racelab: starting embedded PostgreSQL…\n" : "");
  auto target = Target::Open(to);
  if (!target.ok()) {
    std::cerr << "racelab: " << target.status().message() << "\n";
    return stop->stop_requested() ? 128 + stop->signal_number() : ExitCodeFor(target.status());
  }
  if (!args.quiet && target.value()->ready_ms() >= 0) {
    std::cerr << fmt::format("racelab: PostgreSQL {} ready in {:.0f} ms\n", target.value()->info().server_version,
                             target.value()->ready_ms());
  }

  RunOptions ro;
  ro.conninfo = target.value()->conninfo();
  ro.statement_timeout_ms = args.statement_timeout_ms;
  ro.trial_timeout_ms = args.trial_timeout_ms;
  ro.connect_timeout_ms = args.connect_timeout_ms;
  ro.seed = args.seed;
  ro.stop = stop;
  Runner runner(ro);

  RunReport report;
  report.racelab_version = RACELAB_VERSION;
  report.created_at = UtcNow();
  report.command = args.command_line;
  report.seed = args.seed;
  report.target = target.value()->info();
  const auto& items = plan.value().items;
  const bool tty = isatty(STDERR_FILENO) != 0;
  for (size_t i = 0; i < items.size(); ++i) {
    const PlanItem& item = items[i];
    if (stop->stop_requested()) break;
    std::vector<TrialResult> trials;
    int failed = 0;
    // On a terminal the line is rewritten after every trial; in a log, one line per trial.
    auto progress = [&](const PlanItem& it, const TrialResult& t) {
      if (args.quiet) return;
      if (!t.error.empty()) ++failed;
      std::cerr << fmt::format("{}[{}/{}] {} @ {}: trial {}/{}{}", tty ? "\r" : "", i + 1, items.size(),
                               it.scenario, IsolationName(it.isolation), t.index + 1, it.trials,
                               failed ? fmt::format(" ({} with errors)", failed) : "")
                << (tty ? "" : "\n") << std::flush;
    };
    Status s = runner.RunItem(item, &trials, progress);
    if (!args.quiet && tty) std::cerr << "\n";
    std::vector<TrialVerdict> verdicts;
    for (auto& t : trials) verdicts.push_back(EvaluateTrial(item, std::move(t)));
    report.results.push_back(Summarize(item, std::move(verdicts), s.ok() ? "" : s.message()));
    if (!s.ok() && !args.quiet) std::cerr << "racelab: " << item.scenario << ": " << s.message() << "\n";
  }
  Status closed = target.value()->Close();
  if (!closed.ok()) std::cerr << "racelab: " << closed.message() << "\n";

  std::error_code ec;
  bool need_dir = std::any_of(reporters.begin(), reporters.end(), [](const auto& r) { return !r->file_name().empty(); });
  if (need_dir) std::filesystem::create_directories(args.out, ec);
  if (ec) std::cerr << "racelab: cannot create " << args.out << ": " << ec.message() << "\n";
  for (const auto& r : reporters) {
    if (r->file_name().empty()) {
      r->Write(report, std::cout);
      continue;
    }
    std::filesystem::path p = std::filesystem::path(args.out) / std::string(r->file_name());
    std::ofstream f(p);
    r->Write(report, f);
    if (!f) {
      std::cerr << "racelab: cannot write " << p.string() << "\n";
      ec = std::make_error_code(std::errc::io_error);
    }
  }
  if (need_dir && !ec && !args.quiet) std::cerr << "racelab: reports written to " << args.out << "/\n";

  if (stop->stop_requested()) return 128 + (stop->signal_number() ? stop->signal_number() : SIGINT);
  bool any_error = std::any_of(report.results.begin(), report.results.end(),
                               [](const ResultSummary& r) { return r.verdict == Verdict::kError; });
  bool any_fail = std::any_of(report.results.begin(), report.results.end(),
                              [](const ResultSummary& r) { return r.verdict == Verdict::kFail; });
  if (any_error || ec) return 3;
  return any_fail ? 1 : 0;
}

}  // namespace racelab::cli
