// Each engine of `racelab run` in turn (engine_runs.h).
#include "harness/cli/engine_runs.h"

#include <fmt/format.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <set>

#include "harness/cli/progress.h"
#include "harness/cli/run_plan.h"
#include "harness/cli/target_notice.h"
#include "harness/cli/terminal.h"
#include "harness/engine_registry/open_engine.h"
#include "harness/engine_registry/registry.h"
#include "harness/loader/node_check.h"
#include "harness/model/terminal_text.h"
#include "harness/pipeline/pipeline.h"

namespace racelab::cli {
namespace {

// Progress on stderr (progress.h): items are numbered over the whole run, "[3/8] naive-claim @
// serializable on sqlite".
PipelineHooks ProgressHooks(Progress* progress, size_t offset, bool several) {
  PipelineHooks hooks;
  hooks.on_item_start = [=](size_t i, const PlanItem& item) {
    progress->ItemStarted(offset + i, item, several);
  };
  hooks.on_trial = [=](const PlanItem& it, const TrialResult& t) { progress->TrialDone(it, t); };
  hooks.on_item_done = [=](size_t, const ResultSummary& summary, const Status& s) {
    progress->ItemDone(summary, s);
  };
  return hooks;
}

int64_t TrialsOf(const std::vector<PlanItem>& items) {
  int64_t trials = 0;
  for (const PlanItem& item : items) trials += item.trials;
  return trials;
}

void NotRunFrom(const std::vector<Plan>& parts, size_t part, size_t first_item,
                const std::string& reason, EngineRuns* out) {
  for (size_t p = part; p < parts.size(); ++p) {
    const auto& items = parts[p].items;
    for (size_t i = p == part ? first_item : 0; i < items.size(); ++i)
      out->not_run.push_back({&items[i], reason});
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

EngineRuns RunEngines(const std::vector<Plan>& parts, const std::vector<std::string>& engines,
                      const RunArgs& args, DetailsPolicy details, const StopFlag* stop) {
  EngineRuns out;
  size_t total = 0;
  int64_t total_trials = 0;
  for (const Plan& p : parts) {
    total += p.items.size();
    total_trials += TrialsOf(p.items);
  }
  const bool several = engines.size() > 1;
  Progress::Options po;
  const TerminalFacts stderr_facts = TerminalFactsOf(STDERR_FILENO);
  po.live = stderr_facts.is_terminal &&
            stderr_facts.term != "dumb";  // a dumb terminal cannot erase a line
  po.style = TerminalStyleFor(stderr_facts);
  po.quiet = args.quiet;
  Progress progress(std::cerr, po, total, total_trials);
  size_t offset = 0;
  std::set<std::string> sqlstates;  // of the engines whose scenario SQL could not run
  for (size_t e = 0; e < parts.size(); ++e) {
    const std::vector<PlanItem>& items = parts[e].items;
    if (items.empty()) continue;  // nothing of this engine in the run (or this shard): no server
    if (stop->stop_requested()) {
      NotRunFrom(parts, e, 0,
                 fmt::format("interrupted by signal {}",
                             stop->signal_number() ? stop->signal_number() : SIGINT),
                 &out);
      return out;
    }
    EngineOptions eo;
    eo.engine = engines[e];
    // Each --dsn on a run of several engines is the server of the engine it names; the others are
    // embedded.
    eo.dsn = DsnOfEngine(args.dsns, engines[e], several);
    eo.server_bindir = args.pg_bindir;
    eo.connect_timeout_ms = args.connect_timeout_ms;
    eo.stop = stop;
    eo.confine = !args.no_confine;
    eo.allow_superuser = args.allow_superuser;
    const EngineDescriptor* selected = FindEngine(SelectedEngine(eo));  // nullptr: OpenEngine says
    if (eo.dsn.empty() && selected != nullptr && selected->reads_libpq_environment) {
      const std::string notice = EmbeddedDespitePgEnvironment(SetPgTargetVariables(std::getenv));
      if (!notice.empty()) std::cerr << notice << "\n";
    }
    if (!args.quiet && eo.dsn.empty()) {
      std::cerr << "racelab: " << EmbeddedStartNote(SelectedEngine(eo)) << "\n";
    }
    auto engine = OpenEngine(eo);
    if (!engine.ok()) {
      std::cerr << "racelab: " << SanitizeForTerminal(engine.status().message(), true) << "\n";
      if (out.open_error.ok()) out.open_error = engine.status();
      // The report still says which server the run was for: the engine and the --dsn (redacted), or
      // embedded.
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
      // worth running: its items are not run, with the reason, and the run goes on (exit 3 at the
      // end).
      const std::string reason = fmt::format(
          "{} could not start: {}", EngineDisplayName(engines[e]), engine.status().message());
      for (const PlanItem& item : items) out.not_run.push_back({&item, reason});
      progress.NotRun(TrialsOf(items));
      offset += items.size();
      continue;
    }
    Engine& db = *engine.value();
    // The plan meets the engine: a role on a node this engine does not have is the file's error.
    if (Status nodes = CheckNodes(items, db.name(), db.nodes()); !nodes.ok()) {
      std::cerr << "racelab: " << SanitizeForTerminal(nodes.message(), true) << "\n";
      if (out.open_error.ok()) out.open_error = nodes;
      out.targets.push_back(db.info());
      NotRunFrom(parts, e, 0, "the run ended before it", &out);
      if (Status closed = db.Close(); !closed.ok()) out.close_failed = true;
      return out;
    }
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
    // Trials are evaluated as they end and folded into aggregates: memory stays flat with --trials
    // (only the trials --details keeps are held).
    PipelineResult ran = RunItems(items, ro, ProgressHooks(&progress, offset, several), details);
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
                 fmt::format("interrupted by signal {}",
                             stop->signal_number() ? stop->signal_number() : SIGINT),
                 &out);
      return out;
    }
  }
  return out;
}

}  // namespace racelab::cli
