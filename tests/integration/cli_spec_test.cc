// `racelab run X.spec` and `racelab convert X.spec` as a user runs them: the transcript compared
// with
// --expected (exit 0 same, 1 different), the spec's SQL confined to racelab's generated role unless
// --no-confine, and `racelab clean` dropping the database of a spec run killed with SIGKILL.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tests/integration/pg_test_env.h"
#include "tests/integration/subprocess.h"
#include "tests/integration/test_files.h"

namespace racelab::testing {
namespace {

using std::chrono::seconds;

const std::string kBin = RACELAB_BINARY;
const std::string kDiff = std::string(RACELAB_SOURCE_DIR) + "/tests/fixtures/spec/diff/";

int SpecDatabases() {
  PGconn* c = PQconnectdb(TestConninfo().c_str());
  PGresult* r =
      PQexec(c, "SELECT count(*) FROM pg_database WHERE datname LIKE 'racelab\\_spec\\_%'");
  int n = PQresultStatus(r) == PGRES_TUPLES_OK ? std::atoi(PQgetvalue(r, 0, 0)) : -1;
  PQclear(r);
  PQfinish(c);
  return n;
}

std::string WriteSpec(const TempDir& dir, const std::string& name, const std::string& text) {
  std::string path = (dir.path / name).string();
  std::ofstream(path) << text;
  return path;
}

TEST(CliSpec, TheTranscriptIsComparedWithTheExpectedOutput) {
  ProcessResult r = RunProcess({kBin, "run", kDiff + "locks.spec", "--dsn", TestConninfo(),
                                "--allow-superuser", "--expected", kDiff + "locks.out", "-q"},
                               seconds(120));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("the transcript matches"), std::string::npos) << r.err;
  r = RunProcess({kBin, "run", kDiff + "locks.spec", "--dsn", TestConninfo(), "--allow-superuser",
                  "--expected", kDiff + "results.out", "-q"},
                 seconds(120));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("the transcript differs from"), std::string::npos) << r.err;
  // An expected file that stops after its first line: "expected" is the file's side, "got" the
  // run's.
  TempDir dir;
  std::string first_line;
  std::getline(std::ifstream(kDiff + "locks.out"), first_line);
  std::string truncated = WriteSpec(dir, "first-line.out", first_line + "\n");
  r = RunProcess({kBin, "run", kDiff + "locks.spec", "--dsn", TestConninfo(), "--allow-superuser",
                  "--expected", truncated, "-q"},
                 seconds(120));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("at line 2:\n  expected: (end of file)\n  got:      "), std::string::npos)
      << r.err;
  EXPECT_EQ(SpecDatabases(), 0);
}

// A spec's SQL runs as the run's generated role (no superuser, owner of the spec's database), as a
// scenario's does; --no-confine runs it as the --dsn role, as isolationtester would.
TEST(CliSpec, SpecSqlRunsAsTheGeneratedRoleUnlessNoConfine) {
  TempDir dir;
  std::string spec =
      WriteSpec(dir, "who.spec",
                "setup { CREATE TABLE t (k int); }\n"
                "session s\n"
                "step who { SELECT current_user LIKE 'racelab\\_role\\_%' AS confined, rolsuper "
                "FROM pg_roles WHERE rolname = current_user; }\n"
                "step su { ALTER SYSTEM SET work_mem = '4MB'; }\n"
                "permutation who su\n"
                "permutation who\n");
  ProcessResult r = RunProcess(
      {kBin, "run", spec, "--dsn", TestConninfo(), "--allow-superuser", "--permutation", "1", "-q"},
      seconds(120));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("confined|rolsuper\n--------+--------\nt       |f"), std::string::npos)
      << r.out;
  // PostgreSQL 15's wording (GRANT ALTER SYSTEM ON PARAMETER is new in 15).
  EXPECT_NE(r.out.find("ERROR:  permission denied to set parameter \"work_mem\""),
            std::string::npos)
      << r.out;
  r = RunProcess({kBin, "run", spec, "--dsn", TestConninfo(), "--allow-superuser", "--no-confine",
                  "--permutation", "2", "-q"},
                 seconds(120));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("f       |t"), std::string::npos) << r.out;
  EXPECT_EQ(SpecDatabases(), 0);
}

