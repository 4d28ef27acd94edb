// EngineDescriptor: what one engine gives the engine registry (harness/engine_registry/registry.h)
// — how it is named, which DSNs are its, how it opens, how its DSNs are redacted, and what
// `racelab clean` removes of it — as one row with named fields, defined in the engine's own folder
// (harness/engines/<name>/descriptor.cc). What racelab knows of an engine before it opens one (its
// levels, whether it has a server, its own error codes) is its EngineTraits row, which the
// descriptor points at (harness/model/engine_traits.h: the loader reads them without an engine).
//
// To add an engine: its folder and library, a descriptor there, one line in the registry's list
// (harness/engine_registry/registry.cc) and its library linked to racelab_engine_registry, its
// traits row, its subdirectory (harness/engines/CMakeLists.txt), its contract target
// (tests/integration/engine_contract_targets.cc). The loader, the runner, the evaluator, the
// reporters and the CLI ask traits and are not touched.
// Thread-safety: descriptors are immutable; each function pointer's own rules are written beside
// it.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harness/engine/engine.h"
#include "harness/model/engine_traits.h"
#include "harness/model/status.h"
#include "harness/model/stop_flag.h"

namespace racelab {

// What --engine, --dsn and the run's flags ask of the engine that opens.
struct EngineOptions {
  std::string engine;         // "" = from the DSN, else kDefaultEngine
  std::string dsn;            // "" = embedded server
  std::string server_bindir;  // embedded: where the server's binaries are ("" = search)
  long connect_timeout_ms = 10000;
  long statement_timeout_ms = 30000;
  const StopFlag* stop = nullptr;
  bool confine = true;           // run scenario SQL as a generated role where the engine has roles
  bool allow_superuser = false;  // accept a DSN that connects as a superuser
};

// What `racelab clean` removes of an engine's embedded servers on this machine (main thread only;
// never a server a live run uses).
struct EngineCleaners {
  // What killed runs left (folders, processes, shared memory), by path, and their removal (how
  // many); `orphan_kind` names one in a listing: "cluster", "server", "run folder".
  std::string_view orphan_kind;
  std::vector<std::string> (*list_orphans)() = nullptr;
  int (*clean_orphans)() = nullptr;
  // Cached files this racelab never uses, each "<what> <path>", and their removal; nullptr: none.
  std::vector<std::string> (*list_obsolete)() = nullptr;
  int (*clean_obsolete)() = nullptr;
};

struct EngineDescriptor {
  const EngineTraits* traits = nullptr;  // name ("postgresql"), display ("PostgreSQL"), levels, …
  // The URI schemes of its DSNs, "postgresql://"; `sqlite:` takes no "//".
  std::vector<std::string_view> dsn_schemes;
  // Its DSN forms as a user writes them, for messages: "a postgresql:// URI or libpq key=value
  // string".
  std::string_view dsn_forms;
  // Whether a DSN with no "://" is its own (libpq key=value text and service names: PostgreSQL).
  bool takes_key_value_dsn = false;
  // Whether it runs PostgreSQL isolation spec files (`racelab run X.spec`: isolationtester's
  // format).
  bool runs_isolation_specs = false;
  // Whether a --dsn of it takes libpq's PG* variables (PGHOST, …): a run on the embedded server
  // says that they are set but not used (harness/cli/target_notice.h).
  bool reads_libpq_environment = false;
  // The progress line when it starts without --dsn, after "racelab: "; "" = "starting embedded
  // <display>…".
  std::string_view embedded_note;

  // Starts the embedded server (options.dsn empty) or connects to options.dsn, and checks it.
  // Errors: kUsage (bad DSN, superuser refused), kDatabase (cannot start or reach). Main thread.
  Result<std::unique_ptr<Engine>> (*open)(const EngineOptions&) = nullptr;
  // Its DSN with the password replaced by *** from its own parse ("<unparseable DSN>" when it
  // cannot parse safely); whether an argument looks like one of its DSNs; whether one can hold a
  // password. Pure, any thread.
  std::string (*redact_dsn)(const std::string&) = nullptr;
  bool (*looks_like_dsn)(std::string_view) = nullptr;
  bool (*may_hold_password)(std::string_view) = nullptr;

  EngineCleaners cleaners;

  std::string_view name() const { return traits->name; }
  std::string_view display() const { return traits->display; }
};

}  // namespace racelab
