// The engine targets of the engine contract suite (engine_contract_test.cc): how `racelab` is
// pointed at each engine, the SQL that differs between them, how the test reaches the server from
// outside (to kill a connection, to list what racelab left), and the server each --dsn target
// shares for the whole test process. A new engine adds one ContractTarget here and inherits every
// contract case. Thread-safety: the test's main thread only.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace racelab::testing {

struct ContractTarget {
  std::string name;    // gtest parameter name: "postgresql_embedded", "sqlite_dsn", …
  std::string engine;  // `engines:` value: postgresql, mariadb, sqlite
  // The racelab options that select it (`--engine X`, or `--dsn URI` and what it needs).
  std::function<std::vector<std::string>()> args;
  // The DSN's password ("" when the target has none): it must appear in no output.
  std::string secret;
  // A step that tries to leave the confinement and write (or read) `escape_file`; ${file} in it is
  // replaced by the path.
  std::string escape_sql;
  bool escape_writes_file = true;  // the escape would create the file (else it reads one)
  // A step that holds the session busy for seconds (the fault is injected meanwhile).
  std::string busy_sql;
  // Ends racelab's (pid) scenario connection from outside (a DBA, a failover); false when it found
  // none to end.
  std::function<bool(pid_t racelab)> inject_fault;
  // Instead of inject_fault, for an engine with no server to act on (SQLite): a step whose
  // statement meets a fault of the machine under the database (a full disk); "" to use
  // inject_fault.
  std::string fault_sql;
  // What racelab (pid) left: workspaces, roles/users, prepared transactions on the server, run
  // folders and files, one line each; empty when nothing.
  std::function<std::vector<std::string>(pid_t racelab)> leftovers;
  // Issue 20 items other engineers fix (the case fails until their fix is merged): case -> item.
  std::vector<std::pair<std::string, std::string>> known_open;
};

// gtest prints a target by its name.
inline void PrintTo(const ContractTarget& t, std::ostream* os) { *os << t.name; }

// Every target this build can run: PostgreSQL embedded and --dsn, MariaDB embedded and --dsn,
// SQLite and SQLite --dsn. The --dsn servers start on first use (once per test process).
const std::vector<ContractTarget>& ContractTargets();

}  // namespace racelab::testing
