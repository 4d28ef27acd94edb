// `racelab step` (step_command.h): plan one item, open its engine, walk it.
#include "harness/cli/step_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "harness/cli/app.h"
#include "harness/cli/run_plan.h"
#include "harness/cli/step_ui.h"
#include "harness/cli/step_web.h"
#include "harness/cli/terminal.h"
#include "harness/engine_registry/open_engine.h"
#include "harness/engine_registry/registry.h"
#include "harness/loader/catalogue.h"
#include "harness/loader/node_check.h"
#include "harness/model/terminal_text.h"

namespace racelab::cli {
namespace {

constexpr const char* kStepHelp =
    "Walk one scenario one statement per key press, in front of a class: each session's next "
    "step\n"
    "and its SQL, its last result (rows, values read, or the error with SQLSTATE and name), its "
    "state\n"
    "(idle / in transaction / waiting for <session> (<lock type>), live from the server; on "
    "SQLite\n"
    "from the busy handler: waiting for a (busy)), the locks held and awaited after each step\n"
    "(PostgreSQL: pg_locks; MariaDB: SHOW ENGINE INNODB STATUS; SQLite: each connection's\n"
    "sqlite3_txn_state as SHARED/RESERVED, or the WAL locks; a diff from the step before) and who\n"
    "waits on whom. One trial of the scenario runs on a throwaway server; every statement waits "
    "at\n"
    "a gate until you release it. The scenario's own waits (barrier, await_blocked, sleep_ms) run\n"
    "by themselves.\n"
    "A step's ask: question (in the scenario) is shown before the step runs, then what "
    "happened.\n\n"
    "Next step: an ordered scenario's order (--order N picks its permutation), or --permutation,\n"
    "else the first session in file order that waits for a key.\n\n"
    "In a terminal: one column per session.  Enter/Space  the next step   1-9  the session in "
    "that column\n"
    "  a letter  the session with that one-letter name (not b, l or q)   b  back to the start (a "
    "new trial)\n"
    "  l  the next isolation level (the scenario's isolation: list, else the engine's levels): a "
    "new walk\n"
    "  :  type SQL (Enter runs it, Esc cancels): on a teacher's connection of its own, like a "
    "third psql\n"
    "     window; ':a SELECT ...' runs it inside session a's transaction while a waits for a key. "
    "Its\n"
    "     result (rows, or the error with SQLSTATE and name) is shown and in the transcript; it "
    "ends by\n"
    "     60 s (then it is cancelled); Esc cancels it while it runs or waits on a lock\n"
    "  q  quit (removes everything; so does Ctrl-C)\n"
    "In a pipe: each step as a transcript line (isolationtester's form), with the waits and the "
    "locks;\n"
    "commands are stdin lines: empty or n (next), a session's name or number, n NAME, b, l, "
    "l LEVEL,\n"
    ":SQL or :NAME SQL (typed SQL, as above), q.\n"
    "In a browser (--web [HOST:]PORT): the same walk as one self-contained page on 127.0.0.1 (no\n"
    "network needed), pushed live: Next, a session's button, Back to start, the level, Quit (keys "
    "Space,\n"
    "1-9, b, l, q; typed SQL is the terminal's and the pipe's only); the terminal prints the\n"
    "URL, q + Enter there or Ctrl-C ends it. --web 0 picks a free port. Another host than\n"
    "loopback is refused unless --web-token TOKEN is given; the URL then\n"
    "carries ?token=TOKEN and every request without it is refused.\n\n"
    "Examples:\n"
    "  racelab step lock-hold-wait                      b waits for a's row lock, live\n"
    "  racelab step anomaly-g0 --isolation rr           an ordered scenario, its first order\n"
    "  racelab step lock-hold-wait --permutation \"a.begin1 a.claim b.begin2 b.claim a.commit "
    "b.commit4\"\n"
    "  printf 'n\\nn\\nn\\nn\\nn\\nn\\n' | racelab step lock-hold-wait --set hold_ms=0   a "
    "transcript\n\n"
    "docs/step.md tells more.";

// --keep: a workspace of its own with the scenario's setup run in it, for students' own clients;
// what to print. *made: its name once made.
std::string KeepWorkspace(Engine& db, const std::string& scenario, const std::string& setup,
                          const StopFlag* stop, std::string* made) {
  const std::string ws = db.WorkspaceName(999);
  const SteadyTime by = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  if (db.ClientConnectionString(ws).empty()) {
    return fmt::format(
        "racelab: --keep: the {} server stays up until q or Ctrl-C; this engine gives "
        "no connection string for your own client yet",
        EngineDisplayName(db.name()));
  }
  if (Status st = db.ResetWorkspace(ws, by, stop); !st.ok())
    return "racelab: --keep: " + st.message();
  *made = ws;
  auto conn = db.OpenSession(kServerNode, "keep", by, stop);
  if (!conn.ok()) return "racelab: --keep: " + conn.status().message();
  bool lost = false;
  Status started = conn.value()->StartClean({"keep", ws, {}}, by, scenario, &lost);
  if (started.ok() && !setup.empty()) {
    const QueryResult r = conn.value()->Exec(setup, by);
    if (!r.ok()) started = Status::Database("the setup failed: " + r.message);
  }
  conn.value()->Close();
  if (!started.ok()) return "racelab: --keep: " + started.message();
  // Asked again now that the workspace exists (SQLite: its database file).
  const std::string dsn = db.ClientConnectionString(ws);
  // SQLite has no server: what stays is the workspace's database file (removed at q or Ctrl-C).
  const char* kept = db.name() == "sqlite" ? "the database file stays" : "the server stays up";
  return fmt::format(
      "racelab: --keep: {} until q or Ctrl-C; {}'s tables, as its setup makes them, are in {}. "
      "Connect with:\n  {}\n  {}",
      kept, scenario, ws, dsn, db.ClientCommand(ws));
}

// `l`: the item at every level the scenario runs at on this engine, as `racelab run` plans them
// (its isolation: list, else every level the engine has), with its params and permutation.
// `planned`: the items of a plan made without --isolation, or empty to make one (quietly: its
// notes were printed once already).
std::vector<PlanItem> LevelsOf(const PlanItem& item, std::vector<PlanItem> planned,
                               const RunArgs& args, const StopFlag* stop) {
  if (planned.empty()) {
    RunArgs every = args;
    every.isolation.clear();
    std::ostringstream discard;
    std::streambuf* const saved = std::cerr.rdbuf(discard.rdbuf());
    auto plan = BuildRunPlan(every, stop);
    std::cerr.rdbuf(saved);
    if (plan.ok()) planned = std::move(plan.value().plan.items);
  }
  std::vector<PlanItem> out;
  bool has_item = false;
  for (PlanItem& p : planned) {
    if (p.scenario != item.scenario || p.engine != item.engine || p.params != item.params ||
        p.permutation != item.permutation)
      continue;
    if (std::any_of(out.begin(), out.end(),
                    [&](const PlanItem& o) { return o.isolation == p.isolation; }))
      continue;
    has_item = has_item || p.isolation == item.isolation;
    out.push_back(std::move(p));
  }
  if (!has_item) out.insert(out.begin(), item);
  return out;
}

}  // namespace

const char* StepHelpText() { return kStepHelp; }

CLI::App* AddStepSubcommand(CLI::App& app, StepArgs* args) {
  auto* step = app.add_subcommand("step", "Walk a scenario one statement per key press (teaching)");
  step->add_option("scenario", args->scenario, "Scenario name or file")->required();
  step->add_option("--engine", args->engine,
                   "Engine: postgresql (default), mariadb or sqlite — its embedded server starts "
                   "for the walk");
  step->add_option("--isolation", args->isolation,
                   "One level: rc, rr, ser, ru or its name (default: the scenario's first)")
      ->check([](const std::string& level) {
        return level.empty() ? std::string("an empty level: name one (rc, rr, ser or ru)") : "";
      });
  step->add_option("--set", args->set, "Override a scenario parameter: --set hold_ms=0")
      ->allow_extra_args(false);
  auto* order =
      step->add_option("--order", args->order,
                       "An ordered scenario's permutation N (1-based; default: its first)")
          ->check(CLI::Range(1, 100000));
  step->add_option("--permutation", args->permutation,
                   "The order the next-step key follows: \"a.begin b.begin a.claim …\" (session "
                   "name.step name; steps it does not list run when they come)")
      ->excludes(order);
  step->add_flag("--keep", args->keep,
                 "After the last step leave the server up (q or Ctrl-C removes it) and print a "
                 "connection string and a psql / mariadb command line for your own client");
  step->add_option("--web", args->web,
                   "[HOST:]PORT: serve the walk as a page in a browser (HOST 127.0.0.1 by "
                   "default; PORT 0: a free one); a host other than loopback needs --web-token");
  step->add_option("--web-token", args->web_token,
                   "With --web: a secret of 16-128 of A-Z a-z 0-9 - _ that the page's URL "
                   "carries (?token=…); every request without it is refused");
  step->add_option("--pg-bindir", args->pg_bindir, "PostgreSQL binaries for the embedded cluster");
  step->add_option("--connect-timeout-ms", args->connect_timeout_ms,
                   "Deadline of one connection attempt, in ms")
      ->check(CLI::Range(1L, 86400000L));
  return step;
}

int StepCommand(const StepArgs& args, const StopFlag* stop) {
  RunArgs ra;
  ra.selectors = {args.scenario};
  ra.engine = args.engine;
  ra.isolation = args.isolation;
  ra.set = args.set;
  ra.trials = 1;
  if (args.order > 0) ra.permutations = {std::to_string(args.order)};
  if (args.isolation.find(',') != std::string::npos || args.isolation == "all")
    return UsageError("--isolation: step mode walks one level (rc, rr, ser or ru)");
  if (args.engine.find(',') != std::string::npos || args.engine == "all")
    return UsageError("--engine: step mode walks on one engine");
  if (ra.engine.empty()) {
    // Without --engine: PostgreSQL, or the scenario's first engine when it does not list it.
    auto loaded = LoadScenarios(ra.selectors, DefaultScenarioDir(),
                                [stop] { return stop->stop_requested(); });
    if (loaded.ok() && loaded.value().size() == 1) {
      const std::vector<std::string>& engines = loaded.value().front().engines;
      if (!engines.empty() &&
          std::find(engines.begin(), engines.end(), kDefaultEngine) == engines.end())
        ra.engine = engines.front();
    }
  }
  auto plan = BuildRunPlan(ra, stop);
  if (stop->stop_requested()) return InterruptedExitCode(stop);
  if (!plan.ok()) {
    // --order N reaches the planner as a permutation selector: name the option the user gave.
    std::string message = plan.status().message();
    if (args.order > 0) {
      const std::string given = "--permutation", named = "--order";
      for (size_t at = message.find(given); at != std::string::npos;
           at = message.find(given, at + named.size()))
        message.replace(at, given.size(), named);
    }
    return UsageError(message);
  }
  std::vector<PlanItem>& items = plan.value().plan.items;
  PlanItem item = items.front();
  std::vector<PlanItem> levels =
      LevelsOf(item, args.isolation.empty() ? items : std::vector<PlanItem>{}, ra, stop);
  // A program's stretches run between its own pause points, not one statement per key: step mode
  // does not walk them (a walk would wait at their barrier for a key that never comes).
  for (const PlannedSession& s : item.sessions) {
    if (!s.program.empty()) {
      return UsageError(fmt::format(
          "{}: session '{}' runs a program (exec:): racelab step walks SQL steps only; run it "
          "with racelab run (docs/race-your-own-code.md)",
          SanitizeForTerminal(item.scenario), SanitizeForTerminal(s.label)));
    }
  }
  if (items.size() > 1) {
    WriteNote(std::cerr,
              fmt::format("racelab: walking {} at {}{} ({} planned: --isolation, --order or "
                          "--set choose another)",
                          SanitizeForTerminal(item.scenario), IsolationName(item.isolation),
                          item.permutation > 0 ? fmt::format(", order {}", item.permutation) : "",
                          items.size()));
  }
  if (!args.web_token.empty() && args.web.empty())
    return UsageError("--web-token goes with --web [HOST:]PORT");
  if (!args.web.empty()) {
    if (Status web = CheckStepWebArgs(args.web, args.web_token); !web.ok())
      return UsageError(web.message());
  }
  std::vector<InstructorStep> order;
  if (!args.permutation.empty()) {
    auto parsed = step::ParsePermutation(item, args.permutation);
    if (!parsed.ok()) return UsageError(parsed.status().message());
    order = std::move(parsed.value());
  }

  EngineOptions eo;
  eo.engine = plan.value().engines.front();
  eo.server_bindir = args.pg_bindir;
  eo.connect_timeout_ms = args.connect_timeout_ms;
  eo.stop = stop;
  std::cerr << "racelab: " << EmbeddedStartNote(SelectedEngine(eo)) << "\n";
  auto engine = OpenEngine(eo);
  if (!engine.ok()) {
    std::cerr << "racelab: " << SanitizeForTerminal(engine.status().message(), true) << "\n";
    if (stop->stop_requested()) return InterruptedExitCode(stop);
    return engine.status().code() == StatusCode::kUsage ? 2 : 3;
  }
  Engine& db = *engine.value();
  if (Status nodes = CheckNodes({item}, db.name(), db.nodes()); !nodes.ok()) {
    Status closed = db.Close();
    (void)closed;  // the usage error is what the user needs
    return UsageError(nodes.message());
  }
  Wakeup wakeup;
  step::StepOptions so;
  so.engine = &db;
  const std::string so_setup = item.setup;
  so.item = std::move(item);
  so.order = std::move(order);
  so.levels = std::move(levels);
  so.on_change = [&wakeup] { wakeup.Notify(); };
  int code = 0;
  {
    step::StepSession session(std::move(so));
    StepUi ui;
    ui.session = &session;
    ui.stop = stop;
    ui.wakeup = &wakeup;
    ui.keep = args.keep;
    if (const char* trace = std::getenv("RACELAB_STEP_TRACE")) ui.trace_path = trace;
    std::string kept;  // the --keep workspace, dropped before the server closes
    std::string kept_note;
    if (args.keep) {
      ui.prepare_keep = [&]() -> std::string {
        if (!kept.empty()) return kept_note;
        kept_note = KeepWorkspace(db, session.view().scenario, so_setup, stop, &kept);
        return kept_note;
      };
    }
    if (!args.web.empty()) {
      code = RunStepWeb(ui, args.web, args.web_token, std::cout);
    } else {
      code = isatty(STDOUT_FILENO) && isatty(STDIN_FILENO) ? RunStepScreen(ui)
                                                           : RunStepPipe(ui, std::cout);
    }
    session.Quit();
    if (!kept.empty()) {
      Status dropped =
          db.DropWorkspace(kept, std::chrono::steady_clock::now() + std::chrono::seconds(5));
      if (!dropped.ok()) std::cerr << "racelab: " << SanitizeForTerminal(dropped.message()) << "\n";
    }
  }
  if (Status closed = db.Close(); !closed.ok()) {
    std::cerr << "racelab: " << SanitizeForTerminal(closed.message(), true) << "\n";
    if (code == 0) code = 3;
  }
  if (stop->stop_requested()) return InterruptedExitCode(stop);
  return code;
}

}  // namespace racelab::cli
