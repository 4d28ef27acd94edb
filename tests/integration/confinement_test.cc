// Confinement on --dsn and the embedded cluster (harness/run/scenario_role.h): scenario SQL runs as
// a generated non-superuser role that owns only its schema. Each fixture under
// tests/fixtures/confine/ tries one way out; the server refuses it (42501), racelab exits 2 with
// the server's message, and nothing is left behind: no schema, no generated role, public untouched.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "harness/engines/postgresql/cluster.h"
#include "tests/integration/pg_test_env.h"
#include "tests/integration/subprocess.h"

namespace racelab::testing {
namespace {

using pg::ClusterOptions;
using pg::EmbeddedCluster;

using std::chrono::seconds;

const std::string kBin = RACELAB_BINARY;
const std::string kFixtures = std::string(RACELAB_SOURCE_DIR) + "/tests/fixtures/confine/";

// Runs `sql` as the test server's superuser; returns the first value, or "ERROR: …".
std::string Query(const std::string& sql) {
  PGconn* c = PQconnectdb(TestConninfo().c_str());
  PGresult* r = PQexec(c, sql.c_str());
  std::string out;
  if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0) {
    out = PQgetvalue(r, 0, 0);
  } else if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) {
    out = std::string("ERROR: ") + PQresultErrorMessage(r);
  }
  PQclear(r);
  PQfinish(c);
  return out;
}

int GeneratedRoles() {
  return std::stoi(Query("SELECT count(*) FROM pg_roles WHERE rolname LIKE 'racelab\\_role\\_%'"));
}
int RacelabSchemas() {
  return std::stoi(Query("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'racelab\\_%'"));
}

// A non-superuser admin with CREATEROLE, as a DBA would give racelab (the test server trusts its
// socket).
std::string AdminDsn() {
  Query(
      "DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'racelab_f_admin') THEN "
      "CREATE ROLE racelab_f_admin LOGIN CREATEROLE; END IF; END$$");
  Query("GRANT CREATE ON DATABASE postgres TO racelab_f_admin");
  return TestConninfo() + " user=racelab_f_admin";
}

class Confinement : public ::testing::TestWithParam<const char*> {};

TEST_P(Confinement, EscapeAttemptFailsWithAClearErrorAndLeavesNothing) {
  Query("CREATE TABLE IF NOT EXISTS public.racelab_canary (v int)");
  Query("TRUNCATE public.racelab_canary");
  std::filesystem::remove("/tmp/racelab-confine-pwned");
  // --dsn, then the embedded cluster (which has no public.racelab_canary to write to).
  std::vector<std::string> targets = {AdminDsn()};
  if (std::string(GetParam()) != "write_public") targets.push_back("");
  for (const std::string& dsn : targets) {
    std::vector<std::string> argv = {kBin,       "run", kFixtures + GetParam() + ".yaml",
                                     "--trials", "1",   "--format",
                                     "console",  "-q"};
    if (!dsn.empty()) argv.insert(argv.end(), {"--dsn", dsn});
    ProcessResult r = RunProcess(argv, seconds(120));
    EXPECT_EQ(r.exit_code, 2) << GetParam() << " dsn=" << !dsn.empty() << "\n" << r.err << r.out;
    // SQLSTATE 42501 insufficient_privilege, with the server's message ("must be owner of schema
    // public", …).
    EXPECT_NE(r.out.find("step 'escape' cannot run: 42501 "), std::string::npos) << r.out << r.err;
    EXPECT_NE(r.err.find("scenario SQL runs as a role racelab creates for the run"),
              std::string::npos)
        << r.err;
  }
  EXPECT_EQ(Query("SELECT count(*) FROM pg_namespace WHERE nspname = 'public'"), "1");
  EXPECT_EQ(Query("SELECT count(*) FROM public.racelab_canary"), "0");
  EXPECT_EQ(Query("SELECT count(*) FROM pg_tables WHERE tablename = 'racelab_pwned'"), "0");
  EXPECT_FALSE(std::filesystem::exists("/tmp/racelab-confine-pwned"));
  EXPECT_EQ(GeneratedRoles(), 0);
  EXPECT_EQ(RacelabSchemas(), 0);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Confinement,
                         ::testing::Values("drop_public", "write_public", "create_in_public",
                                           "copy_program", "reset_role"));

