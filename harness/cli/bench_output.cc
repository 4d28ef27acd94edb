// The output of `racelab bench` (bench_output.h).
#include "harness/cli/bench_output.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "harness/model/terminal_text.h"

namespace racelab::cli {
namespace {

using nlohmann::ordered_json;
using workload::CellFigures;
using workload::Figure;

// "1234 ± 56" (no ± for one repeat), scaled by `scale`, `digits` decimals.
std::string Text(const Figure& f, double scale = 1, int digits = 0) {
  if (f.n == 0) return "—";
  if (f.n < 2) return fmt::format("{:.{}f}", f.mean * scale, digits);
  return fmt::format("{:.{}f} ± {:.{}f}", f.mean * scale, digits, f.half_width * scale, digits);
}

template <typename M>
std::string Counts(const M& m) {
  std::string out;
  for (const auto& [k, n] : m) out += fmt::format("{}{}×{}", out.empty() ? "" : " ", k, n);
  return out.empty() ? "—" : out;
}

std::string Invariant(const CellFigures& c) {
  const std::string v = workload::InvariantVerdict(c);
  if (v != "FAILED") return v;
  return fmt::format("FAILED: {} double claims in {} of {} rounds", c.double_claims,
                     c.rounds_double_claimed, c.rounds);
}

ordered_json Json(const Figure& f) {
  ordered_json j;
  j["mean"] = f.mean;
  j["ci95"] = f.n >= 2 ? ordered_json(f.half_width) : ordered_json(nullptr);
  j["n"] = f.n;
  return j;
}

template <typename M>
ordered_json JsonCounts(const M& m) {
  ordered_json j = ordered_json::object();
  for (const auto& [k, n] : m) j[fmt::format("{}", k)] = n;
  return j;
}

ordered_json CellJson(const BenchCell& cell) {
  const CellFigures& c = cell.figures;
  ordered_json j;
  j["engine"] = cell.engine;
  j["scenario"] = cell.scenario;
  j["isolation"] = cell.isolation;
  j["clients"] = cell.clients;
  j["sessions"] = cell.sessions;
  j["dropped_steps"] = cell.dropped;
  j["repeats"] = c.repeats;
  j["rounds"] = c.rounds;
  j["rounds_error"] = c.rounds_error;
  j["transactions"] = c.transactions;
  j["attempts"] = c.attempts;
  j["committed"] = c.committed;
  j["won"] = c.won;
  j["committed_per_s"] = Json(c.committed_per_s);
  j["attempted_per_s"] = Json(c.attempted_per_s);
  j["won_per_s"] = Json(c.won_per_s);
  ordered_json lat;
  lat["p50"] = Json(c.p50_us);
  lat["p90"] = Json(c.p90_us);
  lat["p99"] = Json(c.p99_us);
  lat["p99.9"] = Json(c.p999_us);
  lat["max"] = Json(c.max_us);
  j["latency_us"] = lat;
  ordered_json steps = ordered_json::object();
  for (const auto& [name, s] : c.steps) {
    steps[name] = {{"count", s.count},
                   {"p50_us", Json(s.p50_us)},
                   {"p99_us", Json(s.p99_us)},
                   {"max_us", Json(s.max_us)}};
  }
  j["steps"] = steps;
  j["errors"] = JsonCounts(c.errors);
  j["retries"] = {{"by_code", JsonCounts(c.retries)},
                  {"by_attempt", JsonCounts(c.retried_at_attempt)}};
  j["transactions_by_attempts"] = JsonCounts(c.transactions_by_attempts);
  j["lock_waits"] = {{"count", c.lock_waits}, {"total_ms", c.lock_wait_ms}};
  j["invariant"] = {{"checked", c.claims_checked},
                    {"verdict", workload::InvariantVerdict(c)},
                    {"rounds_double_claimed", c.rounds_double_claimed},
                    {"double_claims", c.double_claims}};
  j["expectations_held_rounds"] = c.rounds_expectations_held;
  ordered_json finals = ordered_json::object();
  for (const auto& [sql, values] : c.final_values) finals[sql] = JsonCounts(values);
  j["final_values"] = finals;
  j["error"] = cell.error.empty()
                   ? (c.first_error.empty() ? ordered_json(nullptr) : ordered_json(c.first_error))
                   : ordered_json(cell.error);
  return j;
}

}  // namespace

void WriteBenchConsole(const BenchReport& r, std::ostream& out) {
  out << fmt::format("racelab bench: {} loop{}, {} s after {} s warmup, {} repeat{}; {} cores\n",
                     r.open_loop ? "open" : "closed",
                     r.open_loop ? fmt::format(" at {:g} tx/s", r.rate_per_s) : "", r.duration_s,
                     r.warmup_s, r.repeats, r.repeats == 1 ? "" : "s", r.cores);
  for (const TargetInfo& t : r.targets) {
    std::string settings;
    for (const auto& [k, v] : t.settings) settings += fmt::format(" {}={}", k, v);
    out << SanitizeForTerminal(fmt::format("  {} {}:{}", t.engine, t.server_version, settings))
        << "\n";
  }
  out << "  latency: ms from each transaction's "
      << (r.open_loop ? "intended start (its arrival)" : "first statement")
      << " to its last step's end; ± is the 95 % interval over the repeats\n";
  std::string last_scenario;
  for (const BenchCell& cell : r.cells) {
    const std::string head = cell.engine + " " + cell.scenario;
    if (head != last_scenario) {
      out << "\n"
          << SanitizeForTerminal(head) << " — each client runs one session's steps once per round; "
          << "dropped: " << cell.dropped << "\n";
      out << fmt::format(
          "  {:<17} {:>3}  {:>15} {:>15} {:>15}  {:>13} {:>13} {:>13} {:>13} "
          "{:>13}  {}\n",
          "level", "cl", "committed/s", "attempted/s", "won/s", "p50", "p90", "p99", "p99.9", "max",
          "invariant · errors · retries · lock waits");
      last_scenario = head;
    }
    const CellFigures& c = cell.figures;
    out << fmt::format(
        "  {:<17} {:>3}  {:>15} {:>15} {:>15}  {:>13} {:>13} {:>13} {:>13} {:>13}  {} · {} · {} · "
        "{}\n",
        cell.isolation, cell.clients, Text(c.committed_per_s), Text(c.attempted_per_s),
        Text(c.won_per_s), Text(c.p50_us, 1e-3, 2), Text(c.p90_us, 1e-3, 2),
        Text(c.p99_us, 1e-3, 2), Text(c.p999_us, 1e-3, 2), Text(c.max_us, 1e-3, 2), Invariant(c),
        Counts(c.errors), Counts(c.retries), c.lock_waits);
    if (!cell.error.empty()) out << "    error: " << SanitizeForTerminal(cell.error) << "\n";
  }
  if (r.load_known) {
    out << fmt::format("\nload average before {:.2f} {:.2f} {:.2f}, after {:.2f} {:.2f} {:.2f}\n",
                       r.load_before[0], r.load_before[1], r.load_before[2], r.load_after[0],
                       r.load_after[1], r.load_after[2]);
  }
  if (!r.run_error.empty()) out << "run error: " << SanitizeForTerminal(r.run_error) << "\n";
}

std::string BenchJson(const BenchReport& r) {
  ordered_json j;
  j["schema"] = "racelab-bench/1";
  j["racelab_version"] = r.racelab_version;
  j["created_at"] = r.created_at;
  j["command"] = r.command;
  j["workload"] = {{"loop", r.open_loop ? "open" : "closed"},
                   {"rate_per_s", r.open_loop ? ordered_json(r.rate_per_s) : ordered_json(nullptr)},
                   {"duration_s", r.duration_s},
                   {"warmup_s", r.warmup_s},
                   {"repeats", r.repeats},
                   {"clients", r.clients},
                   {"transaction",
                    "each client runs one session's steps once per round, "
                    "without barriers or await_blocked"}};
  ordered_json machine;
  machine["cores"] = r.cores;
  machine["load_before"] = r.load_known ? ordered_json(r.load_before) : ordered_json(nullptr);
  machine["load_after"] = r.load_known ? ordered_json(r.load_after) : ordered_json(nullptr);
  j["machine"] = machine;
  ordered_json targets = ordered_json::array();
  for (const TargetInfo& t : r.targets) {
    ordered_json settings = ordered_json::object();
    for (const auto& [k, v] : t.settings) settings[k] = v;
    targets.push_back({{"engine", t.engine},
                       {"server_version", t.server_version},
                       {"embedded", t.embedded},
                       {"dsn", t.dsn_redacted},
                       {"settings", settings}});
  }
  j["targets"] = targets;
  ordered_json cells = ordered_json::array();
  for (const BenchCell& c : r.cells) cells.push_back(CellJson(c));
  j["cells"] = cells;
  j["run_error"] = r.run_error.empty() ? ordered_json(nullptr) : ordered_json(r.run_error);
  return j.dump(2) + "\n";
}

}  // namespace racelab::cli
