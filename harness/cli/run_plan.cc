// The plan of `racelab run` (run_plan.h): selection, levels, --set, and the engines of --engine.
#include "harness/cli/run_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <set>

#include "harness/cli/terminal.h"
#include "harness/engine_registry/open_engine.h"
#include "harness/loader/catalogue.h"
#include "harness/loader/order_planner.h"
#include "harness/loader/planner.h"
#include "harness/model/terminal_text.h"

namespace racelab::cli {
namespace {

Result<std::vector<IsolationLevel>> ParseLevels(const std::string& text) {
  std::vector<IsolationLevel> out;
  if (text.empty()) return out;
  if (text == "all") {  // every level; each scenario then runs at those of them it lists
    return std::vector<IsolationLevel>{
        IsolationLevel::kReadUncommitted, IsolationLevel::kReadCommitted,
        IsolationLevel::kRepeatableRead, IsolationLevel::kSerializable};
  }
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string part =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    while (!part.empty() && part.front() == ' ') part.erase(part.begin());
    while (!part.empty() && part.back() == ' ') part.pop_back();
    auto level = ParseIsolation(part);
    if (!level) {
      return Status::Usage(fmt::format(
          "--isolation: unknown level '{}' (expected all, or a comma list of ru, rc, rr, "
          "ser, read uncommitted, read committed, repeatable read, serializable)",
          part));
    }
    if (std::find(out.begin(), out.end(), *level) == out.end()) out.push_back(*level);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string JoinNames(const std::vector<std::string>& names) {
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string LevelList(const std::vector<IsolationLevel>& levels) {
  std::string listed;
  for (IsolationLevel level : levels)
    listed += fmt::format("{}{}", listed.empty() ? "" : ", ", IsolationName(level));
  return listed;
}

// "rc, rr, ser": the short names --isolation takes, for the side-by-side cells (kept narrow).
std::string ShortLevelList(const std::vector<IsolationLevel>& levels) {
  std::string listed;
  for (IsolationLevel level : levels) {
    const char* name = level == IsolationLevel::kReadUncommitted  ? "ru"
                       : level == IsolationLevel::kReadCommitted  ? "rc"
                       : level == IsolationLevel::kRepeatableRead ? "rr"
                                                                  : "ser";
    listed += fmt::format("{}{}", listed.empty() ? "" : ", ", name);
  }
  return listed;
}

// On a run of several engines: the levels a scenario runs at on some engine but not on another that
// runs it (its file lists other levels there, or the engine has no such level).
void NoteSkippedLevels(const std::vector<Scenario>& selected, PlannedRun* run) {
  for (const Scenario& s : selected) {
    std::set<IsolationLevel> anywhere;
    std::map<std::string, std::set<IsolationLevel>> on;
    for (const PlanItem& item : run->plan.items) {
      if (item.scenario != s.name) continue;
      anywhere.insert(item.isolation);
      on[item.engine].insert(item.isolation);
    }
    for (const auto& [engine, levels] : on) {
      const Scenario* variant = s.ForEngine(engine);
      const std::string listed =
          variant == nullptr ? ""
                             : ShortLevelList(variant->isolation.empty() ? AllIsolationLevels()
                                                                         : variant->isolation);
      for (IsolationLevel level : anywhere) {
        if (levels.count(level) != 0) continue;
        run->skipped.push_back(
            {s.name, engine, std::string(IsolationName(level)),
             fmt::format("not in its isolation: list on {} ({})", engine, listed)});
      }
    }
  }
}

}  // namespace

Result<std::vector<std::string>> ParseEngineList(const std::string& engine_arg,
                                                 const std::vector<std::string>& dsns) {
  const std::vector<std::string> known = EngineNames();
  std::vector<std::string> out;
  for (size_t i = 0; i < dsns.size(); ++i) {
    for (size_t k = 0; k < i; ++k) {
      if (EngineOfDsn(dsns[k]) == EngineOfDsn(dsns[i])) {
        return Status::Usage(
            fmt::format("--dsn {} and --dsn {} are both servers of {}: give one --dsn per engine",
                        RedactDsn(dsns[k]), RedactDsn(dsns[i]), EngineOfDsn(dsns[i])));
      }
    }
  }
  const std::string dsn = dsns.empty() ? "" : dsns.front();
  if (engine_arg.empty() && dsns.size() > 1) {
    for (const std::string& d : dsns) {
      if (EngineOfDsn(d).empty()) {
        return Status::Usage(fmt::format("--dsn {}: not a server of an engine racelab knows ({})",
                                         RedactDsn(d), JoinNames(known)));
      }
      out.push_back(EngineOfDsn(d));
    }
    return out;
  }
  if (engine_arg == "all") {
    out = known;
  } else {
    size_t start = 0;
    while (start <= engine_arg.size()) {
      const size_t comma = engine_arg.find(',', start);
      std::string part =
          engine_arg.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      while (!part.empty() && part.front() == ' ') part.erase(part.begin());
      while (!part.empty() && part.back() == ' ') part.pop_back();
      if (!part.empty() || engine_arg.empty()) {
        if (!part.empty() && std::find(known.begin(), known.end(), part) == known.end()) {
          return Status::Usage(
              fmt::format("--engine: unknown engine '{}' (expected all, or a comma list of {})",
                          part, JoinNames(known)));
        }
        EngineOptions chosen;
        chosen.engine = part;
        chosen.dsn = dsn;
        const std::string name = part.empty() ? SelectedEngine(chosen) : part;
        if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
      }
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  if (out.empty())
    return Status::Usage("--engine: expected all, or a comma list of " + JoinNames(known));
  // Each --dsn points one engine of the run at a server; the others start their embedded one.
  if (dsns.size() > 1 || (!dsn.empty() && out.size() > 1)) {
    for (const std::string& d : dsns) {
      if (std::find(out.begin(), out.end(), EngineOfDsn(d)) == out.end()) {
        return Status::Usage(fmt::format("--dsn {} is not a server of any engine in --engine {}",
                                         RedactDsn(d), JoinNames(out)));
      }
    }
  }
  return out;
}

std::string DsnOfEngine(const std::vector<std::string>& dsns, const std::string& engine,
                        bool several_engines) {
  if (!several_engines && dsns.size() == 1) return dsns.front();
  for (const std::string& d : dsns) {
    if (EngineOfDsn(d) == engine) return d;
  }
  return "";
}

Result<PlannedRun> BuildRunPlan(const RunArgs& args, const StopFlag* stop) {
  auto engines = ParseEngineList(args.engine, args.dsns);
  if (!engines.ok()) return engines.status();
  auto scenarios = LoadScenarios(args.selectors, DefaultScenarioDir(),
                                 [stop] { return stop->stop_requested(); });
  if (!scenarios.ok()) return scenarios.status();
  std::vector<Scenario> selected = FilterByTags(std::move(scenarios.value()), args.tags);
  if (selected.empty())
    return Status::Usage("no scenario matches the selection (see 'racelab list')");
  auto levels = ParseLevels(args.isolation);
  if (!levels.ok()) return levels.status();
  PlanOptions po;
  po.isolation = *levels;
  po.trials = args.trials;
  po.trial_timeout_ms = args.trial_timeout_ms;
  for (const auto& kv : args.set) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      return Status::Usage(fmt::format("--set '{}': expected NAME=VALUE", kv));
    std::string key = kv.substr(0, eq);
    bool declared = std::any_of(selected.begin(), selected.end(), [&](const Scenario& s) {
      return std::any_of(s.params.begin(), s.params.end(),
                         [&](const auto& p) { return p.first == key; });
    });
    if (!declared)
      return Status::Usage(
          fmt::format("--set {}: no selected scenario has a parameter '{}'", key, key));
    po.set[key] = kv.substr(eq + 1);
  }
  // A --set value that is a connection string is a secret: the planner's errors quote values, so
  // they are shown with that value redacted (the whole value, as the command line shows it).
  auto redacted = [&](Status st) {
    std::string msg = st.message();
    for (const auto& [key, value] : po.set) {
      if (!LooksLikeDsn(value)) continue;
      const std::string safe = RedactDsn(value);
      for (size_t at = msg.find(value); at != std::string::npos;
           at = msg.find(value, at + safe.size())) {
        msg.replace(at, value.size(), safe);
      }
    }
    return st.code() == StatusCode::kUsage      ? Status::Usage(msg)
           : st.code() == StatusCode::kDatabase ? Status::Database(msg)
                                                : Status::Internal(msg);
  };
  PlannedRun run;
  run.engines = *engines;
  const bool several = run.engines.size() > 1;
  // Scenarios named on the command line get a line each when an engine skips them; the catalogue's
  // (no name given: all, or --tag) one line per engine — the reasons are in the reports
  // (skipped[]).
  const bool named = !args.selectors.empty();
  for (const std::string& engine : run.engines) {
    po.engine = engine;
    size_t not_listed = 0;
    for (const auto& s : selected) {
      // --isolation chooses among the levels a scenario lists: its expectations were written for
      // those only (a retry-on-40001 scenario listed at repeatable read and serializable has no
      // lesson at read committed), so running it elsewhere would report a false `fail`. A scenario
      // that lists none of the requested levels is skipped, with a note.
      PlanOptions scenario_po = po;
      const Scenario* on_engine = s.ForEngine(engine);
      if (on_engine == nullptr) {  // docs/scenario-format.md "Engines and SQL that differs"
        const std::string listed = JoinNames(s.engines);
        if (named) {
          WriteNote(std::cerr, "racelab: " + SanitizeForTerminal(s.name) + " skipped: it runs on " +
                                   listed + " (its engines: list), not on " + engine);
        }
        ++not_listed;
        if (several)
          run.skipped.push_back(
              {s.name, engine, "", fmt::format("not in its engines: list ({})", listed)});
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
          const std::string listed = LevelList(on_engine->isolation);
          WriteNote(std::cerr,
                    "racelab: " + SanitizeForTerminal(s.name) + " skipped" +
                        (several ? " on " + engine : std::string()) + ": it runs only at " +
                        listed + " (its isolation: list), not at the levels --isolation asks for");
          if (several) {
            run.skipped.push_back(
                {s.name, engine, "",
                 fmt::format(
                     "not at the levels --isolation asks for: its isolation: list on {} is {}",
                     engine, listed)});
          }
          continue;
        }
      }
      auto items = ExpandScenario(s, scenario_po);
      if (!items.ok()) return redacted(items.status());
      for (auto& it : items.value()) {
        // Parameters are already substituted into the SQL; item.params is what reports show, so a
        // value that is a connection string is shown with its password removed (README
        // "Passwords").
        for (auto& [name, value] : it.params) {
          if (LooksLikeDsn(value)) value = RedactDsn(value);
        }
        run.plan.items.push_back(std::move(it));
      }
    }
    if (!named && not_listed > 0) {
      WriteNote(
          std::cerr,
          fmt::format("racelab: {} scenario{} skipped on {}: not in {} engines: list (racelab list "
                      "shows each scenario's engines)",
                      not_listed, not_listed == 1 ? "" : "s", engine,
                      not_listed == 1 ? "its" : "their"));
    }
  }
  // --permutation: what it keeps and what it skips, said (a scenario none of whose permutations
  // matches is skipped whole; nothing matching anywhere is exit 2).
  std::vector<std::string> permutation_notes;
  if (Status kept = KeepPermutations(args.permutations, &run.plan.items, &permutation_notes);
      !kept.ok())
    return kept;
  for (const std::string& note : permutation_notes)
    WriteNote(std::cerr, "racelab: " + SanitizeForTerminal(note, true));
  if (run.plan.items.empty()) {
    return Status::Usage(
        fmt::format("no selected scenario runs on {} at the levels --isolation asks for",
                    JoinNames(run.engines)));
  }
  if (several) NoteSkippedLevels(selected, &run);
  return run;
}

}  // namespace racelab::cli
