// The racelab binary as a user runs it: exit codes (README), error messages, reports,
// and that nothing is left behind — no schema, no postgres process, no cluster folder — after a run
// and after SIGINT mid-run. Runs against the test server (--dsn) or racelab's own embedded cluster.
// The test server's role is a superuser: runs against it pass --allow-superuser
// (confinement_test.cc covers the refusal and a CREATEROLE role).
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "harness/engines/postgresql/cluster.h"
#include "tests/integration/leftovers.h"
#include "tests/integration/pg_test_env.h"
#include "tests/integration/subprocess.h"
#include "tests/integration/test_files.h"

namespace racelab::testing {
namespace {

using pg::ClusterOptions;
using pg::EmbeddedCluster;

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::seconds;

const std::string kBin = RACELAB_BINARY;
const std::string kSrc = RACELAB_SOURCE_DIR;

int CountRows(const std::string& sql) {
  PGconn* c = PQconnectdb(TestConninfo().c_str());
  PGresult* r = PQexec(c, sql.c_str());
  int n = PQresultStatus(r) == PGRES_TUPLES_OK ? std::atoi(PQgetvalue(r, 0, 0)) : -1;
  PQclear(r);
  PQfinish(c);
  return n;
}

int RacelabSchemas() {
  return CountRows("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'racelab\\_%'");
}

// Postgres processes whose command line mentions `dir`.
int PostgresUnder(const fs::path& dir) { return ProcessesUnder(dir, "postgres"); }

TEST(Cli, HelpTeachesAndExitsZero) {
  ProcessResult r = RunProcess({kBin, "--help"}, seconds(10));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("Exit codes"), std::string::npos) << r.out;
  r = RunProcess({kBin, "run", "--help"}, seconds(10));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--isolation"), std::string::npos);
}

TEST(Cli, ListAndExplainNeedNoDatabase) {
  ProcessResult r = RunProcess({kBin, "list"}, seconds(10), {{"PGHOST", "/nonexistent"}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* name :
       {"naive-select-then-update", "guarded-cas-claim", "lock-hold-wait", "skip-locked-pull"}) {
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
  }
  r = RunProcess({kBin, "explain", "lock-hold-wait"}, seconds(10));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("await_blocked"), std::string::npos) << r.out;
  r = RunProcess({kBin, "explain", "no-such-scenario"}, seconds(10));
  EXPECT_EQ(r.exit_code, 2);
}

// A folder's PostgreSQL isolation spec files are listed beside its scenarios (racelab run takes
// them by path): file name, engine, and how many permutations a run of each runs (its permutation
// lines, else every interleaving); a folder of spec files only is listed too. --tag leaves them out
// (no tags), and a spec file that does not parse is exit 2 naming file, line and column.
TEST(Cli, ListShowsSpecFilesWithTheirPermutations) {
  TempDir dir;
  fs::copy_file(kSrc + "/scenarios/guarded-cas-claim.yaml", dir.path / "guarded-cas-claim.yaml");
  fs::copy_file(kSrc + "/tests/fixtures/spec/diff/locks.spec",
                dir.path / "locks.spec");  // 4 permutation lines
  fs::copy_file(kSrc + "/tests/fixtures/spec/interleavings.spec",
                dir.path / "interleavings.spec");  // none: 3
  const std::string folder = dir.path.string();
  ProcessResult r =
      RunProcess({kBin, "list", "--scenarios", folder}, seconds(10), {{"PGHOST", "/nonexistent"}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("guarded-cas-claim "), std::string::npos) << r.out;
  std::smatch m;
  EXPECT_TRUE(std::regex_search(
      r.out, m,
      std::regex(
          R"(\ninterleavings\.spec +- +postgresql +PostgreSQL isolation spec file, 3 permutation\(s\)\n)")))
      << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out, m,
      std::regex(
          R"(\nlocks\.spec +- +postgresql +PostgreSQL isolation spec file, 4 permutation\(s\)\n)")))
      << r.out;
  EXPECT_NE(r.out.find("1 scenario(s) in " + folder +
                       "\n2 spec file(s): run one by its path (racelab run " + folder +
                       "/interleavings.spec)\n"),
            std::string::npos)
      << r.out;
  r = RunProcess({kBin, "list", "--scenarios", folder, "--tag", "claim"}, seconds(10));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("guarded-cas-claim "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(".spec"), std::string::npos) << "a spec file has no tags: " << r.out;
  r = RunProcess({kBin, "list", "--scenarios", kSrc + "/tests/fixtures/spec/diff"}, seconds(10));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0 scenario(s) in"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("4 spec file(s)"), std::string::npos) << r.out;
  std::ofstream(dir.path / "broken.spec") << "session s\nstep a { SELECT 1; }\npermutation b\n";
  r = RunProcess({kBin, "list", "--scenarios", folder}, seconds(10));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find(folder + "/broken.spec:3:"), std::string::npos) << r.err;
}

