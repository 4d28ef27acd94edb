// OpenEngine: picks and starts one engine of the registry (registry.h) from --engine / --dsn, and
// the engine-neutral questions about DSNs and cleaning asked of every registered engine
// (docs/architecture.md "The engine interface").
//
// - A DSN names its engine by its scheme (EngineDescriptor::dsn_schemes: `postgresql://…` /
//   `postgres://…` → postgresql, `mariadb://…` / `mysql://…` → mariadb, `sqlite:///path` →
//   sqlite), or, without "://", the engine that takes key=value text (libpq's: postgresql).
//   `--engine` names the engine when there is no DSN (then an embedded throwaway server is started)
//   and must agree with the DSN when both are given.
// - An embedded server is stopped and removed by Engine::Close() (and the destructor); the next run
//   removes what a SIGKILLed run left.
// Thread-safety: main thread only.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harness/engine/engine.h"
#include "harness/engine/engine_descriptor.h"
#include "harness/model/status.h"

namespace racelab {

// The engines this build knows, e.g. {"postgresql", "mariadb", "sqlite"}.
std::vector<std::string> EngineNames();

// The engine a DSN names by its scheme ("postgresql" also for libpq key=value text), or "" when it
// names none (kUsage is OpenEngine's to give).
std::string EngineOfDsn(const std::string& dsn);

// How people write the engine's name, e.g. "postgresql" -> "PostgreSQL" (progress lines).
std::string EngineDisplayName(const std::string& engine);

// The engine --engine / --dsn select: options.engine, else the DSN's, else kDefaultEngine.
std::string SelectedEngine(const EngineOptions& options);

// Passwords, engine-neutral (each engine parses its own DSN form; README "Passwords"):
// `dsn` with its password replaced by ***; a string no engine can parse is replaced whole.
std::string RedactDsn(const std::string& dsn);
// Whether a command-line argument is a connection string that may carry a password.
bool LooksLikeDsn(std::string_view arg);
// Whether a connection string can carry a password at all.
bool MayHoldPassword(std::string_view dsn);

// Removes what killed runs left of every engine's embedded servers on this machine (folders,
// processes, shared memory); returns how many servers were removed.
int CleanEmbeddedOrphans();
// What CleanEmbeddedOrphans would remove, one line each, "<Engine> <kind> <path>" ("PostgreSQL
// cluster /tmp/racelab-1000/run-4242-0", "SQLite run folder …"); nothing is touched. A folder whose
// owner dies between this call and a clean is listed by neither.
std::vector<std::string> ListEmbeddedOrphans();
// The cached files that this racelab never uses — today PostgreSQL's initdb templates of earlier
// versions (16 MB WAL segments), "PostgreSQL template of an earlier racelab <path>", and this
// version's template in a base folder it no longer uses (/tmp/racelab-<uid> once /dev/shm has room,
// and no live run there), "PostgreSQL template in a folder racelab no longer uses <path>"
// (harness/engines/postgresql/template.h, descriptor.cc) — and, when $RACELAB_TMPDIR is set, this
// version's template there (a folder the user chose: clean leaves it as it was before racelab ran,
// and the next run makes the template again), "PostgreSQL template under RACELAB_TMPDIR <path>" —
// one line each; nothing is touched. CleanObsoleteEmbeddedFiles removes them and returns how many:
// for `racelab clean` only (a run of an older racelab may be copying an old one; a run of this one
// holds the template it copies, which is then kept).
std::vector<std::string> ListObsoleteEmbeddedFiles();
int CleanObsoleteEmbeddedFiles();

// $RACELAB_TMPDIR, when set, names a folder that exists by an absolute path; kUsage naming the
// variable and the path otherwise (racelab never makes the folders above its own). OpenEngine
// checks it first; `racelab clean` too.
Status CheckTmpdirVariable();

// Starts (embedded) or connects to (DSN) the server and checks it. Errors: kUsage for a bad engine
// name (the message lists the known ones), an engine not built in yet (e.g. a mysql:// DSN), a DSN
// that does not parse or a superuser DSN not allowed, a bad $RACELAB_TMPDIR; kDatabase when the
// server cannot be started or reached. Never a password in a message.
Result<std::unique_ptr<Engine>> OpenEngine(const EngineOptions& options);

}  // namespace racelab