// Ctrl-C during a step: exit 130, the database dropped, and stderr says the transcript was cut by
// it (its last ERROR is racelab's cancel, not the spec's).
TEST(CliSpec, SigintEndsTheRunSaysSoAndDropsTheDatabase) {
  TempDir dir;
  std::string spec =
      WriteSpec(dir, "sleepy.spec", "session s\nstep nap { SELECT pg_sleep(60); }\n");
  Subprocess p({kBin, "run", spec, "--dsn", TestConninfo(), "--allow-superuser", "-q"});
  for (int i = 0; i < 300 && SpecDatabases() < 1; ++i) usleep(100 * 1000);
  ASSERT_EQ(SpecDatabases(), 1) << "the spec run never created its database";
  usleep(300 * 1000);  // into the step
  p.Signal(SIGINT);
  ProcessResult r = p.Wait(seconds(60));
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_NE(r.err.find("racelab: interrupted"), std::string::npos) << r.err;
  EXPECT_EQ(SpecDatabases(), 0);
}

int GeneratedRoles() {
  PGconn* c = PQconnectdb(TestConninfo().c_str());
  PGresult* r = PQexec(c, "SELECT count(*) FROM pg_roles WHERE rolname LIKE 'racelab\\_role\\_%'");
  int n = PQresultStatus(r) == PGRES_TUPLES_OK ? std::atoi(PQgetvalue(r, 0, 0)) : -1;
  PQclear(r);
  PQfinish(c);
  return n;
}

// One clean drops the database and the generated role (its owner) of the killed run, whose backend
// still runs the step's pg_sleep; the summary calls the database a database.
TEST(CliSpec, CleanDropsTheDatabaseOfASpecRunKilledWithSigkill) {
  TempDir dir;
  std::string spec =
      WriteSpec(dir, "sleepy.spec", "session s\nstep nap { SELECT pg_sleep(3600); }\n");
  {
    Subprocess p({kBin, "run", spec, "--dsn", TestConninfo(), "--allow-superuser", "-q"});
    for (int i = 0; i < 300 && SpecDatabases() < 1; ++i) usleep(100 * 1000);
    ASSERT_EQ(SpecDatabases(), 1) << "the spec run never created its database";
    p.Signal(SIGKILL);  // no chance to drop it
    p.Wait(seconds(30));
  }
  EXPECT_EQ(SpecDatabases(), 1) << "a SIGKILLed spec run leaves its database";
  ProcessResult r = RunProcess({kBin, "clean", "--dsn", TestConninfo(), "--dry-run"}, seconds(60));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("would drop database racelab_spec_"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("would drop role racelab_role_"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("would drop 1 database(s) and 1 role(s) of dead runs"), std::string::npos)
      << r.out;
  EXPECT_EQ(SpecDatabases(), 1) << "--dry-run drops nothing";
  EXPECT_EQ(GeneratedRoles(), 1) << "--dry-run drops nothing";
  r = RunProcess({kBin, "clean", "--dsn", TestConninfo()}, seconds(60));
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("dropped 1 database(s) and 1 role(s) of dead runs"), std::string::npos)
      << r.out;
  EXPECT_EQ(SpecDatabases(), 0) << r.out;
  EXPECT_EQ(GeneratedRoles(), 0) << "one clean drops the role too: " << r.out;
}