// Per level exactly the checks that run there: a list cleared at one level is not shown there, and
// a level left with nothing to check is a load error with file and line.
TEST(Cli, ExplainShowsTheChecksOfEachLevel) {
  ProcessResult r =
      RunProcess({kBin, "explain", kSrc + "/tests/fixtures/explain_override.yaml"}, seconds(10));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Checked in every trial (with workers = 2):\n"
                       "  at read committed:\n"
                       "    sessions whose claim returned 0 rows = 1\n"
                       "  at repeatable read:\n"
                       "    sessions whose claim returned 0 rows = 1\n"
                       "  at serializable:\n"
                       "    winners = 1\n"
                       "    SQLSTATE 40001 count = 1\n"
                       "    no other SQLSTATE\n"),
            std::string::npos)
      << r.out;
  std::string bad = kSrc + "/tests/fixtures/bad/level_without_check.yaml";
  r = RunProcess({kBin, "explain", bad}, seconds(10));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(
      r.err.find(bad + ":21:5: expect.at.serializable: leaves nothing to check at serializable"),
      std::string::npos)
      << r.err;
}

TEST(Cli, WrongExpectationExitsOneWithJUnitFailure) {
  TempDir out;
  ProcessResult r =
      RunProcess({kBin, "run", kSrc + "/tests/fixtures/wrong_expectation.yaml", "--trials", "5",
                  "--dsn", TestConninfo(), "--allow-superuser", "--out", out.path.string(), "-q"},
                 seconds(120));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  std::string junit = Slurp(out.path / "racelab.junit.xml");
  EXPECT_NE(junit.find("<failure"), std::string::npos) << junit;
  EXPECT_NE(junit.find("winners = 2"), std::string::npos) << junit;
  EXPECT_TRUE(fs::exists(out.path / "racelab.json"));
  EXPECT_EQ(RacelabSchemas(), 0) << "racelab must drop the schemas it creates";
}

struct BadFile {
  const char* file;
  const char* needle;  // the field path or word the message must name
};

void PrintTo(const BadFile& f, std::ostream* os) { *os << f.file; }

class MalformedScenario : public ::testing::TestWithParam<BadFile> {};

TEST_P(MalformedScenario, ExitsTwoNamingFileLineAndField) {
  std::string path = kSrc + "/tests/fixtures/bad/" + GetParam().file;
  ProcessResult r =
      RunProcess({kBin, "run", path, "--dsn", "host=/nonexistent", "-q"}, seconds(10));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(path + ":"), std::string::npos) << "names the file and line: " << r.err;
  EXPECT_NE(r.err.find(GetParam().needle), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, MalformedScenario,
    ::testing::Values(BadFile{"bad_yaml.yaml", "invalid YAML"}, BadFile{"unknown_key.yaml", "cont"},
                      BadFile{"unknown_step.yaml", "steps["},
                      BadFile{"missing_barrier_partner.yaml", "barrier"},
                      BadFile{"bad_param.yaml", "run_id"},
                      BadFile{"level_without_check.yaml", "expect.at.serializable"}),
    [](const ::testing::TestParamInfo<BadFile>& info) {
      std::string name = fs::path(info.param.file).stem().string();
      return name;
    });

