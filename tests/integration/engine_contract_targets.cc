#include "tests/integration/engine_contract_targets.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>

#include "harness/engines/mariadb/connection.h"
#include "harness/engines/mariadb/server.h"
#include "harness/engines/postgresql/cluster.h"
#include "harness/engines/sqlite/run_folder.h"
#include "tests/integration/pg_test_env.h"

namespace racelab::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

constexpr const char* kPgRole = "racelab_contract_admin";
constexpr const char* kPgPassword = "Contract-Pg-S3cret";
constexpr const char* kMariaUser = "rl_contract";
constexpr const char* kMariaPassword = "Contract-Maria-S3cret";

SteadyTime In(int ms) { return std::chrono::steady_clock::now() + milliseconds(ms); }

// The run folders of racelab `pid` under `base` ("run-<pid>-…" or "racelab-sqlite-<pid>-…").
std::vector<std::string> RunFoldersOf(const std::string& base, pid_t pid) {
  std::vector<std::string> out;
  std::error_code ec;
  const std::string a = "run-" + std::to_string(pid) + "-",
                    b = "racelab-sqlite-" + std::to_string(pid) + "-";
  for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(a, 0) == 0 || name.rfind(b, 0) == 0)
      out.push_back("folder " + it->path().string());
  }
  return out;
}

// Rows of a one-column query on a libpq connection, as "<prefix><value>".
std::vector<std::string> PgRows(const std::string& conninfo, const std::string& sql,
                                const std::string& prefix) {
  std::vector<std::string> out;
  PGconn* c = PQconnectdb(conninfo.c_str());
  if (PQstatus(c) != CONNECTION_OK) {
    ADD_FAILURE() << "cannot reach the PostgreSQL server: " << PQerrorMessage(c);
    PQfinish(c);
    return {"(the server could not be reached)"};
  }
  PGresult* r = PQexec(c, sql.c_str());
  if (PQresultStatus(r) == PGRES_TUPLES_OK) {
    for (int i = 0; i < PQntuples(r); ++i) out.push_back(prefix + PQgetvalue(r, i, 0));
  } else {
    ADD_FAILURE() << sql << ": " << PQerrorMessage(c);
  }
  PQclear(r);
  PQfinish(c);
  return out;
}

// What a racelab left on a PostgreSQL server: its workspaces (schemas racelab_<pid>_…), generated
// roles that are not the test's own, prepared transactions.
std::vector<std::string> PgLeftovers(const std::string& conninfo, pid_t pid) {
  std::vector<std::string> out =
      PgRows(conninfo,
             "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'racelab\\_" +
                 std::to_string(pid) + "\\_%'",
             "schema ");
  for (auto& s :
       PgRows(conninfo, "SELECT rolname FROM pg_roles WHERE rolname LIKE 'racelab\\_role\\_%'",
              "role "))
    out.push_back(s);
  for (auto& s : PgRows(conninfo, "SELECT gid FROM pg_prepared_xacts", "prepared transaction "))
    out.push_back(s);
  return out;
}

// Ends the scenario backends of racelab's generated roles that run pg_sleep (pg_terminate_backend:
// 57P01 to the client), polling for up to 20 s; a server still starting is polled again. `conninfo`
// is asked each time (an embedded cluster's socket appears only once it runs).
bool PgTerminate(const std::function<std::string()>& conninfo) {
  for (int i = 0; i < 400; ++i) {
    PGconn* c = PQconnectdb(conninfo().c_str());
    if (PQstatus(c) == CONNECTION_OK) {
      PGresult* r =
          PQexec(c,
                 "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename LIKE "
                 "'racelab\\_role\\_%' AND query LIKE '%pg_sleep%' AND state = 'active'");
      const bool ended = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0;
      PQclear(r);
      PQfinish(c);
      if (ended) return true;
    } else {
      PQfinish(c);
    }
    usleep(50000);
  }
  return false;
}