TEST(Confinement, ScenarioSqlRunsAsAGeneratedRoleThatOwnsItsSchema) {
  for (const std::string& dsn : {AdminDsn(), std::string()}) {
    std::vector<std::string> argv = {
        kBin, "run", kFixtures + "whoami.yaml", "--trials", "2", "--format", "console", "-q"};
    if (!dsn.empty()) argv.insert(argv.end(), {"--dsn", dsn});
    ProcessResult r = RunProcess(argv, seconds(120));
    EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  }
  EXPECT_EQ(GeneratedRoles(), 0);
  EXPECT_EQ(RacelabSchemas(), 0);
}

TEST(Confinement, SuperuserDsnIsRefusedWithoutAllowSuperuser) {
  ProcessResult r =
      RunProcess({kBin, "run", "guarded-cas-claim", "--trials", "1", "--dsn", TestConninfo(), "-q"},
                 seconds(60));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("superuser 'racelab': refused without --allow-superuser"), std::string::npos)
      << r.err;
  r = RunProcess({kBin, "run", "guarded-cas-claim", "--isolation", "rc", "--trials", "1", "--dsn",
                  TestConninfo(), "--allow-superuser", "--format", "console", "-q"},
                 seconds(120));
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(GeneratedRoles(), 0);
}

TEST(Confinement, AdminWithoutCreateroleIsToldWhatToDo) {
  Query(
      "DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'racelab_f_plain') THEN "
      "CREATE ROLE racelab_f_plain LOGIN; END IF; END$$");
  Query("GRANT CREATE ON DATABASE postgres TO racelab_f_plain");
  const std::string dsn = TestConninfo() + " user=racelab_f_plain";
  ProcessResult r = RunProcess(
      {kBin, "run", "guarded-cas-claim", "--trials", "1", "--dsn", dsn, "-q"}, seconds(60));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("give the --dsn role CREATEROLE, or pass --no-confine"), std::string::npos)
      << r.err;
  r = RunProcess({kBin, "run", "guarded-cas-claim", "--isolation", "rc", "--trials", "1", "--dsn",
                  dsn, "--no-confine", "--format", "console", "-q"},
                 seconds(120));
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
}

