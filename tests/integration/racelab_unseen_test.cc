// Scenario SQL does not see racelab's own machinery in pg_locks (issue 20 item 8;
// harness/engines/postgresql/run_lock.h): a scenario that checks "no advisory lock is left" judges
// only its own locks. The fixture pair is a real advisory-lock leak
// (tests/fixtures/advisory_leak/): the buggy claim unlocks only on its success path and must fail;
// its fix (a transaction-level lock) must pass in every trial — it failed in every one while
// racelab's run lock was an advisory lock.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <chrono>
#include <string>
#include <thread>

#include "tests/integration/pg_test_env.h"
#include "tests/integration/scenario_runner.h"
#include "tests/integration/subprocess.h"

namespace racelab::testing {
namespace {

using std::chrono::seconds;

constexpr int kTrials = 5;
const std::string kBin = RACELAB_BINARY;

std::string Fixture(const std::string& file) {
  return std::string(RACELAB_SOURCE_DIR) + "/tests/fixtures/advisory_leak/" + file;
}

TEST(RacelabUnseen, TheFixedAdvisoryLockClaimPassesEveryTrial) {
  ScenarioRun run = RunScenario(Fixture("fixed.yaml"), kTrials, {}, {kRc});
  ExpectAllPass(run, kTrials, 1);
}

TEST(RacelabUnseen, TheLeakingClaimFailsOnItsLeakedLock) {
  ScenarioRun run = RunScenario(Fixture("leak.yaml"), kTrials, {}, {kRc});
  ASSERT_TRUE(run.error.empty()) << run.error;
  ASSERT_EQ(run.results.size(), 1u);
  EXPECT_EQ(run.results[0].verdict, Verdict::kFail) << Failures(run.results[0]);
  EXPECT_NE(
      Failures(run.results[0]).find("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"),
      std::string::npos)
      << Failures(run.results[0]);
}

// The same through `racelab run` on its own embedded cluster: confinement, the run lock, the
// control, monitor and checker connections all in place.
TEST(RacelabUnseen, TheFixedClaimPassesOnRacelabsOwnCluster) {
  ProcessResult r =
      RunProcess({kBin, "run", Fixture("fixed.yaml"), "--trials", "3", "--format", "console", "-q"},
                 seconds(120));
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
}

// A run of an earlier racelab version proves itself alive by holding pg_advisory_lock_shared(<run
// id>) instead: `racelab clean` still keeps its schema while it holds it (read from pg_locks, no
// lock taken), and drops it once the lock is gone.
TEST(RacelabUnseen, CleanStillKeepsTheSchemaOfAnOlderVersionsLiveRun) {
  const std::string schema = "racelab_1_00000000000000ab_1";  // run id 0xab: lock key 171
  PGconn* admin = PQconnectdb(TestConninfo().c_str());
  ASSERT_EQ(PQstatus(admin), CONNECTION_OK);
  PQclear(PQexec(admin, ("CREATE SCHEMA " + schema).c_str()));
  PGconn* old_run = PQconnectdb(TestConninfo().c_str());
  PQclear(PQexec(old_run, "SELECT pg_advisory_lock_shared(171)"));
  ProcessResult live =
      RunProcess({kBin, "clean", "--dsn", TestConninfo(), "--dry-run"}, seconds(30));
  EXPECT_EQ(live.exit_code, 0) << live.err;
  EXPECT_NE(live.out.find("kept schema " + schema + ": its run is still connected"),
            std::string::npos)
      << live.out;
  PQfinish(old_run);
  for (int i = 0; i < 100; ++i) {  // its backend exits asynchronously
    PGresult* held =
        PQexec(admin, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 171");
    const bool gone = std::string(PQgetvalue(held, 0, 0)) == "0";
    PQclear(held);
    if (gone) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ProcessResult r = RunProcess({kBin, "clean", "--dsn", TestConninfo()}, seconds(30));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("dropped schema " + schema), std::string::npos) << r.out;
  PGresult* left =
      PQexec(admin, ("SELECT count(*) FROM pg_namespace WHERE nspname = '" + schema + "'").c_str());
  EXPECT_STREQ(PQgetvalue(left, 0, 0), "0");
  PQclear(left);
  PQfinish(admin);
}

}  // namespace
}  // namespace racelab::testing
