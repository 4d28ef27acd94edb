// racelab run --dsn mariadb://… against a MariaDB server racelab did not start (the test starts it,
// as the unprivileged server user, with the embedded-server helpers) and a user with a password and
// only the rights racelab needs: the scenario passes, the password is in no output or report, and
// racelab leaves nothing in that server (no racelab_* database, no connection of its user).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "harness/engines/mariadb/connection.h"
#include "harness/engines/mariadb/server.h"
#include "tests/integration/mariadb_root.h"
#include "tests/integration/subprocess.h"

namespace racelab {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using testing::ProcessResult;
using testing::RunProcess;
using testing::Subprocess;

constexpr const char* kUser = "rl_app";
constexpr const char* kPassword = "Pw-7qZ!secret";  // '!' must be %-escaped in the URL
constexpr const char* kPasswordInUrl = "Pw-7qZ%21secret";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class MariaDbDsnTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<mariadb::EmbeddedMariaDb>> s = mariadb::EmbeddedMariaDb::Start({});
    ASSERT_TRUE(s.ok()) << s.status().message();
    server_ = std::move(*s);
    root_.socket = server_->socket_path();
    root_.user = "root";
    // The application's user: a password, its own database, the racelab_* databases with the GRANT
    // OPTION and CREATE USER (racelab creates a user for the run's scenario SQL that may use only
    // the run's databases: docs/mariadb.md "Scenario SQL is confined"), and PROCESS (the wait
    // monitor reads information_schema.INNODB_TRX, which needs it).
    Exec(std::string("CREATE USER ") + kUser + "@localhost IDENTIFIED BY '" + kPassword + "'");
    Exec("CREATE DATABASE appdb");
    Exec("CREATE TABLE appdb.t (id int PRIMARY KEY) ENGINE=InnoDB");
    Exec("INSERT INTO appdb.t VALUES (1), (2)");
    Exec(std::string("GRANT ALL ON appdb.* TO ") + kUser + "@localhost");
    Exec(std::string("GRANT ALL ON `racelab\\_%`.* TO ") + kUser + "@localhost WITH GRANT OPTION");
    Exec(std::string("GRANT CREATE USER ON *.* TO ") + kUser + "@localhost");
    Exec(std::string("GRANT PROCESS ON *.* TO ") + kUser + "@localhost");
  }

  // One statement as root; the first row's first column ("" if none).
  std::string Exec(const std::string& sql) { return testing::RootQuery(root_, sql); }

  std::string Dsn() const {
    return std::string("mariadb://") + kUser + ":" + kPasswordInUrl +
           "@localhost/appdb?socket=" + server_->socket_path();
  }

  std::unique_ptr<mariadb::EmbeddedMariaDb> server_;
  mariadb::ConnectTarget root_;
};

TEST_F(MariaDbDsnTest, RunsOnAServerItDidNotStartShowsNoPasswordAndLeavesNothing) {
  const std::string out =
      (fs::temp_directory_path() / ("racelab-mariadb-dsn-" + std::to_string(getpid()))).string();
  fs::remove_all(out);
  // A lock wait (the monitor's rights) and a guarded claim, 3 trials at read committed: seconds.
  Subprocess p({RACELAB_BINARY, "run", "--dsn", Dsn(), "guarded-cas-claim", "lock-hold-wait",
                "--isolation", "rc", "--trials", "3", "--format", "console,json,md,junit,html",
                "--out", out});
  ProcessResult r = p.Wait(milliseconds(180000));
  ASSERT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("guarded-cas-claim"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("lock-hold-wait"), std::string::npos) << r.out;

  EXPECT_EQ(r.out.find(kPassword), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find(kPassword), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find(kPasswordInUrl), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find(kPasswordInUrl), std::string::npos) << r.err;
  int reports = 0;
  for (const auto& f : fs::recursive_directory_iterator(out)) {
    if (!f.is_regular_file()) continue;
    ++reports;
    const std::string text = ReadFile(f.path());
    EXPECT_EQ(text.find(kPassword), std::string::npos) << f.path();
    EXPECT_EQ(text.find(kPasswordInUrl), std::string::npos) << f.path();
  }
  EXPECT_GE(reports, 4) << "json, md, junit, html";
  const std::string json = ReadFile(fs::path(out) / "racelab.json");
  EXPECT_NE(json.find("\"mariadb\""), std::string::npos) << "target.engine";
  EXPECT_NE(json.find(std::string(kUser) + ":***@"), std::string::npos) << "the DSN, redacted";

  // Nothing of racelab's is left in the server; the application's data is as it was.
  EXPECT_EQ(Exec("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE "
                 "'racelab%'"),
            "0");
  EXPECT_EQ(Exec(std::string("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = '") +
                 kUser + "'"),
            "0");
  EXPECT_EQ(Exec("SELECT COUNT(*) FROM mysql.user WHERE User LIKE 'racelab%'"), "0")
      << "the run's user is dropped";
  EXPECT_EQ(Exec("SELECT COUNT(*) FROM appdb.t"), "2");
  EXPECT_EQ(Exec("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'appdb'"),
            "1");
  fs::remove_all(out);
}