// A server that asks for passwords (scram-sha-256 on its socket, as a DBA would configure it): the
// generated role logs in with its own random password, and a wrong one-letter password gives
// libpq's message intact ("password authentication failed"), never "p***ssword ***uthentic***tion".
TEST(Confinement, PasswordAuthenticatedServer) {
  char tmpl[] = "/tmp/rlc-XXXXXX";
  const std::filesystem::path base = mkdtemp(tmpl);
  std::filesystem::permissions(base, std::filesystem::perms::all);
  {
    ClusterOptions co;
    co.base_dir = (base / "c").string();
    auto cluster = EmbeddedCluster::Start(co);
    ASSERT_TRUE(cluster.ok()) << cluster.status().message();
    const std::string super = (*cluster)->conninfo();
    PGconn* c = PQconnectdb(super.c_str());
    ASSERT_EQ(PQstatus(c), CONNECTION_OK);
    PQclear(PQexec(c, "CREATE ROLE pw_admin LOGIN CREATEROLE PASSWORD 'a'"));
    PQclear(PQexec(c, "GRANT CREATE ON DATABASE postgres TO pw_admin"));
    PGresult* hba = PQexec(c, "SHOW hba_file");
    const std::string hba_file = PQgetvalue(hba, 0, 0);
    PQclear(hba);
    std::ofstream(hba_file) << "local all racelab trust\nlocal all all scram-sha-256\n";
    PQclear(PQexec(c, "SELECT pg_reload_conf()"));
    PQfinish(c);
    std::this_thread::sleep_for(
        std::chrono::milliseconds(500));  // the postmaster rereads pg_hba.conf

    ProcessResult ok =
        RunProcess({kBin, "run", "guarded-cas-claim", "--isolation", "rc", "--trials", "2", "--dsn",
                    super + " user=pw_admin password=a", "--format", "console", "-q"},
                   seconds(120));
    EXPECT_EQ(ok.exit_code, 0) << ok.err << ok.out;
    ProcessResult bad = RunProcess({kBin, "run", "guarded-cas-claim", "--trials", "1", "--dsn",
                                    super + " user=pw_admin password=b", "-q"},
                                   seconds(60));
    EXPECT_EQ(bad.exit_code, 3) << bad.err;
    EXPECT_NE(bad.err.find("password authentication failed for user \"pw_admin\""),
              std::string::npos)
        << bad.err;
    EXPECT_NE(bad.err.find("password=***"), std::string::npos) << bad.err;
    EXPECT_EQ(bad.err.find("password=b"), std::string::npos) << bad.err;
    c = PQconnectdb(super.c_str());
    PGresult* roles =
        PQexec(c, "SELECT count(*) FROM pg_roles WHERE rolname LIKE 'racelab\\_role\\_%'");
    EXPECT_STREQ(PQgetvalue(roles, 0, 0), "0");
    PQclear(roles);
    PQfinish(c);
  }
  std::filesystem::remove_all(base);
}

