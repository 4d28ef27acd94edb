// `racelab bench` (bench_command.h): plan as `run` does, then each engine's cells in turn, each
// cell its repeats through the workload driver.
#include "harness/cli/bench_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "harness/cli/bench_output.h"
#include "harness/cli/run_plan.h"
#include "harness/engine_registry/open_engine.h"
#include "harness/engine_registry/registry.h"
#include "harness/loader/node_check.h"
#include "harness/model/terminal_text.h"
#include "harness/workload/driver.h"
#include "harness/workload/workload_item.h"

namespace racelab::cli {
namespace {

constexpr const char* kWorkersParam = "workers";

// A cell to measure: the item planned for its client count.
struct CellPlan {
  PlanItem item;
  int clients = 0;
};

Result<std::vector<int>> ParseClients(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    char* end = nullptr;
    const long n = std::strtol(part.c_str(), &end, 10);
    if (part.empty() || *end != '\0' || n < 1 || n > 64)
      return Status::Usage("--clients: expected a comma list of numbers from 1 to 64, not '" +
                           text + "'");
    out.push_back(static_cast<int>(n));
  }
  if (out.empty()) return Status::Usage("--clients: no client count given");
  return out;
}

bool HasParam(const PlanItem& item, const std::string& name) {
  for (const auto& [k, v] : item.params) {
    if (k == name) return true;
  }
  return false;
}

std::string UtcNow() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The cells of the run, in engine, scenario, level, client order: a scenario with a `workers`
// parameter is planned with workers=N for each N (a count its file refuses — naive-select-then-
// update needs 2 — is left out with a note); one without runs at its own session count.
Result<std::vector<CellPlan>> PlanCells(const BenchArgs& a, const std::vector<int>& clients,
                                        std::vector<std::string>* engines, const StopFlag* stop) {
  for (const std::string& kv : a.run.set) {
    if (kv.rfind(std::string(kWorkersParam) + "=", 0) == 0)
      return Status::Usage("--set workers=…: racelab bench sets workers from --clients");
  }
  auto base = BuildRunPlan(a.run, stop);
  if (!base.ok()) return base.status();
  *engines = base.value().engines;
  const std::vector<PlanItem>& items = base.value().plan.items;
  // Each scenario file planned once per client count, its items in the base plan's order.
  // A file that cannot be planned at n clients is noted once, not once per item of it.
  std::map<std::pair<std::string, int>, std::vector<PlanItem>> planned;
  std::set<std::pair<std::string, int>> unplanned;
  auto plan_file = [&](const PlanItem& item, int n) -> const std::vector<PlanItem>* {
    auto key = std::make_pair(item.file, n);
    auto at = planned.find(key);
    if (at != planned.end()) return &at->second;
    if (unplanned.count(key) > 0) return nullptr;
    RunArgs with = a.run;
    with.selectors = {item.file};
    with.set.push_back(fmt::format("{}={}", kWorkersParam, n));
    auto p = BuildRunPlan(with, stop);
    if (!p.ok()) {
      std::cerr << "racelab: " << SanitizeForTerminal(item.scenario) << " is not benched at " << n
                << " client(s): " << SanitizeForTerminal(p.status().message(), true) << "\n";
      unplanned.insert(key);
      return nullptr;
    }
    return &(planned[key] = std::move(p.value().plan.items));
  };
  std::vector<CellPlan> cells;
  for (const PlanItem& item : items) {
    if (!HasParam(item, kWorkersParam)) {
      const int own = static_cast<int>(item.sessions.size());
      std::cerr << fmt::format(
          "racelab: {} has no `workers` parameter: benched at its own {} client(s) only\n",
          SanitizeForTerminal(item.scenario), own);
      cells.push_back({item, own});
      continue;
    }
    for (int n : clients) {
      const std::vector<PlanItem>* at_n = plan_file(item, n);
      if (at_n == nullptr) continue;
      for (const PlanItem& p : *at_n) {
        if (p.engine == item.engine && p.isolation == item.isolation && p.scenario == item.scenario)
          cells.push_back({p, n});
      }
    }
  }
  if (cells.empty()) return Status::Usage("no scenario can be benched at these --clients");
  return cells;
}

struct Machine {
  bool known = false;
  std::array<double, 3> load{};
};

Machine LoadNow() {
  Machine m;
  double l[3];
  if (getloadavg(l, 3) == 3) {
    m.known = true;
    m.load = {l[0], l[1], l[2]};
  }
  return m;
}

// One cell's repeats on `db`, with progress lines on stderr.
BenchCell MeasureCell(const BenchArgs& a, const CellPlan& plan, Engine* db, size_t number,
                      size_t total, const StopFlag* stop) {
  BenchCell cell;
  cell.engine = plan.item.engine;
  cell.scenario = plan.item.scenario;
  cell.isolation = IsolationName(plan.item.isolation);
  cell.clients = plan.clients;
  cell.dropped = workload::DroppedSteps(plan.item);
  for (const PlannedSession& s : plan.item.sessions) cell.sessions.push_back(s.label);
  auto item = workload::WorkloadItem(plan.item);
  if (!item.ok()) {
    cell.error = item.status().message();
    return cell;
  }
  std::vector<workload::RunFigures> runs;
  for (int k = 0; k < a.repeats && !stop->stop_requested(); ++k) {
    const std::string label = fmt::format(
        "[{}/{}] {} {} @ {}, {} client{}, repeat {}/{}", number, total, cell.engine, cell.scenario,
        cell.isolation, cell.clients, cell.clients == 1 ? "" : "s", k + 1, a.repeats);
    if (!a.run.quiet) std::cerr << SanitizeForTerminal(label) << " …\n";
    workload::WorkloadOptions wo;
    wo.run.engine = db;
    wo.run.statement_timeout_ms = a.run.statement_timeout_ms;
    wo.run.trial_timeout_ms = a.run.trial_timeout_ms;
    wo.run.connect_timeout_ms = a.run.connect_timeout_ms;
    wo.run.seed = a.run.seed + static_cast<uint64_t>(k);
    wo.run.stop = stop;
    wo.rate_per_s = a.closed ? 0 : a.rate_per_s;
    wo.warmup_s = a.warmup_s;
    wo.duration_s = a.duration_s;
    workload::WorkloadRun run = workload::RunWorkload(item.value(), wo);
    if (!run.status.ok()) {
      // A stop request: the repeat it cut short is not counted (the runner's "trial N of M" counts
      // rounds of an item whose length is the duration, not a number of trials).
      cell.error =
          stop->stop_requested()
              ? fmt::format("interrupted during repeat {} of {}: that repeat is not counted", k + 1,
                            a.repeats)
              : run.status.message();
      break;
    }
    const workload::RunFigures& f = run.figures;
    if (!a.run.quiet) {
      std::cerr << SanitizeForTerminal(fmt::format(
                       "{}: {} rounds, {:.0f} committed/s, {:.0f} attempted/s, p99 {:.2f} ms{}",
                       label, f.rounds, f.committed_per_s(), f.attempted_per_s(),
                       f.transaction_us.ValueAtPercentile(99) / 1000.0,
                       f.double_claims > 0 ? fmt::format(", {} double claims", f.double_claims)
                                           : ""))
                << "\n";
      if (!a.closed && f.window_s > 0 && f.transactions < 0.95 * a.rate_per_s * f.window_s) {
        std::cerr << fmt::format(
            "racelab: only {:.0f} of the {:g} transactions/s asked for arrived: the rounds could "
            "not keep up, and latency counts the backlog (lower --rate, or see --closed)\n",
            f.transactions / f.window_s, a.rate_per_s);
      }
    }
    runs.push_back(run.figures);
  }
  cell.figures = workload::SummarizeRepeats(runs);
  return cell;
}

}  // namespace