TEST(Cli, ScenarioSqlErrorExitsTwoWithTheServerMessage) {
  TempDir out;
  ProcessResult r = RunProcess(
      {kBin, "run", kSrc + "/tests/fixtures/bad_sql.yaml", "--trials", "2", "--dsn", TestConninfo(),
       "--allow-superuser", "--out", out.path.string(), "--format", "console,junit"},
      seconds(60));
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_NE(r.out.find("syntax error at or near \"SELEC\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("error"), std::string::npos) << "verdict error, not fail: " << r.out;
  EXPECT_EQ(RacelabSchemas(), 0);
}

// SQLSTATE class 25 where the scenario put a statement in the wrong place (25001: VACUUM inside
// setup's transaction block) is the scenario's fault: exit 2 with the server's message, not 3.
TEST(Cli, TransactionStateErrorInSetupExitsTwo) {
  ProcessResult r =
      RunProcess({kBin, "run", kSrc + "/tests/fixtures/setup_outside_transaction.yaml", "--trials",
                  "1", "--format", "console", "-q"},
                 seconds(60));
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_NE((r.out + r.err).find("VACUUM cannot run inside a transaction block (SQLSTATE 25001)"),
            std::string::npos)
      << r.out << r.err;
}

TEST(Cli, UnwritableOutOrNoFormatIsAUsageErrorBeforeAnyTrial) {
  ProcessResult r = RunProcess({kBin, "run", "guarded-cas-claim", "--out",
                                "/proc/racelab-forbidden", "--dsn", "host=/nonexistent"},
                               seconds(10));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--out"), std::string::npos) << r.err;
  r = RunProcess({kBin, "run", "guarded-cas-claim", "--format", "", "--dsn", "host=/nonexistent"},
                 seconds(10));
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

TEST(Cli, BadParameterOverrideExitsTwo) {
  ProcessResult r =
      RunProcess({kBin, "run", "guarded-cas-claim", "--set", "workers=abc", "-q"}, seconds(10));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = RunProcess({kBin, "run", "guarded-cas-claim", "--set", "nosuch=1", "-q"}, seconds(10));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = RunProcess({kBin, "run", "guarded-cas-claim", "--isolation", "snapshot", "-q"}, seconds(10));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = RunProcess({kBin, "run", "guarded-cas-claim", "--format", "pdf", "-q"}, seconds(10));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("junit"), std::string::npos) << "lists the valid formats: " << r.err;
  r = RunProcess({kBin, "run", "guarded-cas-claim", "--format", "transcript", "-q"}, seconds(10));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("is for an isolationtester spec file"), std::string::npos) << r.err;
}

TEST(Cli, OutOfRangeSeedOrEmptyIsolationIsAUsageError) {
  for (const char* seed : {"-1", "18446744073709551616", "12abc", ""}) {
    ProcessResult r =
        RunProcess({kBin, "run", "guarded-cas-claim", "--seed", seed, "-q"}, seconds(10));
    EXPECT_EQ(r.exit_code, 2) << seed << ": " << r.err;
    EXPECT_NE(r.err.find("--seed"), std::string::npos) << r.err;
  }
  for (const char* levels : {"", " ", ","}) {
    ProcessResult r =
        RunProcess({kBin, "run", "guarded-cas-claim", "--isolation", levels, "-q"}, seconds(10));
    EXPECT_EQ(r.exit_code, 2) << "'" << levels << "': " << r.err;
    EXPECT_NE(r.err.find("--isolation: no level given"), std::string::npos) << r.err;
  }
}

TEST(Cli, AFolderIsNotAReportOrAnEmptyCatalogue) {
  TempDir dir;
  ProcessResult r = RunProcess({kBin, "explain", dir.path.string()}, seconds(10));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("no scenario file"), std::string::npos) << r.err;
  r = RunProcess({kBin, "compare", dir.path.string(), dir.path.string()}, seconds(10));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("a folder, not a report file"), std::string::npos) << r.err;
}