// The embedded cluster of racelab `pid`: its socket folder and port, as a conninfo for user
// racelab.
std::string EmbeddedPgConninfo(pid_t pid) {
  for (int i = 0; i < 2; ++i) {
    for (const std::string& line : RunFoldersOf(pg::DefaultBaseDir(), pid)) {
      const std::string dir = line.substr(7);
      std::error_code ec;
      for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind(".s.PGSQL.", 0) == 0 && name.find(".lock") == std::string::npos) {
          return "host=" + dir + " port=" + name.substr(9) + " user=racelab dbname=postgres";
        }
      }
    }
    usleep(50000);
  }
  return "";
}

// One shared MariaDB server for the --dsn target, with an application user that has a password.
struct MariaServer {
  std::unique_ptr<mariadb::EmbeddedMariaDb> server;
  mariadb::ConnectTarget root;
};

std::optional<std::string> MariaExec(const mariadb::ConnectTarget& target, const std::string& sql) {
  auto c = mariadb::MariaConnection::Open(target, "contract-test", In(10000), nullptr);
  if (!c.ok()) {
    ADD_FAILURE() << c.status().message();
    return std::nullopt;
  }
  QueryResult r = (*c)->Exec(sql, In(10000), 1000);
  (*c)->Close();
  if (!r.ok()) {
    ADD_FAILURE() << sql << ": " << r.message;
    return std::nullopt;
  }
  std::string all;
  for (const auto& row : r.values) all += (all.empty() ? "" : "\n") + row.at(0).value_or("NULL");
  return all;
}

MariaServer* SharedMariaServer() {
  static MariaServer* shared = [] {
    auto* m = new MariaServer();
    auto s = mariadb::EmbeddedMariaDb::Start({});
    if (!s.ok()) {
      ADD_FAILURE() << "cannot start the MariaDB server of the --dsn target: "
                    << s.status().message();
      return m;
    }
    m->server = std::move(*s);
    m->root.socket = m->server->socket_path();
    m->root.user = "root";
    for (const std::string& sql :
         {std::string("CREATE USER ") + kMariaUser + "@localhost IDENTIFIED BY '" + kMariaPassword +
              "'",
          std::string("CREATE DATABASE appdb"),
          std::string("GRANT ALL ON appdb.* TO ") + kMariaUser + "@localhost",
          std::string("GRANT ALL ON `racelab\\_%`.* TO ") + kMariaUser +
              "@localhost WITH GRANT OPTION",
          std::string("GRANT CREATE USER ON *.* TO ") + kMariaUser + "@localhost",
          std::string("GRANT PROCESS ON *.* TO ") + kMariaUser + "@localhost"}) {
      MariaExec(m->root, sql);
    }
    return m;
  }();
  return shared;
}

