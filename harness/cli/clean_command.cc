// `racelab clean`: removes what runs that are gone left behind — orphaned embedded servers of every
// engine on this machine, and, with --dsn, the workspaces and roles of dead runs on that server
// (Engine::ListLeftovers; for PostgreSQL, harness/engines/postgresql/pg_leftovers.cc says how a run
// is proven gone). Whatever belongs to a run still connected is kept.
#include <fmt/format.h>

#include <iostream>
#include <map>
#include <vector>

#include "harness/cli/app.h"
#include "harness/engine_registry/open_engine.h"
#include "harness/model/terminal_text.h"
#include "harness/run/program_folders.h"

namespace racelab::cli {
namespace {

SteadyTime In(long ms) { return std::chrono::steady_clock::now() + std::chrono::milliseconds(ms); }

// "2 schema(s), 1 database(s) and 1 role(s)" for the kinds counted (in this order), "nothing" for
// none.
std::string Counted(const std::map<std::string, size_t>& by_kind) {
  std::vector<std::string> parts;
  for (const char* kind : {"schema", "database", "file", "role", "user"}) {
    auto it = by_kind.find(kind);
    if (it != by_kind.end() && it->second > 0)
      parts.push_back(fmt::format("{} {}(s)", it->second, kind));
  }
  if (parts.empty()) return "nothing";
  std::string out = parts[0];
  for (size_t i = 1; i < parts.size(); ++i)
    out += (i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return out;
}

// A leftover `racelab clean` rolls back rather than drops (engine.h Leftover::kind).
bool IsTransaction(const std::string& kind) {
  const std::string suffix = "transaction";
  return kind.size() >= suffix.size() &&
         kind.compare(kind.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// What clean does to a leftover of `kind`: "end", "roll back" or "drop", or in the past tense.
std::string Verb(const std::string& kind, bool done) {
  if (kind == "backend") return done ? "ended" : "end";
  if (IsTransaction(kind)) return done ? "rolled back" : "roll back";
  return done ? "dropped" : "drop";
}

// The last line of `racelab clean --dsn`: what it did (or would do) to dead runs, what it kept of
// live ones, e.g. "dropped 1 database(s) and 1 role(s) of dead runs, after ending 1 backend(s);
// kept nothing of live runs, on postgresql://…".
std::string Summary(const std::map<std::string, size_t>& done,
                    const std::map<std::string, size_t>& kept, bool dry_run,
                    const std::string& dsn_redacted) {
  std::vector<std::string> before;  // what went first: backends ended, transactions rolled back
  for (const auto& [kind, n] : done) {
    if (kind == "backend") before.insert(before.begin(), fmt::format("ending {} backend(s)", n));
    if (IsTransaction(kind)) before.push_back(fmt::format("rolling back {} {}(s)", n, kind));
  }
  std::string ending = before.empty() ? "" : fmt::format(", after {}", fmt::join(before, " and "));
  return fmt::format("{} {} of dead runs{}; kept {} of live runs, on {}",
                     dry_run ? "would drop" : "dropped", Counted(done), ending, Counted(kept),
                     dsn_redacted);
}

}  // namespace

int CleanCommand(const std::string& dsn, long connect_timeout_ms, bool dry_run) {
  if (Status tmpdir = CheckTmpdirVariable(); !tmpdir.ok()) return UsageError(tmpdir.message());
  // The orphans of embedded servers: a dead run's PostgreSQL cluster, MariaDB server or SQLite run
  // folder, under /tmp/racelab-<uid> and the like.
  const std::vector<std::string> orphans = ListEmbeddedOrphans();
  for (const std::string& o : orphans) {
    std::cout << SanitizeForTerminal((dry_run ? "would remove " : "removing ") + o) << "\n";
  }
  if (dry_run) {
    std::cout << fmt::format("{} run folder(s) of dead embedded-server runs found\n",
                             orphans.size());
  } else {
    std::cout << fmt::format(
        "removed {} run folder(s) of dead embedded-server runs (with their servers)\n",
        CleanEmbeddedOrphans());
  }
  // The folders of exec sessions' programs of a killed racelab, and what is left of the programs.
  const std::vector<std::string> programs = internal::DeadProgramFolders();
  for (const std::string& o : programs) {
    std::cout << SanitizeForTerminal((dry_run ? "would remove " : "removing ") +
                                     ("exec session folder " + o))
              << "\n";
  }
  if (!programs.empty()) {
    std::cout << (dry_run ? fmt::format("{} exec session folder(s) of dead runs found (their "
                                        "programs are ended first)\n",
                                        programs.size())
                          : fmt::format("removed {} exec session folder(s) of dead runs, after "
                                        "ending what was left of their programs\n",
                                        internal::CleanDeadProgramFolders()));
  }
  const std::vector<std::string> obsolete = ListObsoleteEmbeddedFiles();
  for (const std::string& o : obsolete) {
    std::cout << SanitizeForTerminal((dry_run ? "would remove " : "removing ") + o) << "\n";
  }
  if (!obsolete.empty()) {
    std::cout << (dry_run ? fmt::format("{} unused template(s) found\n", obsolete.size())
                          : fmt::format("removed {} unused template(s)\n",
                                        CleanObsoleteEmbeddedFiles()));
  }
  if (dsn.empty()) return 0;
  EngineOptions eo;
  eo.dsn = dsn;
  eo.connect_timeout_ms = connect_timeout_ms;
  eo.confine = false;         // clean creates nothing on the server
  eo.allow_superuser = true;  // and runs no scenario SQL
  auto engine = OpenEngine(eo);
  if (!engine.ok()) {
    if (engine.status().code() == StatusCode::kUsage) return UsageError(engine.status().message());
    std::cerr << "racelab: " << SanitizeForTerminal(engine.status().message(), true) << "\n";
    return 3;
  }
  Engine& db = *engine.value();
  auto leftovers = db.ListLeftovers(In(30000));
  if (!leftovers.ok()) {
    std::cerr << "racelab: " << SanitizeForTerminal(leftovers.status().message(), true) << "\n";
    return 3;
  }
  std::map<std::string, size_t> done, kept;  // by kind
  bool failed = false;
  for (const Leftover& l : *leftovers) {
    if (l.live || !l.kept_because.empty()) {
      const std::string why = l.live ? "its run is still connected" : l.kept_because;
      std::cout << SanitizeForTerminal(fmt::format("kept {} {}: {}", l.kind, l.name, why)) << "\n";
      if (l.live) ++kept[l.kind];
      continue;
    }
    const bool account = l.kind == "role" || l.kind == "user";  // PostgreSQL role, MariaDB user
    if (account && failed) break;  // workspaces first: a run's role outlives its workspaces
    const bool backend = l.kind == "backend";
    const std::string what = backend || (IsTransaction(l.kind) && !l.of.empty())
                                 ? fmt::format("{} {} of {}", l.kind, l.name, l.of)
                                 : l.kind + " " + l.name;
    if (dry_run) {
      std::cout << SanitizeForTerminal("would " + Verb(l.kind, false) + " " + what) << "\n";
    } else {
      Status s = db.DropLeftovers({l}, In(30000));
      if (!s.ok()) {
        std::cerr << SanitizeForTerminal("racelab: " + s.message() + "\n", true);
        failed = true;
        if (account) return 3;
        continue;
      }
      std::cout << SanitizeForTerminal(Verb(l.kind, true) + " " + what) << "\n";
    }
    ++done[l.kind];
  }
  if (failed) return 3;
  std::cout << SanitizeForTerminal(Summary(done, kept, dry_run, db.info().dsn_redacted)) << "\n";
  return 0;
}

}  // namespace racelab::cli