// A spec file runs on PostgreSQL only (docs/scenario-format.md): --engine mariadb|sqlite or a --dsn
// of another engine is a usage error, said before any server starts (the run folder base stays
// empty).
TEST(CliSpec, AnotherEngineIsAUsageErrorBeforeAnyServerStarts) {
  TempDir base;
  const std::map<std::string, std::string> env = {{"RACELAB_TMPDIR", base.path.string()}};
  for (const std::string engine : {"sqlite", "mariadb"}) {
    ProcessResult r =
        RunProcess({kBin, "run", kDiff + "locks.spec", "--engine", engine}, seconds(60), env);
    EXPECT_EQ(r.exit_code, 2) << engine << ": " << r.err << r.out;
    EXPECT_NE(r.err.find("--engine " + engine + ": a spec file runs on PostgreSQL only"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("starting embedded"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << "no transcript: " << r.out;
  }
  ProcessResult r = RunProcess(
      {kBin, "run", kDiff + "locks.spec", "--dsn", "sqlite:" + (base.path / "x.db").string()},
      seconds(60), env);
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_NE(r.err.find("--dsn names a SQLite server: a spec file runs on PostgreSQL only"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(base.path)) << "no server, no run folder";
  EXPECT_EQ(SpecDatabases(), 0);
}

// --permutation is checked before any server starts: one that names no permutation is exit 2 that
// lists them as the spec writes them (markers included), for run and convert alike; a permutation
// given as the spec writes it, markers and all, runs that one.
TEST(CliSpec, APermutationThatIsNotThereIsAUsageErrorBeforeAnyServerStarts) {
  TempDir base;
  const std::map<std::string, std::string> env = {{"RACELAB_TMPDIR", base.path.string()}};
  for (const std::string command : {"run", "convert"}) {
    ProcessResult r =
        RunProcess({kBin, command, kDiff + "locks.spec", "--permutation", "7"}, seconds(60), env);
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err << r.out;
    EXPECT_NE(
        r.err.find(
            "locks.spec: --permutation 7 names none of its 4 permutations; give a number from 1 to "
            "4, "
            "the permutation as the spec writes it (markers included) or its step names alone:\n"
            "  1: s1u s2u s1s s1c s2s s3l s3e\n"),
        std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("\n  3: s1u s2u(*) s1c s2s s3l s3e\n  4: s1u s2u s3l(s2u) s1c s2s s3e\n"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("starting embedded"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << r.out;
  }
  EXPECT_TRUE(std::filesystem::is_empty(base.path)) << "no server, no run folder";
  ProcessResult r =
      RunProcess({kBin, "run", kDiff + "locks.spec", "--dsn", TestConninfo(), "--allow-superuser",
                  "--permutation", "s1u s2u s3l(s2u) s1c s2s s3e"},
                 seconds(120));
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("starting permutation: s1u s2u s3l s1c s2s s3e\n"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("starting permutation:"), r.out.rfind("starting permutation:"))
      << "one permutation: " << r.out;
  EXPECT_EQ(SpecDatabases(), 0);
}

// A spec run writes no report files, so --out is refused rather than ignored; --expected compares a
// spec's transcript, so on a scenario run it is refused rather than ignored (both exit 2, nothing
// run).
TEST(CliSpec, OutOnASpecRunAndExpectedOnAScenarioRunAreUsageErrors) {
  TempDir base;
  const std::map<std::string, std::string> env = {{"RACELAB_TMPDIR", base.path.string()}};
  const std::string out = (base.path / "reports").string();
  ProcessResult r = RunProcess({kBin, "run", kDiff + "locks.spec", "--out", out}, seconds(60), env);
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_NE(r.err.find("--out: a spec file's run writes no report files"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "") << r.out;
  EXPECT_FALSE(std::filesystem::exists(out));
  r = RunProcess({kBin, "run", std::string(RACELAB_SOURCE_DIR) + "/scenarios/lock-hold-wait.yaml",
                  "--trials", "1", "--expected", kDiff + "locks.out", "--out", out},
                 seconds(120), env);
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_NE(r.err.find("--expected compares a spec file's transcript"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out)) << "no run, no reports";
  EXPECT_TRUE(std::filesystem::is_empty(base.path)) << "no server, no run folder";
}

// --step-timeout-ms and --wait-detail shape a spec file's run only; on a scenario run they were
// silently ignored (a 1 ms step timeout, a step blocked 1.3 s: exit 0). Each is now exit 2 naming
// the scenario's equivalent, before any server starts.
TEST(CliSpec, StepTimeoutAndWaitDetailOnAScenarioRunAreUsageErrors) {
  TempDir base;
  const std::map<std::string, std::string> env = {{"RACELAB_TMPDIR", base.path.string()}};
  const std::string out = (base.path / "reports").string();
  const std::string scenario = std::string(RACELAB_SOURCE_DIR) + "/scenarios/lock-hold-wait.yaml";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--step-timeout-ms", "1"}, "--step-timeout-ms bounds a spec file's steps"},
      {{"--wait-detail"}, "--wait-detail adds lock-wait lines to a spec file's transcript"},
  };
  for (const auto& [options, message] : cases) {
    std::vector<std::string> argv = {kBin,          "run", scenario, "--trials", "1",
                                     "--isolation", "rc",  "--out",  out};
    argv.insert(argv.end(), options.begin(), options.end());
    ProcessResult r = RunProcess(argv, seconds(120), env);
    EXPECT_EQ(r.exit_code, 2) << options[0] << ": " << r.err << r.out;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("starting embedded"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << "no run, no reports";
    EXPECT_TRUE(std::filesystem::is_empty(base.path)) << "no server, no run folder";
  }
}

}  // namespace
}  // namespace racelab::testing