CLI::App* AddBenchSubcommand(CLI::App& app, BenchArgs* a, std::string* scenario_dir) {
  auto* bench = app.add_subcommand(
      "bench",
      "Benchmark scenarios as workloads: tx/s and latency percentiles per engine × level × "
      "clients");
  bench->footer(
      "Each round, every client (one session of the scenario, on its own connection) runs its\n"
      "session's steps once — one transaction, retried by the role's retry: — with the scenario's\n"
      "barriers and await_blocked dropped: the clients race freely. Before each round the\n"
      "workspace is put back (reset:, else setup: on a fresh one), so every round offers the same\n"
      "queued work; after it the claim invariant is checked: a claim scenario's outcome.win must\n"
      "not go to two clients for one unit of work (a double claim fails the benchmark, exit 1).\n"
      "--clients N sets the scenario's `workers` parameter.\n\n"
      "Open loop (default): transactions are due at --rate per second over all clients, and\n"
      "latency is measured from when each was due, so a stalled server shows in the percentiles\n"
      "(no coordinated omission). --closed starts each round as soon as the last one is done and\n"
      "measures from each transaction's first statement. committed/s counts the transactions\n"
      "that committed, attempted/s every attempt, won/s those that met outcome.win (useful work).\n"
      "Rates count the whole window, round resets included (docs/bench.md).\n\n"
      "Examples:\n"
      "  racelab bench guarded-cas-claim --isolation rc,ser --clients 1,2,4 --closed\n"
      "  racelab bench skip-locked-pull --rate 100 --duration 10 --repeats 5 --out bench/\n"
      "  racelab bench naive-select-then-update --clients 2 --engine postgresql,mariadb");
  bench->add_option("scenarios", a->run.selectors, "Scenario names, files or folders")->required();
  bench->add_option("--scenarios", *scenario_dir, "Scenario catalogue folder (as for run)");
  bench->add_option("--isolation", a->run.isolation,
                    "Levels: all, or a comma list of ru, rc, rr, ser (default: each scenario's)");
  bench->add_option("--set", a->run.set, "Override a scenario parameter (not workers: --clients)")
      ->allow_extra_args(false);
  bench->add_option("--engine", a->run.engine,
                    "postgresql (default), mariadb, sqlite, a comma list or all: one server at a "
                    "time");
  bench->add_option("--dsn", a->run.dsns, "An existing server instead of an embedded one (as run)")
      ->allow_extra_args(false);
  bench->add_option("--pg-bindir", a->run.pg_bindir, "PostgreSQL binaries for the embedded server");
  bench->add_option("--clients", a->clients, "Client counts, a comma list")->capture_default_str();
  auto* rate = bench
                   ->add_option("--rate", a->rate_per_s,
                                "Open loop: transactions due per second, over all clients")
                   ->check(CLI::Range(0.1, 1e6))
                   ->capture_default_str();
  bench->add_flag("--closed", a->closed, "Closed loop: each round starts when the last is done")
      ->excludes(rate);
  bench->add_option("--duration", a->duration_s, "Measured seconds per repeat")
      ->check(CLI::Range(0.1, 86400.0))
      ->capture_default_str();
  bench->add_option("--warmup", a->warmup_s, "Seconds run and not counted before each repeat")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  bench->add_option("--repeats", a->repeats, "Repeats per cell (the ± interval is over them)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  bench->add_option("--format", a->formats, "Outputs: console (stdout), json (DIR/bench.json)")
      ->capture_default_str();
  bench->add_option("--out", a->out, "Folder for bench.json")->capture_default_str();
  bench->add_option("--seed", a->run.seed, "Seed for the client start order")
      ->capture_default_str();
  bench
      ->add_option("--statement-timeout-ms", a->run.statement_timeout_ms,
                   "Deadline of one statement or wait, in ms")
      ->check(CLI::Range(1L, 86400000L))
      ->capture_default_str();
  bench
      ->add_option("--connect-timeout-ms", a->run.connect_timeout_ms,
                   "Deadline of one connection attempt, in ms")
      ->check(CLI::Range(1L, 86400000L))
      ->capture_default_str();
  bench->add_flag("--quiet,-q", a->run.quiet, "No progress lines on stderr");
  bench->add_flag("--no-confine", a->run.no_confine, "As for run");
  bench->add_flag("--allow-superuser", a->run.allow_superuser, "As for run");
  return bench;
}

int BenchCommand(BenchArgs a, const StopFlag* stop) {
  auto clients = ParseClients(a.clients);
  if (!clients.ok()) return UsageError(clients.status().message());
  bool console = false, json = false;
  {
    std::stringstream in(a.formats);
    std::string f;
    while (std::getline(in, f, ',')) {
      if (f == "console") {
        console = true;
      } else if (f == "json") {
        json = true;
      } else {
        return UsageError("--format: expected console and/or json, not '" + f + "'");
      }
    }
  }
  a.run.dsn = a.run.dsns.empty() ? "" : a.run.dsns.front();
  std::vector<std::string> engines;
  auto cells = PlanCells(a, clients.value(), &engines, stop);
  if (stop->stop_requested()) return InterruptedExitCode(stop);
  if (!cells.ok()) return UsageError(cells.status().message());
  if (!a.closed) {
    for (int n : clients.value()) {
      // A round's last transaction is due (n − 1)/rate after its first: within one statement
      // deadline.
      if ((n - 1) / a.rate_per_s * 1000 > a.run.statement_timeout_ms / 2)
        return UsageError(
            fmt::format("--rate {:g} is too low for {} clients: a round would wait "
                        "longer than half the statement deadline",
                        a.rate_per_s, n));
    }
  }

  BenchReport report;
  report.racelab_version = RACELAB_VERSION;
  report.created_at = UtcNow();
  report.command = a.run.command_line;
  report.open_loop = !a.closed;
  report.rate_per_s = a.rate_per_s;
  report.duration_s = a.duration_s;
  report.warmup_s = a.warmup_s;
  report.repeats = a.repeats;
  report.clients = clients.value();
  report.cores = std::thread::hardware_concurrency();
  const Machine before = LoadNow();
  int exit_code = 0;
  size_t number = 0;
  const size_t total = cells.value().size();
  for (const std::string& engine : engines) {
    if (stop->stop_requested()) break;
    std::vector<const CellPlan*> mine;
    for (const CellPlan& c : cells.value()) {
      if (c.item.engine == engine) mine.push_back(&c);
    }
    if (mine.empty()) continue;
    EngineOptions eo;
    eo.engine = engine;
    eo.dsn = DsnOfEngine(a.run.dsns, engine, engines.size() > 1);
    eo.server_bindir = a.run.pg_bindir;
    eo.connect_timeout_ms = a.run.connect_timeout_ms;
    eo.stop = stop;
    eo.confine = !a.run.no_confine;
    eo.allow_superuser = a.run.allow_superuser;
    if (!a.run.quiet && eo.dsn.empty())
      std::cerr << "racelab: " << EmbeddedStartNote(SelectedEngine(eo)) << "\n";
    auto opened = OpenEngine(eo);
    if (!opened.ok()) {
      report.run_error = opened.status().message();
      exit_code = opened.status().code() == StatusCode::kUsage ? 2 : 3;
      break;
    }
    Engine& db = *opened.value();
    report.targets.push_back(db.info());
    std::vector<PlanItem> items;
    for (const CellPlan* c : mine) items.push_back(c->item);
    if (Status nodes = CheckNodes(items, db.name(), db.nodes()); !nodes.ok()) {
      report.run_error = nodes.message();
      exit_code = 2;
      db.Close();
      break;
    }
    for (const CellPlan* c : mine) {
      if (stop->stop_requested()) break;
      BenchCell cell = MeasureCell(a, *c, &db, ++number, total, stop);
      if (!cell.error.empty() && !stop->stop_requested()) exit_code = std::max(exit_code, 3);
      if (cell.figures.double_claims > 0 && exit_code == 0) exit_code = 1;
      report.cells.push_back(std::move(cell));
    }
    if (Status closed = db.Close(); !closed.ok()) {
      std::cerr << "racelab: " << SanitizeForTerminal(closed.message(), true) << "\n";
    }
  }
  const Machine after = LoadNow();
  report.load_known = before.known && after.known;
  report.load_before = before.load;
  report.load_after = after.load;

  if (console) WriteBenchConsole(report, std::cout);
  if (json) {
    std::error_code ec;
    std::filesystem::create_directories(a.out, ec);
    const std::string path = (std::filesystem::path(a.out) / "bench.json").string();
    std::ofstream f(path, std::ios::trunc);
    f << BenchJson(report);
    if (ec || !f.good()) {
      std::cerr << "racelab: cannot write " << SanitizeForTerminal(path) << "\n";
      return 3;
    }
    if (!a.run.quiet) std::cerr << "racelab: written to " << SanitizeForTerminal(path) << "\n";
  }
  if (stop->stop_requested()) return InterruptedExitCode(stop);
  return exit_code;
}

}  // namespace racelab::cli
