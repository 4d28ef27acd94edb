// `racelab run`: select → plan → engine → run → evaluate → report. Orchestration only: the stages
// live in their own libraries (docs/architecture.md); this file asks for the plan (run_plan.h), has
// each engine of it run in turn (engine_runs.h), writes the reports and maps outcomes to exit
// codes.
#include <fmt/format.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "harness/cli/app.h"
#include "harness/cli/engine_runs.h"
#include "harness/cli/report_folder.h"
#include "harness/cli/run_plan.h"
#include "harness/cli/run_reports.h"
#include "harness/cli/terminal.h"
#include "harness/compare/anomaly_matrix.h"
#include "harness/engine_registry/open_engine.h"
#include "harness/eval/result_accumulator.h"
#include "harness/model/terminal_text.h"
#include "reports/reporter.h"

namespace racelab::cli {
namespace {

std::string UtcNow() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

int ExitCodeFor(const Status& s) { return s.code() == StatusCode::kUsage ? 2 : 3; }

}  // namespace

int RunCommand(const RunArgs& args, const StopFlag* stop) {
  auto made = MakeReporters(args.formats, TerminalStyleFor(TerminalFactsOf(STDOUT_FILENO)));
  if (!made.ok()) return UsageError(made.status().message());
  const std::vector<std::unique_ptr<Reporter>>& reporters = made.value();
  const auto details = ParseDetailsPolicy(args.details);
  if (!details)
    return UsageError("--details: expected none, failed or all, not '" + args.details + "'");
  const bool need_dir = AnyFileReporter(reporters);
  RunReport report;
  report.racelab_version = RACELAB_VERSION;
  report.created_at = UtcNow();
  report.command = args.command_line;
  report.seed = args.seed;
  report.details = DetailsPolicyName(*details);
  auto plan =
      BuildRunPlan(args, stop);  // the engines of --engine × scenarios × levels (run_plan.h)
  // Interrupted while loading: nothing was started or written yet.
  if (stop->stop_requested()) return InterruptedExitCode(stop);
  // A scenario-file error is written to the reports too (a CI job finds its JUnit file on exit 2).
  // The folder is held from here to the end of the run: no second run writes into it meanwhile, and
  // an earlier run's reports are moved aside or replaced, never silently (report_folder.h).
  Result<std::unique_ptr<ReportFolder>> folder =
      need_dir ? ReportFolder::Open(args.out)
               : Result<std::unique_ptr<ReportFolder>>(std::unique_ptr<ReportFolder>());
  ReportFolder* dir = folder.ok() ? folder.value().get() : nullptr;
  if (!plan.ok()) {
    report.run_error = plan.status().message();
    if (!folder.ok()) UsageError(folder.status().message());
    if (dir != nullptr) WriteReports(report, reporters, dir, /*files_only=*/true);
    return UsageError(plan.status().message());
  }
  auto gate = compare::PrepareRunGate(args.gate,
                                      stop);  // --shard, --baseline: checked before anything runs
  if (!gate.ok() && stop->stop_requested()) return InterruptedExitCode(stop);
  if (!gate.ok()) {
    report.run_error = gate.status().message();
    if (!folder.ok()) UsageError(folder.status().message());
    if (dir != nullptr) WriteReports(report, reporters, dir, /*files_only=*/true);
    return UsageError(gate.status().message());
  }
  // Checked before any trial runs: a run must not end with nowhere to write its reports.
  if (!folder.ok()) return UsageError(folder.status().message());
  compare::KeepShard(&gate.value(), &plan.value().plan.items, args.quiet);
  if (plan.value().plan.items.empty()) {
    // An empty shard (--shard K/N with fewer than K results): its reports say so; no server starts.
    report.target.engine = plan.value().engines.front();
    if (!WriteReports(report, reporters, dir, /*files_only=*/false)) return 3;
    if (need_dir && !args.quiet)
      std::cerr << "racelab: reports written to " << SanitizeForTerminal(args.out) << "/\n";
    return compare::FinishRunGate(*gate, report, args.formats, args.out, 0);
  }

  if (stop->stop_requested()) return InterruptedExitCode(stop);  // before any cluster starts
  const std::vector<std::string>& engines = plan.value().engines;
  const std::vector<Plan> parts = SplitByEngine(std::move(plan.value().plan), engines);
  EngineRuns ran = RunEngines(parts, engines, args, *details, stop);  // one engine after another
  report.results = std::move(ran.results);
  report.not_run = std::move(ran.not_run);
  if (!ran.targets.empty()) report.target = ran.targets.front();
  if (engines.size() > 1) {
    report.targets = ran.targets;
    report.skipped = std::move(plan.value().skipped);
  }
  compare::AttachAnomalyMatrix(&report);  // racelab.html's matrix section, when it has anomaly-*
  if (!ran.open_error.ok()) {
    report.run_error = ran.open_error.message();
    // The console table too when other engines ran: their results are real.
    WriteReports(report, reporters, dir, /*files_only=*/report.results.empty());
    return stop->stop_requested() ? 128 + stop->signal_number() : ExitCodeFor(ran.open_error);
  }
  const bool scenario_error = ran.scenario_error;  // a scenario's SQL cannot run: exit 2, not 1
  const std::string& scenario_hint = ran.scenario_hint;

  std::error_code ec;
  if (!WriteReports(report, reporters, dir, /*files_only=*/false))
    ec = std::make_error_code(std::errc::io_error);
  if (need_dir && !ec && !args.quiet)
    std::cerr << "racelab: reports written to " << SanitizeForTerminal(args.out) << "/\n";

  if (stop->stop_requested()) return 128 + (stop->signal_number() ? stop->signal_number() : SIGINT);
  bool any_error = std::any_of(report.results.begin(), report.results.end(),
                               [](const ResultSummary& r) { return r.verdict == Verdict::kError; });
  bool any_fail = std::any_of(report.results.begin(), report.results.end(),
                              [](const ResultSummary& r) { return r.verdict == Verdict::kFail; });
  if (scenario_error) {
    std::cerr
        << "racelab: a scenario's SQL could not run (see the errors above and in the reports)\n";
    if (!scenario_hint.empty()) std::cerr << "racelab: " << scenario_hint << "\n";
    return 2;
  }
  if (any_error || ec) return 3;
  return compare::FinishRunGate(*gate, report, args.formats, args.out, any_fail ? 1 : 0);
}

}  // namespace racelab::cli