TEST(Cli, UnreachableDsnExitsThreeQuicklyWithoutThePassword) {
  ProcessResult r = RunProcess({kBin, "run", "guarded-cas-claim", "--dsn",
                                "postgresql://racelab:s3cr3t-pw@127.0.0.1:1/nodb", "-q"},
                               seconds(30));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_LT(r.elapsed_ms, 10000);
  EXPECT_EQ(r.err.find("s3cr3t-pw"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("s3cr3t-pw"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("127.0.0.1"), std::string::npos) << "says what failed: " << r.err;
  r = RunProcess({kBin, "run", "guarded-cas-claim", "--dsn",
                  "host=localhost password=s3cr3t-pw bogus=1", "-q"},
                 seconds(30));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.find("s3cr3t-pw"), std::string::npos) << r.err;
}

// An empty --dsn (an unset CI variable: --dsn "$DATABASE_URL") is a usage error, not a quiet run on
// a throwaway server; nothing is written.
TEST(Cli, EmptyDsnIsAUsageError) {
  TempDir out;
  for (std::vector<std::string> argv : std::vector<std::vector<std::string>>{
           {kBin, "run", "guarded-cas-claim", "--dsn", ""},
           {kBin, "run", "x.spec", "--dsn", ""},
           {kBin, "run", "--dsn=", "--tag", "locks"},  // not the DSN "--tag"
           {kBin, "clean", "--dsn", ""}}) {
    if (argv[1] == "run") argv.insert(argv.end(), {"--out", (out.path / "r").string()});
    ProcessResult r = RunProcess(argv, seconds(10));
    EXPECT_EQ(r.exit_code, 2) << argv[2] << " " << argv[3] << ": " << r.err;
    EXPECT_NE(r.err.find("--dsn: the connection string is empty"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(out.path / "r"));
}

// libpq's PG* variables name a server, but without --dsn the run is on the embedded one: one line
// on stderr says so (with -q too), and the run is not disturbed by them. --dsn postgresql:// takes
// the server from them.
TEST(Cli, PgVariablesWithoutDsnAreNamedAndDsnPostgresqlUsesThem) {
  TempDir out;
  ProcessResult r = RunProcess({kBin, "run", "guarded-cas-claim", "--isolation", "rc", "--trials",
                                "1", "-q", "--format", "json", "--out", out.path.string()},
                               seconds(240), {{"PGHOST", "db.invalid"}, {"PGDATABASE", "app"}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.err.find(
          "racelab: PGHOST, PGDATABASE are set but no --dsn was given: this run uses a throwaway "
          "embedded PostgreSQL, not the server they name (to run there: --dsn postgresql://"),
      std::string::npos)
      << r.err;
  EXPECT_NE(Slurp(out.path / "racelab.json").find("\"embedded\": true"), std::string::npos);

  // The test server's conninfo as PG* variables.
  std::map<std::string, std::string> env;
  PQconninfoOption* opts = PQconninfoParse(TestConninfo().c_str(), nullptr);
  ASSERT_NE(opts, nullptr);
  const std::map<std::string, std::string> names = {{"host", "PGHOST"},
                                                    {"port", "PGPORT"},
                                                    {"dbname", "PGDATABASE"},
                                                    {"user", "PGUSER"},
                                                    {"password", "PGPASSWORD"}};
  for (PQconninfoOption* o = opts; o->keyword != nullptr; ++o) {
    if (o->val != nullptr && names.count(o->keyword)) env[names.at(o->keyword)] = o->val;
  }
  PQconninfoFree(opts);
  r = RunProcess(
      {kBin, "run", "guarded-cas-claim", "--isolation", "rc", "--trials", "1", "-q", "--dsn",
       "postgresql://", "--allow-superuser", "--format", "json", "--out", out.path.string()},
      seconds(120), env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("throwaway embedded"), std::string::npos) << r.err;
  EXPECT_NE(Slurp(out.path / "racelab.json").find("\"embedded\": false"), std::string::npos);
}

TEST(Cli, EmbeddedRunPassesAndLeavesNothingBehind) {
  TempDir base, out;
  ProcessResult r =
      RunProcess({kBin, "run", "guarded-cas-claim", "--trials", "3", "--out", out.path.string()},
                 seconds(240), {{"RACELAB_TMPDIR", base.path.string()}});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("guarded-cas-claim"), std::string::npos) << "console summary: " << r.out;
  EXPECT_TRUE(fs::exists(out.path / "racelab.md"));
  EXPECT_EQ(PostgresUnder(base.path), 0);
  EXPECT_EQ(RunDirsUnder(base.path), 0);
}

TEST(Cli, SigintMidRunStopsCleanly) {
  TempDir base, out;
  Subprocess p({kBin, "run", "lock-hold-wait", "--set", "hold_ms=2000", "--trials", "20", "--out",
                out.path.string()},
               {{"RACELAB_TMPDIR", base.path.string()}});
  ASSERT_TRUE(p.WaitForStderr("lock-hold-wait @ read committed: 20 trials", seconds(120)))
      << "the run never started";
  EXPECT_GE(PostgresUnder(base.path), 1) << "the embedded cluster runs during the trial";
  p.Signal(SIGINT);
  ProcessResult r = p.Wait(seconds(60));
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_EQ(PostgresUnder(base.path), 0) << "no postgres process left";
  EXPECT_EQ(RunDirsUnder(base.path), 0) << "no cluster folder left";
}

TEST(Cli, OrphanOfAKilledRunIsCleanedByTheNextRun) {
  TempDir base, out;
  {
    Subprocess p({kBin, "run", "lock-hold-wait", "--set", "hold_ms=2000", "--trials", "20", "--out",
                  out.path.string()},
                 {{"RACELAB_TMPDIR", base.path.string()}});
    ASSERT_TRUE(p.WaitForStderr("@ read committed: 20 trials", seconds(120)));
    p.Signal(SIGKILL);  // no chance to clean up
    p.Wait(seconds(30));
  }
  // The postmaster dies with racelab (parent-death signal); its folder stays until the next run.
  for (int i = 0; i < 100 && PostgresUnder(base.path) > 0; ++i) usleep(100 * 1000);
  EXPECT_EQ(PostgresUnder(base.path), 0);
  EXPECT_EQ(RunDirsUnder(base.path), 1) << "the killed run's folder is the orphan";
  // clean --dry-run names it and keeps it.
  ProcessResult dry = RunProcess({kBin, "clean", "--dry-run"}, seconds(60),
                                 {{"RACELAB_TMPDIR", base.path.string()}});
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("would remove PostgreSQL cluster " + base.path.string()),
            std::string::npos)
      << dry.out;
  EXPECT_NE(dry.out.find("1 run folder(s) of dead embedded-server runs found"), std::string::npos)
      << dry.out;
  EXPECT_EQ(RunDirsUnder(base.path), 1) << "--dry-run removes nothing";
  ProcessResult r = RunProcess({kBin, "run", "guarded-cas-claim", "--isolation", "rc", "--trials",
                                "2", "-q", "--format", "console"},
                               seconds(120), {{"RACELAB_TMPDIR", base.path.string()}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(RunDirsUnder(base.path), 0) << "the next run removed the orphan";
}

// The initdb template of an earlier racelab (template-<major>, 16 MB WAL segments) is never used
// again: clean --dry-run names it, clean removes it. This version's (template-<major>-wal1) is kept
// in racelab's own base folders, but under RACELAB_TMPDIR it goes too.
TEST(Cli, CleanRemovesEarlierVersionsTemplatesAndThoseUnderRacelabTmpdir) {
  TempDir base;
  const fs::path dir = base.path / ("racelab-" + std::to_string(getuid()));
  fs::create_directories(dir / "template-15");
  fs::create_directories(dir / "template-15-wal1");
  std::ofstream(dir / "template-15" / "PG_VERSION") << "15\n";
  ProcessResult dry = RunProcess({kBin, "clean", "--dry-run"}, seconds(60),
                                 {{"RACELAB_TMPDIR", base.path.string()}});
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("would remove PostgreSQL template of an earlier racelab " +
                         (dir / "template-15").string() + "\n"),
            std::string::npos)
      << dry.out;
  // This version's template under RACELAB_TMPDIR is listed too (a folder the user chose: clean
  // leaves it as before racelab ran; SqliteCli.CleanListsAndRemovesTheTemplateUnderRacelabTmpdir).
  EXPECT_NE(dry.out.find("2 unused template(s) found"), std::string::npos) << dry.out;
  EXPECT_TRUE(fs::exists(dir / "template-15")) << "--dry-run removes nothing";
  ProcessResult r =
      RunProcess({kBin, "clean"}, seconds(60), {{"RACELAB_TMPDIR", base.path.string()}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("removed 2 unused template(s)"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir / "template-15"));
}

TEST(Cli, CleanDropsTheSchemaOfARunKilledWithSigkill) {
  TempDir out;
  {
    Subprocess p({kBin, "run", "lock-hold-wait", "--set", "hold_ms=2000", "--trials", "20", "--dsn",
                  TestConninfo(), "--allow-superuser", "--out", out.path.string(), "-q"});
    for (int i = 0; i < 300 && RacelabSchemas() < 1; ++i) usleep(100 * 1000);
    ASSERT_EQ(RacelabSchemas(), 1) << "the run never created its schema";
    p.Signal(SIGKILL);  // no chance to drop it
    p.Wait(seconds(30));
  }
  EXPECT_EQ(RacelabSchemas(), 1) << "a SIGKILLed run leaves its schema";
  ProcessResult r = RunProcess({kBin, "clean", "--dsn", TestConninfo(), "--dry-run"}, seconds(30));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("would drop schema racelab_"), std::string::npos) << r.out;
  EXPECT_EQ(RacelabSchemas(), 1) << "--dry-run drops nothing";
  r = RunProcess({kBin, "clean", "--dsn", TestConninfo()}, seconds(30));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(RacelabSchemas(), 0) << r.out;
}

TEST(Cli, SigintMidRunAgainstDsnDropsItsSchema) {
  TempDir out;
  Subprocess p({kBin, "run", "lock-hold-wait", "--set", "hold_ms=2000", "--trials", "20", "--dsn",
                TestConninfo(), "--allow-superuser", "--out", out.path.string()});
  ASSERT_TRUE(p.WaitForStderr("@ read committed: 20 trials", seconds(60)));
  // Wait until the trial's schema exists, so the signal lands mid-trial.
  for (int i = 0; i < 300 && RacelabSchemas() < 1; ++i) usleep(100 * 1000);
  ASSERT_EQ(RacelabSchemas(), 1) << "the run never created its schema";
  p.Signal(SIGINT);
  ProcessResult r = p.Wait(seconds(60));
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_EQ(RacelabSchemas(), 0) << "racelab must drop its schema when interrupted";
}

TEST(Cli, HungStatementIsCancelledAtItsDeadlineAndReported) {
  TempDir out;
  // b waits on a's lock for hold_ms = 5000, but a statement may wait only 300 ms.
  ProcessResult r =
      RunProcess({kBin, "run", "lock-hold-wait", "--set", "hold_ms=5000", "--isolation", "rc",
                  "--trials", "1", "--statement-timeout-ms", "300", "--dsn", TestConninfo(),
                  "--allow-superuser", "--out", out.path.string(), "--format", "console,json"},
                 seconds(60));
  EXPECT_EQ(r.exit_code, 3) << r.err << r.out;
  EXPECT_NE(r.out.find("error"), std::string::npos) << r.out;
  std::string json = Slurp(out.path / "racelab.json");
  EXPECT_NE(json.find("\"cancelled_by_deadline\": true"), std::string::npos)
      << json.substr(0, 4000);
  EXPECT_NE(json.find("passed its deadline"), std::string::npos);
  EXPECT_EQ(RacelabSchemas(), 0);
}

// --isolation chooses among a scenario's own levels: naive-select-then-update-retry lists only
// repeatable read, so `--isolation rc` skips it with a note instead of reporting a false `fail`.
TEST(Cli, IsolationSkipsAScenarioThatDoesNotListTheLevel) {
  ProcessResult r = RunProcess({kBin, "run", "naive-select-then-update-retry", "guarded-cas-claim",
                                "--isolation", "rc", "--trials", "1", "--format", "console"},
                               seconds(120));
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.err.find("naive-select-then-update-retry skipped: it runs only at repeatable read"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("naive-select-then-update-retry"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 result: 1 pass"), std::string::npos) << r.out;
  ProcessResult alone = RunProcess(
      {kBin, "run", "naive-select-then-update-retry", "--isolation", "rc", "--trials", "1"},
      seconds(60));
  EXPECT_EQ(alone.exit_code, 2) << alone.err;
  EXPECT_NE(
      alone.err.find("no selected scenario runs on postgresql at the levels --isolation asks for"),
      std::string::npos)
      << alone.err;
}

TEST(Cli, TrialPastItsDeadlineIsAnErrorNotAHang) {
  ProcessResult r = RunProcess({kBin, "run", kSrc + "/tests/fixtures/trial_past_deadline.yaml",
                                "--trials", "2", "--trial-timeout-ms", "1000", "--dsn",
                                TestConninfo(), "--allow-superuser", "-q", "--format", "console"},
                               seconds(60));
  EXPECT_EQ(r.exit_code, 3) << r.err << r.out;
  EXPECT_LT(r.elapsed_ms, 30000) << "the trial deadline ends the hold early";
  EXPECT_NE(r.out.find("deadline"), std::string::npos) << r.out;
  EXPECT_EQ(RacelabSchemas(), 0);
}

TEST(Cli, ServerGoneMidRunIsRecordedAndTheRunEnds) {
  TempDir base, out;
  ClusterOptions co;
  co.base_dir = (base.path / "c").string();
  auto cluster = EmbeddedCluster::Start(co);
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  Subprocess p({kBin, "run", "lock-hold-wait", "--set", "hold_ms=500", "--trials", "20", "--dsn",
                (*cluster)->conninfo(), "--allow-superuser", "--out", out.path.string(), "--format",
                "console,json"});
  ASSERT_TRUE(p.WaitForStderr("@ read committed: 20 trials", seconds(60)));
  ASSERT_TRUE((*cluster)->Stop().ok());
  ProcessResult r = p.Wait(seconds(60));
  EXPECT_FALSE(r.timed_out) << "racelab must not hang when its server goes away";
  EXPECT_EQ(r.exit_code, 3) << r.err << r.out;
  EXPECT_TRUE(fs::exists(out.path / "racelab.json")) << "reports of what ran are still written";
  EXPECT_NE(r.out.find("error"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace racelab::testing