// Scenario files are code: a scenario that reaches for the application's table is refused (its SQL
// runs as the run's own user), exit 2 with the advice, and the table is untouched. A --dsn user
// that cannot create that user gets an error that names what it needs and --no-confine, which then
// runs.
TEST_F(MariaDbDsnTest, ScenarioSqlIsConfinedToTheRunsDatabases) {
  const fs::path dir =
      fs::temp_directory_path() / ("racelab-mariadb-hostile-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path file = dir / "hostile.yaml";
  std::ofstream(file) << "name: hostile-drop\n"
                         "title: A scenario that drops the application's table\n"
                         "teaches: Scenario SQL may use only the run's own databases.\n"
                         "engines: [mariadb]\n"
                         "isolation: [read committed]\n"
                         "setup: CREATE TABLE x (id int PRIMARY KEY)\n"
                         "sessions:\n"
                         "  - name: a\n"
                         "    steps:\n"
                         "      - sql: DROP TABLE appdb.t\n"
                         "expect:\n"
                         "  sqlstates: {}\n";
  ProcessResult r = RunProcess({RACELAB_BINARY, "run", "--dsn", Dsn(), file.string(), "--trials",
                                "1", "-q", "--format", "console", "--out", (dir / "out").string()},
                               std::chrono::seconds(120));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--no-confine"), std::string::npos) << r.err;
  EXPECT_EQ(Exec("SELECT COUNT(*) FROM appdb.t"), "2") << "the application's table is untouched";

  // A user with rights on racelab_* but without CREATE USER.
  Exec("CREATE USER plain@localhost IDENTIFIED BY 'Plain-pw-1'");
  Exec("GRANT ALL ON `racelab\\_%`.* TO plain@localhost");
  Exec("GRANT PROCESS ON *.* TO plain@localhost");
  const std::string plain =
      "mariadb://plain:Plain-pw-1@localhost/?socket=" + server_->socket_path();
  r = RunProcess({RACELAB_BINARY, "run", "--dsn", plain, "guarded-cas-claim", "--isolation", "rc",
                  "--trials", "1", "-q", "--format", "console", "--out", (dir / "out").string()},
                 std::chrono::seconds(120));
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("needs CREATE USER"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--no-confine"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("Plain-pw-1"), std::string::npos) << r.err;
  r = RunProcess(
      {RACELAB_BINARY, "run", "--dsn", plain, "--no-confine", "guarded-cas-claim", "--isolation",
       "rc", "--trials", "1", "-q", "--format", "console", "--out", (dir / "out").string()},
      std::chrono::seconds(120));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(Exec("SELECT COUNT(*) FROM mysql.user WHERE User LIKE 'racelab%'"), "0");
  fs::remove_all(dir);
}

// A password with '?' and '/' (the characters a careless URL parser splits on), given in the user
// info (the '/' as %2F) and as ?password=: both log in, and neither the password nor a piece of it
// is in any output or report; the same password with a raw '/' is refused whole (exit 2), unshown.
TEST_F(MariaDbDsnTest, EveryFormOfPasswordLogsInOrIsRefusedWithoutAPiece) {
  Exec("CREATE USER rl_q@localhost IDENTIFIED BY 'Qm?ark/Sl4sh'");
  Exec("GRANT ALL ON `racelab\\_%`.* TO rl_q@localhost WITH GRANT OPTION");
  Exec("GRANT CREATE USER, PROCESS ON *.* TO rl_q@localhost");
  const std::string socket = server_->socket_path();
  const struct {
    std::string dsn;
    int exit_code;
  } forms[] = {
      {"mariadb://rl_q:Qm?ark%2FSl4sh@localhost/?socket=" + socket, 0},
      {"mariadb://rl_q@localhost/?socket=" + socket + "&password=Qm%3Fark%2FSl4sh", 0},
      {"mariadb://rl_q:Qm?ark/Sl4sh@localhost/?socket=" + socket, 2},
  };
  for (const auto& f : forms) {
    const fs::path out =
        fs::temp_directory_path() / ("racelab-mariadb-forms-" + std::to_string(getpid()));
    fs::remove_all(out);
    ProcessResult r = RunProcess(
        {RACELAB_BINARY, "run", "--dsn", f.dsn, "guarded-cas-claim", "--isolation", "rc",
         "--trials", "1", "--format", "console,json,md,junit,html", "--out", out.string()},
        std::chrono::seconds(120));
    EXPECT_EQ(r.exit_code, f.exit_code) << f.dsn << "\n" << r.out << r.err;
    std::vector<std::pair<std::string, std::string>> outputs = {{"stdout", r.out},
                                                                {"stderr", r.err}};
    for (const auto& e : fs::directory_iterator(out))
      outputs.emplace_back(e.path().string(), ReadFile(e.path()));
    if (f.exit_code == 0) {
      EXPECT_EQ(outputs.size(), 6u) << "stdout, stderr and the four report files";
    }
    for (const auto& [name, text] : outputs) {
      for (const char* piece : {"Qm?ark", "Qm%3F", "Sl4sh", "ark%2F"}) {
        EXPECT_EQ(text.find(piece), std::string::npos)
            << f.dsn << ": '" << piece << "' in " << name << ":\n"
            << text;
      }
    }
    fs::remove_all(out);
  }
  Exec("DROP USER rl_q@localhost");
}

// A wrong password is a connection error (exit 3) that does not echo the password either.
TEST_F(MariaDbDsnTest, AWrongPasswordIsExit3WithoutThePassword) {
  const std::string dsn = std::string("mariadb://") + kUser +
                          ":Wrong-pw-55@localhost/?socket=" + server_->socket_path();
  Subprocess p({RACELAB_BINARY, "run", "--dsn", dsn, "guarded-cas-claim", "--trials", "1",
                "--format", "console"});
  ProcessResult r = p.Wait(milliseconds(60000));
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(r.out.find("Wrong-pw-55"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("Wrong-pw-55"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Access denied"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace racelab