std::vector<std::string> Lines(const std::optional<std::string>& text, const std::string& prefix) {
  std::vector<std::string> out;
  if (!text) return {"(the server could not be reached)"};
  size_t start = 0;
  while (start < text->size()) {
    size_t nl = text->find('\n', start);
    out.push_back(prefix +
                  text->substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

// What racelab `pid` left on a MariaDB server: its workspaces (racelab_<pid>_…), its generated user
// (racelab_u_<pid>_…), and any prepared XA transaction.
std::vector<std::string> MariaLeftovers(const mariadb::ConnectTarget& root, pid_t pid) {
  const std::string p = std::to_string(pid);
  std::vector<std::string> out =
      Lines(MariaExec(root,
                      "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE "
                      "'racelab\\_" +
                          p + "\\_%'"),
            "database ");
  for (auto& s :
       Lines(MariaExec(root,
                       "SELECT User FROM mysql.user WHERE User LIKE 'racelab\\_u\\_" + p + "\\_%'"),
             "user ")) {
    out.push_back(s);
  }
  for (auto& s : Lines(MariaExec(root, "XA RECOVER"), "prepared XA transaction, formatID ")) {
    out.push_back(s);
  }
  return out;
}

// KILLs the scenario connection that runs SLEEP (a DBA's KILL <id>).
bool MariaKill(const mariadb::ConnectTarget& root) {
  for (int i = 0; i < 100; ++i) {
    auto ids = MariaExec(
        root, "SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT SLEEP%'");
    if (ids && !ids->empty()) {
      for (const std::string& id : Lines(ids, "")) MariaExec(root, "KILL " + id);
      return true;
    }
    usleep(50000);
  }
  return false;
}

// The socket of the embedded MariaDB server of racelab `pid`, as root's target.
mariadb::ConnectTarget EmbeddedMariaRoot(pid_t pid) {
  mariadb::ConnectTarget t;
  t.user = "root";
  for (int i = 0; i < 200 && t.socket.empty(); ++i) {
    for (const std::string& line : RunFoldersOf(mariadb::DefaultMariaDbBaseDir(), pid)) {
      std::error_code ec;
      for (fs::recursive_directory_iterator it(line.substr(7), ec), end; !ec && it != end;
           it.increment(ec)) {
        struct stat st {};
        if (::stat(it->path().c_str(), &st) == 0 && S_ISSOCK(st.st_mode))
          t.socket = it->path().string();
      }
    }
    if (t.socket.empty()) usleep(50000);
  }
  return t;
}

void PgExec(const std::string& conninfo, const std::string& sql) {
  PGconn* c = PQconnectdb(conninfo.c_str());
  PGresult* r = PQexec(c, sql.c_str());
  if (PQresultStatus(r) != PGRES_COMMAND_OK) ADD_FAILURE() << sql << ": " << PQerrorMessage(c);
  PQclear(r);
  PQfinish(c);
}

// A non-superuser admin with CREATEROLE and a password, as a DBA would give racelab (the test
// server trusts its socket, so the password only has to stay secret).
std::string PgDsn() {
  const std::string conninfo = TestConninfo();
  static bool made = false;
  if (!made) {
    PgExec(conninfo,
           std::string("DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '") +
               kPgRole + "') THEN CREATE ROLE " + kPgRole + " LOGIN CREATEROLE PASSWORD '" +
               kPgPassword + "'; END IF; END$$");
    PgExec(conninfo, std::string("GRANT CREATE ON DATABASE postgres TO ") + kPgRole);
    made = true;
  }
  PQconninfoOption* opts = PQconninfoParse(conninfo.c_str(), nullptr);
  std::string host, port;
  for (PQconninfoOption* o = opts; o != nullptr && o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    if (std::string(o->keyword) == "host") host = o->val;
    if (std::string(o->keyword) == "port") port = o->val;
  }
  PQconninfoFree(opts);
  return "host='" + host + "' port=" + port + " user=" + kPgRole +
         " dbname=postgres password=" + kPgPassword;
}

std::string SqliteDsnFile() {
  static const std::string path = [] {
    std::string dir =
        fs::temp_directory_path() / ("racelab-contract-sqlite-" + std::to_string(getpid()));
    fs::create_directories(dir);
    // Removed when the test process ends: the test leaves nothing in the temporary folder.
    static const struct RemoveAtExit {
      std::string dir;
      ~RemoveAtExit() {
        std::error_code ec;
        fs::remove_all(dir, ec);
      }
    } remove_at_exit{dir};
    return dir + "/user.db";
  }();
  return path;
}

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    out.push_back(it->path().string());
  return out;
}

const char* kPgEscape = "COPY (SELECT 'escaped') TO '${file}'";
const char* kMariaEscape = "SELECT 'escaped' INTO OUTFILE '${file}'";
const char* kSqliteEscape = "ATTACH DATABASE '${file}' AS escaped";
// The disk under the trial's database is full: no page may be added (max_page_count cannot go below
// the file's size, so 1 means "as it is now"), and the row needs new pages — SQLITE_FULL, as on a
// full disk.
const char* kSqliteFull =
    "PRAGMA max_page_count = 1; INSERT INTO runs (id, status) VALUES (2, hex(zeroblob(20000)))";

}  // namespace

const std::vector<ContractTarget>& ContractTargets() {
  static const std::vector<ContractTarget> kTargets = {
      {.name = "postgresql_embedded",
       .engine = "postgresql",
       .args =
           [] {
             return std::vector<std::string>{"--engine", "postgresql"};
           },
       .escape_sql = kPgEscape,
       .busy_sql = "SELECT pg_sleep(8)",
       .inject_fault =
           [](pid_t pid) { return PgTerminate([pid] { return EmbeddedPgConninfo(pid); }); },
       .leftovers = [](pid_t pid) { return RunFoldersOf(pg::DefaultBaseDir(), pid); }},
      {.name = "postgresql_dsn",
       .engine = "postgresql",
       .args =
           [] {
             return std::vector<std::string>{"--dsn", PgDsn()};
           },
       .secret = kPgPassword,
       .escape_sql = kPgEscape,
       .busy_sql = "SELECT pg_sleep(8)",
       .inject_fault = [](pid_t) { return PgTerminate([] { return TestConninfo(); }); },
       .leftovers = [](pid_t pid) { return PgLeftovers(TestConninfo(), pid); }},
      {.name = "mariadb_embedded",
       .engine = "mariadb",
       .args =
           [] {
             return std::vector<std::string>{"--engine", "mariadb"};
           },
       .escape_sql = kMariaEscape,
       .busy_sql = "SELECT SLEEP(8)",
       .inject_fault = [](pid_t pid) { return MariaKill(EmbeddedMariaRoot(pid)); },
       .leftovers = [](pid_t pid) { return RunFoldersOf(mariadb::DefaultMariaDbBaseDir(), pid); }},
      {.name = "mariadb_dsn",
       .engine = "mariadb",
       .args =
           [] {
             return std::vector<std::string>{
                 "--dsn", std::string("mariadb://") + kMariaUser + ":" + kMariaPassword +
                              "@localhost/appdb?socket=" + SharedMariaServer()->root.socket};
           },
       .secret = kMariaPassword,
       .escape_sql = kMariaEscape,
       .busy_sql = "SELECT SLEEP(8)",
       .inject_fault = [](pid_t) { return MariaKill(SharedMariaServer()->root); },
       .leftovers = [](pid_t pid) { return MariaLeftovers(SharedMariaServer()->root, pid); },
       .known_open =
           {{"ASigtermMidRunLeavesNothing",
             "issue 20 item 19 (SIGTERM of a --dsn mariadb run leaves its things), engineer "
             "\"mariadb\""}}},
      {.name = "sqlite",
       .engine = "sqlite",
       .args =
           [] {
             return std::vector<std::string>{"--engine", "sqlite"};
           },
       .escape_sql = kSqliteEscape,
       .fault_sql = kSqliteFull,
       .leftovers = [](pid_t pid) { return RunFoldersOf(sqlite::TempBase(), pid); }},
      {.name = "sqlite_dsn",
       .engine = "sqlite",
       .args =
           [] {
             const std::string file = SqliteDsnFile();
             if (!fs::exists(file))
               std::ofstream(file).flush();  // an empty file is an empty database
             return std::vector<std::string>{"--dsn", "sqlite://" + file};
           },
       .escape_sql = kSqliteEscape,
       .fault_sql = kSqliteFull,
       .leftovers =
           [](pid_t pid) {
             std::vector<std::string> out = RunFoldersOf(sqlite::TempBase(), pid);
             for (const std::string& f : Files(fs::path(SqliteDsnFile()).parent_path())) {
               if (f != SqliteDsnFile()) out.push_back("file " + f);
             }
             return out;
           }},
  };
  return kTargets;
}

}  // namespace racelab::testing