// deadlock_timeout is superuser-only (PGC_SUSET): the generated role may SET it only when the admin
// can grant it (PostgreSQL 15+ GRANT SET ON PARAMETER … WITH GRANT OPTION, or a superuser admin).
// A setting the role may not set is the scenario's fault on this server (exit 2, issue 20 item 22),
// with the hint that says which role could.
TEST(Confinement, SuperuserOnlySettingsNeedAGrantableSet) {
  const std::string dsn = AdminDsn();
  const std::vector<std::string> argv = {kBin,          "run",     "fingerprint-deadlock",
                                         "--isolation", "rc",      "--trials",
                                         "1",           "--dsn",   dsn,
                                         "--format",    "console", "-q"};
  ProcessResult r = RunProcess(argv, seconds(120));
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_NE(r.out.find("permission denied to set parameter \"deadlock_timeout\" (42501)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("racelab grants it SET on deadlock_timeout"), std::string::npos) << r.out;
  Query("GRANT SET ON PARAMETER deadlock_timeout TO racelab_f_admin WITH GRANT OPTION");
  r = RunProcess(argv, seconds(120));
  Query("REVOKE SET ON PARAMETER deadlock_timeout FROM racelab_f_admin CASCADE");
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(GeneratedRoles(), 0);
}

TEST(Confinement, SigintMidRunDropsTheRoleAndSchema) {
  const std::string dsn = AdminDsn();
  Subprocess p({kBin, "run", "lock-hold-wait", "--set", "hold_ms=2000", "--trials", "20", "--dsn",
                dsn, "--format", "console"});
  ASSERT_TRUE(p.WaitForStderr("@ read committed: 20 trials", seconds(60)));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(GeneratedRoles(), 1);
  p.Signal(SIGINT);
  ProcessResult r = p.Wait(seconds(60));
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_EQ(GeneratedRoles(), 0) << r.err;
  EXPECT_EQ(RacelabSchemas(), 0) << r.err;
}

TEST(Confinement, CleanDropsTheRoleOfAKilledRunOnly) {
  const std::string dsn = AdminDsn();
  Subprocess p({kBin, "run", "lock-hold-wait", "--set", "hold_ms=2000", "--trials", "20", "--dsn",
                dsn, "-q", "--format", "console"});
  // Wait until its role exists and a trial runs, then kill it where it cannot clean up.
  for (int i = 0; i < 300 && GeneratedRoles() == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ProcessResult live = RunProcess({kBin, "clean", "--dsn", dsn, "--dry-run"}, seconds(30));
  EXPECT_EQ(live.out.find("would drop role"), std::string::npos)
      << "a running run's role is not a leftover: " << live.out;
  p.Signal(SIGKILL);
  p.Wait(seconds(10));
  ASSERT_EQ(GeneratedRoles(), 1);
  // Its backends go away asynchronously once the sockets close.
  ProcessResult r;
  for (int i = 0; i < 50; ++i) {
    r = RunProcess({kBin, "clean", "--dsn", dsn}, seconds(30));
    if (GeneratedRoles() == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(GeneratedRoles(), 0) << r.out << r.err;
  EXPECT_EQ(RacelabSchemas(), 0) << r.out;
}

// A run killed with SIGKILL while a step runs pg_sleep(3600): its backend outlives it (holding its
// schema's locks). One `racelab clean` ends that backend, then drops the schema and the role — and
// says so; --dry-run says what it would do and does nothing; a live run's are untouched.
TEST(Confinement, OneCleanEndsTheBackendsOfAKilledRunThenDropsItsSchemaAndRole) {
  const std::string dsn = AdminDsn();
  const std::string sleeping =
      "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(3600)' AND usename "
      "LIKE "
      "'racelab\\_role\\_%'";
  Subprocess p({kBin, "run", kFixtures + "sleep_forever.yaml", "--trials", "1", "--dsn", dsn, "-q",
                "--format", "console"});
  for (int i = 0; i < 300 && Query(sleeping) != "1"; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_EQ(Query(sleeping), "1") << "the run never reached its pg_sleep step";
  ProcessResult live = RunProcess({kBin, "clean", "--dsn", dsn, "--dry-run"}, seconds(30));
  EXPECT_EQ(live.exit_code, 0) << live.err;
  EXPECT_EQ(live.out.find("would end"), std::string::npos)
      << "a live run's backends are kept: " << live.out;
  EXPECT_EQ(live.out.find("would drop schema"), std::string::npos)
      << "a live run's schema is kept: " << live.out;
  EXPECT_EQ(live.out.find("would drop role"), std::string::npos)
      << "a live run's role is kept: " << live.out;
  EXPECT_NE(live.out.find("kept 1 schema(s) of live runs"), std::string::npos) << live.out;
  p.Signal(SIGKILL);
  p.Wait(seconds(10));
  ASSERT_EQ(GeneratedRoles(), 1);
  ASSERT_EQ(Query(sleeping), "1") << "the killed run's backend outlives it";

  ProcessResult dry = RunProcess({kBin, "clean", "--dsn", dsn, "--dry-run"}, seconds(30));
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("would end backend "), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find(" of role racelab_role_"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("would drop schema racelab_"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("would drop role racelab_role_"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("would drop 1 schema(s) and 1 role(s) of dead runs, after ending "),
            std::string::npos)
      << dry.out;
  EXPECT_EQ(Query(sleeping), "1") << "--dry-run ends nothing";
  EXPECT_EQ(GeneratedRoles(), 1) << "--dry-run drops nothing";

  ProcessResult r = RunProcess({kBin, "clean", "--dsn", dsn}, seconds(60));
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("ended backend "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dropped role racelab_role_"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dropped 1 schema(s) and 1 role(s) of dead runs, after ending "),
            std::string::npos)
      << r.out;
  EXPECT_EQ(Query(sleeping), "0") << r.out;
  EXPECT_EQ(GeneratedRoles(), 0) << r.out << r.err;
  EXPECT_EQ(RacelabSchemas(), 0) << r.out;
}

}  // namespace
}  // namespace racelab::testing
