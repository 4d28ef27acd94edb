// `racelab run`: select → plan → engine → run → evaluate → report. Orchestration only: the stages
// live in their own libraries (docs/architecture.md); this file builds the plan, opens the engine,
// hands both to the pipeline and maps outcomes to exit codes.
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include <unistd.h>

#include <fmt/format.h>

#include "harness/cli/app.h"
#include "harness/cli/run_reports.h"
#include "harness/engine/open_engine.h"
#include "harness/eval/result_accumulator.h"
#include "harness/loader/catalogue.h"
#include "harness/loader/planner.h"
#include "harness/model/terminal_text.h"
#include "harness/pipeline/pipeline.h"
#include "reports/reporter.h"

namespace racelab::cli {
namespace {

Result<std::vector<IsolationLevel>> ParseLevels(const std::string& text) {
  std::vector<IsolationLevel> out;
  if (text.empty()) return out;
  if (text == "all") {  // every level; each scenario then runs at those of them it lists
    return std::vector<IsolationLevel>{IsolationLevel::kReadUncommitted, IsolationLevel::kReadCommitted,
                                       IsolationLevel::kRepeatableRead, IsolationLevel::kSerializable};
  }
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    while (!part.empty() && part.front() == ' ') part.erase(part.begin());
    while (!part.empty() && part.back() == ' ') part.pop_back();
    auto level = ParseIsolation(part);
    if (!level) {
      return Status::Usage(fmt::format("--isolation: unknown level '{}' (expected all, or a comma list of ru, rc, rr, "
                                       "ser, read uncommitted, read committed, repeatable read, serializable)", part));
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

// Builds the plan; every error here is a usage/scenario error (exit 2). Loading stops early once
// `stop` is requested.
Result<Plan> BuildPlan(const RunArgs& args, const StopFlag* stop) {
  auto scenarios = LoadScenarios(args.selectors, DefaultScenarioDir(),
                                 [stop] { return stop->stop_requested(); });
  if (!scenarios.ok()) return scenarios.status();
  std::vector<Scenario> selected = FilterByTags(std::move(scenarios.value()), args.tags);
  if (selected.empty()) return Status::Usage("no scenario matches the selection (see 'racelab list')");
  auto levels = ParseLevels(args.isolation);
  if (!levels.ok()) return levels.status();
  PlanOptions po;
  po.isolation = *levels;
  EngineOptions chosen;
  chosen.engine = args.engine;
  chosen.dsn = args.dsn;
  po.engine = SelectedEngine(chosen);
  po.trials = args.trials;
  po.trial_timeout_ms = args.trial_timeout_ms;
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
  // A --set value that is a connection string is a secret: the planner's errors quote values, so they
  // are shown with that value redacted (the whole value, as the command line shows it).
  auto redacted = [&](Status st) {
    std::string msg = st.message();
    for (const auto& [key, value] : po.set) {
      if (!LooksLikeDsn(value)) continue;
      const std::string safe = RedactDsn(value);
      for (size_t at = msg.find(value); at != std::string::npos; at = msg.find(value, at + safe.size())) {
        msg.replace(at, value.size(), safe);
      }
    }
    return st.code() == StatusCode::kUsage      ? Status::Usage(msg)
           : st.code() == StatusCode::kDatabase ? Status::Database(msg)
                                                : Status::Internal(msg);
  };
  Plan plan;
  for (const auto& s : selected) {
    // --isolation chooses among the levels a scenario lists: its expectations were written for those
    // only (a retry-on-40001 scenario listed at repeatable read and serializable has no lesson at read
    // committed), so running it elsewhere would report a false `fail`. A scenario that lists none of the
    // requested levels is skipped, with a note.
    PlanOptions scenario_po = po;
    const Scenario* on_engine = s.ForEngine(po.engine);
    if (on_engine == nullptr) {  // docs/scenario-format.md "Engines and SQL that differs"
      std::string engines;
      for (const std::string& e : s.engines) engines += fmt::format("{}{}", engines.empty() ? "" : ", ", e);
      std::cerr << "racelab: " << SanitizeForTerminal(s.name) << " skipped: it runs on " << engines
                << " (its engines: list), not on " << po.engine << "\n";
      continue;
    }
    if (!po.isolation.empty() && !on_engine->isolation.empty()) {
      scenario_po.isolation.clear();
      for (IsolationLevel level : po.isolation) {
        if (std::find(on_engine->isolation.begin(), on_engine->isolation.end(), level) !=
            on_engine->isolation.end()) {
          scenario_po.isolation.push_back(level);
        }
      }
      if (scenario_po.isolation.empty()) {
        std::string listed;
        for (IsolationLevel level : on_engine->isolation) listed += fmt::format("{}{}", listed.empty() ? "" : ", ", IsolationName(level));
        std::cerr << "racelab: " << SanitizeForTerminal(s.name) << " skipped: it runs only at " << listed
                  << " (its isolation: list), not at the levels --isolation asks for\n";
        continue;
      }
    }
    auto items = ExpandScenario(s, scenario_po);
    if (!items.ok()) return redacted(items.status());
    for (auto& it : items.value()) {
      // Parameters are already substituted into the SQL; item.params is what reports show, so a value
      // that is a connection string is shown with its password removed (README "Passwords").
      for (auto& [name, value] : it.params) {
        if (LooksLikeDsn(value)) value = RedactDsn(value);
      }
      plan.items.push_back(std::move(it));
    }
  }
  if (plan.items.empty()) {
    return Status::Usage(fmt::format("no selected scenario runs on {} at the levels --isolation asks for",
                                     po.engine));
  }
  return plan;
}

// Creates `dir` if needed and proves a file can be written in it.
Status CheckWritableDir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::Usage(fmt::format("--out {}: cannot create the folder: {}", dir, ec.message()));
  std::filesystem::path probe = std::filesystem::path(dir) / ".racelab-write-check";
  std::ofstream f(probe);
  bool ok = static_cast<bool>(f);
  f.close();
  std::filesystem::remove(probe, ec);
  if (!ok) return Status::Usage(fmt::format("--out {}: cannot write files in this folder", dir));
  return Status::Ok();
}

int ExitCodeFor(const Status& s) { return s.code() == StatusCode::kUsage ? 2 : 3; }

}  // namespace

int RunCommand(const RunArgs& args, const StopFlag* stop) {
  auto made = MakeReporters(args.formats);
  if (!made.ok()) return UsageError(made.status().message());
  const std::vector<std::unique_ptr<Reporter>>& reporters = made.value();
  const auto details = ParseDetailsPolicy(args.details);
  if (!details) return UsageError("--details: expected none, failed or all, not '" + args.details + "'");
  const bool need_dir = AnyFileReporter(reporters);
  RunReport report;
  report.racelab_version = RACELAB_VERSION;
  report.created_at = UtcNow();
  report.command = args.command_line;
  report.seed = args.seed;
  report.details = DetailsPolicyName(*details);
  auto plan = BuildPlan(args, stop);
  // Interrupted while loading: nothing was started or written yet.
  if (stop->stop_requested()) return InterruptedExitCode(stop);
  // A scenario-file error is written to the reports too (a CI job finds its JUnit file on exit 2).
  Status writable = need_dir ? CheckWritableDir(args.out) : Status::Ok();
  if (!plan.ok()) {
    report.run_error = plan.status().message();
    if (need_dir && writable.ok()) WriteReports(report, reporters, args.out, /*files_only=*/true);
    return UsageError(plan.status().message());
  }
  auto gate = compare::PrepareRunGate(args.gate);  // --shard, --baseline: checked before anything runs
  if (!gate.ok()) {
    report.run_error = gate.status().message();
    if (need_dir && writable.ok()) WriteReports(report, reporters, args.out, /*files_only=*/true);
    return UsageError(gate.status().message());
  }
  compare::KeepShard(*gate, &plan.value().items, args.quiet);
  // Checked before any trial runs: a run must not end with nowhere to write its reports.
  if (!writable.ok()) return UsageError(writable.message());
  if (plan.value().items.empty()) {
    // An empty shard (--shard K/N with fewer than K results): its reports say so; no server starts.
    EngineOptions chosen;
    chosen.engine = args.engine;
    chosen.dsn = args.dsn;
    report.target.engine = SelectedEngine(chosen);
    if (!WriteReports(report, reporters, args.out, /*files_only=*/false)) return 3;
    if (need_dir && !args.quiet) std::cerr << "racelab: reports written to " << SanitizeForTerminal(args.out) << "/\n";
    return compare::FinishRunGate(*gate, report, args.formats, args.out, 0);
  }

  if (stop->stop_requested()) return InterruptedExitCode(stop);  // before any cluster starts
  EngineOptions eo;
  eo.engine = args.engine;
  eo.dsn = args.dsn;
  eo.server_bindir = args.pg_bindir;
  eo.connect_timeout_ms = args.connect_timeout_ms;
  eo.stop = stop;
  eo.confine = !args.no_confine;
  eo.allow_superuser = args.allow_superuser;
  if (!args.quiet && args.dsn.empty()) {
    std::cerr << "racelab: starting embedded " << EngineDisplayName(SelectedEngine(eo)) << "…\n";
  }
  auto engine = OpenEngine(eo);
  if (!engine.ok()) {
    std::cerr << "racelab: " << SanitizeForTerminal(engine.status().message()) << "\n";
    report.run_error = engine.status().message();
    for (const PlanItem& item : plan.value().items) report.not_run.push_back({&item, "the run ended before it"});
    WriteReports(report, reporters, args.out, /*files_only=*/true);
    return stop->stop_requested() ? 128 + stop->signal_number() : ExitCodeFor(engine.status());
  }
  Engine& db = *engine.value();
  if (!args.quiet && db.ready_ms() >= 0) {
    std::cerr << fmt::format("racelab: {} {} ready in {:.0f} ms\n", EngineDisplayName(db.name()),
                             SanitizeForTerminal(db.info().server_version, false), db.ready_ms());
  }

  RunOptions ro;
  ro.engine = &db;
  ro.statement_timeout_ms = args.statement_timeout_ms;
  ro.trial_timeout_ms = args.trial_timeout_ms;
  ro.connect_timeout_ms = args.connect_timeout_ms;
  ro.seed = args.seed;
  ro.stop = stop;

  report.target = db.info();
  const auto& items = plan.value().items;
  const bool tty = isatty(STDERR_FILENO) != 0;
  // On a terminal the line is rewritten after every trial; in a log (CI), one line per result.
  std::string head;
  int failed = 0;
  PipelineHooks hooks;
  hooks.on_item_start = [&](size_t i, const PlanItem& item) {
    failed = 0;
    head = fmt::format("[{}/{}] {} @ {}", i + 1, items.size(), SanitizeForTerminal(item.scenario, false),
                       IsolationName(item.isolation));
    if (!args.quiet && !tty) std::cerr << head << ": " << item.trials << " trials\n";
  };
  hooks.on_trial = [&](const PlanItem& it, const TrialResult& t) {
    if (!t.error.empty()) ++failed;
    if (args.quiet || !tty) return;
    std::cerr << fmt::format("\r{}: trial {}/{}{}", head, t.index + 1, it.trials,
                             failed ? fmt::format(" ({} with errors)", failed) : "")
              << std::flush;
  };
  hooks.on_item_done = [&](size_t, const ResultSummary& summary, const Status& s) {
    if (!args.quiet && tty) std::cerr << "\n";
    if (!s.ok() && !args.quiet) {
      std::cerr << "racelab: " << SanitizeForTerminal(summary.item->scenario + ": " + s.message()) << "\n";
    }
    if (!args.quiet && !tty) {
      std::cerr << fmt::format("{}: {} ({} trials)\n", head, VerdictName(summary.verdict), summary.trials);
    }
  };
  // Trials are evaluated as they end and folded into aggregates: memory stays flat with --trials (only
  // the trials --details keeps are held).
  PipelineResult ran = RunPlan(plan.value(), ro, hooks, *details);
  report.results = std::move(ran.results);
  // One result per item run, in plan order: the rest did not run (an interrupt).
  for (size_t i = report.results.size(); i < items.size(); ++i) {
    report.not_run.push_back(
        {&items[i], fmt::format("interrupted by signal {}", stop->signal_number() ? stop->signal_number() : SIGINT)});
  }
  const bool scenario_error = ran.scenario_error;  // a scenario's SQL cannot run: exit 2, not 1
  std::string scenario_hint;  // asked before Close(): the engine forgets its generated role there
  if (scenario_error) {
    std::set<std::string> sqlstates;
    for (const auto& r : report.results) {
      for (const auto& [code, n] : r.sqlstates) sqlstates.insert(code);
    }
    scenario_hint = db.ScenarioErrorHint(sqlstates);
  }
  Status closed = db.Close();
  if (!closed.ok()) std::cerr << "racelab: " << SanitizeForTerminal(closed.message()) << "\n";

  std::error_code ec;
  if (!WriteReports(report, reporters, args.out, /*files_only=*/false)) ec = std::make_error_code(std::errc::io_error);
  if (need_dir && !ec && !args.quiet) std::cerr << "racelab: reports written to " << SanitizeForTerminal(args.out) << "/\n";

  if (stop->stop_requested()) return 128 + (stop->signal_number() ? stop->signal_number() : SIGINT);
  bool any_error = std::any_of(report.results.begin(), report.results.end(),
                               [](const ResultSummary& r) { return r.verdict == Verdict::kError; });
  bool any_fail = std::any_of(report.results.begin(), report.results.end(),
                              [](const ResultSummary& r) { return r.verdict == Verdict::kFail; });
  if (scenario_error) {
    std::cerr << "racelab: a scenario's SQL could not run (see the errors above and in the reports)\n";
    if (!scenario_hint.empty()) std::cerr << "racelab: " << scenario_hint << "\n";
    return 2;
  }
  if (any_error || ec) return 3;
  return compare::FinishRunGate(*gate, report, args.formats, args.out, any_fail ? 1 : 0);
}

}  // namespace racelab::cli
