// Each engine of `racelab run` in turn (engine_runs.h).
#include "harness/cli/engine_runs.h"
#include "harness/cli/run_plan.h"
#include "harness/cli/target_notice.h"

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <set>

#include <unistd.h>

#include <fmt/format.h>

#include "harness/engine/open_engine.h"
#include "harness/model/terminal_text.h"
#include "harness/pipeline/pipeline.h"

namespace racelab::cli {
namespace {

// Progress on stderr: on a terminal the line is rewritten after every trial; in a log (CI), one line
// per result. Items are numbered over the whole run: "[3/8] naive-claim @ serializable on sqlite".
PipelineHooks ProgressHooks(const RunArgs& args, size_t offset, size_t total, bool several, std::string* head,
                            int* failed) {
  const bool tty = isatty(STDERR_FILENO) != 0;
  PipelineHooks hooks;
  hooks.on_item_start = [=, &args](size_t i, const PlanItem& item) {
    *failed = 0;
    *head = fmt::format("[{}/{}] {} @ {}{}", offset + i + 1, total, SanitizeForTerminal(item.scenario, false),
                        IsolationName(item.isolation), several ? " on " + item.engine : std::string());
    if (!args.quiet && !tty) std::cerr << *head << ": " << item.trials << " trials\n";
  };
  hooks.on_trial = [=, &args](const PlanItem& it, const TrialResult& t) {
    if (!t.error.empty()) ++*failed;
    if (args.quiet || !tty) return;
    std::cerr << fmt::format("\r{}: trial {}/{}{}", *head, t.index + 1, it.trials,
                             *failed ? fmt::format(" ({} with errors)", *failed) : "")
              << std::flush;
  };
  hooks.on_item_done = [=, &args](size_t, const ResultSummary& summary, const Status& s) {
    if (!args.quiet && tty) std::cerr << "\n";
    if (!s.ok() && !args.quiet) {
      std::cerr << "racelab: " << SanitizeForTerminal(summary.item->scenario + ": " + s.message(), true) << "\n";
    }
    if (!args.quiet && !tty) {
      std::cerr << fmt::format("{}: {} ({} trials)\n", *head, VerdictName(summary.verdict), summary.trials);
    }
  };
  return hooks;
}

void NotRunFrom(const std::vector<Plan>& parts, size_t part, size_t first_item, const std::string& reason,
                EngineRuns* out) {
  for (size_t p = part; p < parts.size(); ++p) {
    const auto& items = parts[p].items;
    for (size_t i = p == part ? first_item : 0; i < items.size(); ++i) out->not_run.push_back({&items[i], reason});
  }
}

}  // namespace

std::vector<Plan> SplitByEngine(Plan plan, const std::vector<std::string>& engines) {
  std::vector<Plan> parts(engines.size());
  for (PlanItem& item : plan.items) {
    auto at = std::find(engines.begin(), engines.end(), item.engine);
    if (at != engines.end()) parts[at - engines.begin()].items.push_back(std::move(item));
  }
  return parts;
}

EngineRuns RunEngines(const std::vector<Plan>& parts, const std::vector<std::string>& engines, const RunArgs& args,
                      DetailsPolicy details, const StopFlag* stop) {
  EngineRuns out;
  size_t total = 0;
  for (const Plan& p : parts) total += p.items.size();
  const bool several = engines.size() > 1;
  std::string head;
  int failed = 0;
  size_t offset = 0;
  std::set<std::string> sqlstates;  // of the engines whose scenario SQL could not run
  for (size_t e = 0; e < parts.size(); ++e) {
    const std::vector<PlanItem>& items = parts[e].items;
    if (items.empty()) continue;  // nothing of this engine in the run (or this shard): no server
    if (stop->stop_requested()) {
      NotRunFrom(parts, e, 0, fmt::format("interrupted by signal {}", stop->signal_number() ? stop->signal_number() : SIGINT), &out);
      return out;
    }
    EngineOptions eo;
    eo.engine = engines[e];
    // Each --dsn on a run of several engines is the server of the engine it names; the others are embedded.
    eo.dsn = DsnOfEngine(args.dsns, engines[e], several);
    eo.server_bindir = args.pg_bindir;
    eo.connect_timeout_ms = args.connect_timeout_ms;
    eo.stop = stop;
    eo.confine = !args.no_confine;
    eo.allow_superuser = args.allow_superuser;
    if (eo.dsn.empty() && SelectedEngine(eo) == "postgresql") {
      const std::string notice = EmbeddedDespitePgEnvironment(SetPgTargetVariables(std::getenv));
      if (!notice.empty()) std::cerr << notice << "\n";
    }
    if (!args.quiet && eo.dsn.empty()) {
      // SQLite is no server: each trial gets a new database file in a run folder of its own.
      std::cerr << (SelectedEngine(eo) == "sqlite" ? std::string("racelab: SQLite: a new database file per trial…\n")
                                                   : "racelab: starting embedded " +
                                                         EngineDisplayName(SelectedEngine(eo)) + "…\n");
    }
    auto engine = OpenEngine(eo);
    if (!engine.ok()) {
      std::cerr << "racelab: " << SanitizeForTerminal(engine.status().message(), true) << "\n";
      if (out.open_error.ok()) out.open_error = engine.status();
      // The report still says which server the run was for: the engine and the --dsn (redacted), or embedded.
      TargetInfo wanted;
      wanted.engine = engines[e];
      wanted.embedded = eo.dsn.empty();
      if (!wanted.embedded) wanted.dsn_redacted = RedactDsn(eo.dsn);
      out.targets.push_back(wanted);
      if (!several || engine.status().code() == StatusCode::kUsage) {
        NotRunFrom(parts, e, 0, "the run ended before it", &out);
        return out;
      }
      // A server of one engine that does not start (not installed, not answering) leaves the others
      // worth running: its items are not run, with the reason, and the run goes on (exit 3 at the end).
      const std::string reason =
          fmt::format("{} could not start: {}", EngineDisplayName(engines[e]), engine.status().message());
      for (const PlanItem& item : items) out.not_run.push_back({&item, reason});
      offset += items.size();
      continue;
    }
    Engine& db = *engine.value();
    if (!args.quiet && db.ready_ms() >= 0) {
      std::cerr << fmt::format("racelab: {} {} ready in {:.0f} ms\n", EngineDisplayName(db.name()),
                               SanitizeForTerminal(db.info().server_version, false), db.ready_ms());
    }
    out.targets.push_back(db.info());

    RunOptions ro;
    ro.engine = &db;
    ro.statement_timeout_ms = args.statement_timeout_ms;
    ro.trial_timeout_ms = args.trial_timeout_ms;
    ro.connect_timeout_ms = args.connect_timeout_ms;
    ro.seed = args.seed;
    ro.stop = stop;
    // Trials are evaluated as they end and folded into aggregates: memory stays flat with --trials (only
    // the trials --details keeps are held).
    PipelineResult ran =
        RunItems(items, ro, ProgressHooks(args, offset, total, several, &head, &failed), details);
    offset += items.size();
    const size_t done = ran.results.size();
    if (ran.scenario_error) {
      // Asked before Close(): the engine forgets its generated role there.
      std::set<std::string> codes;
      for (const auto& r : ran.results) {
        for (const auto& [code, n] : r.sqlstates) codes.insert(code);
      }
      const std::string hint = db.ScenarioErrorHint(codes);
      if (!hint.empty() && out.scenario_hint.find(hint) == std::string::npos) {
        out.scenario_hint += (out.scenario_hint.empty() ? "" : "\nracelab: ") + hint;
      }
      out.scenario_error = true;
    }
    for (auto& r : ran.results) out.results.push_back(std::move(r));
    Status closed = db.Close();
    if (!closed.ok()) {
      std::cerr << "racelab: " << SanitizeForTerminal(closed.message(), true) << "\n";
      out.close_failed = true;
    }
    // One result per item run, in plan order: the rest did not run (an interrupt).
    if (done < items.size() || stop->stop_requested()) {
      NotRunFrom(parts, e, done,
                 fmt::format("interrupted by signal {}", stop->signal_number() ? stop->signal_number() : SIGINT), &out);
      return out;
    }
  }
  return out;
}

}  // namespace racelab::cli
