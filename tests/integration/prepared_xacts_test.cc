// PREPARE TRANSACTION in scenario SQL on a --dsn server that allows it (issue 20 item 7;
// harness/engines/postgresql/prepared_xacts.h). A prepared transaction outlives its session and
// keeps its locks: racelab rolls back the run's after each trial and at the end of the run, so the
// run ends cleanly with nothing left (no prepared transaction, schema or role); `racelab clean
// --dsn` rolls back those of a killed run before it drops its schema and role. The server is an
// embedded cluster this test starts with max_prepared_transactions = 10 (racelab's own embedded
// cluster allows none), and racelab connects to it with --dsn as a CREATEROLE admin, as a DBA would
// set it up.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "harness/engines/postgresql/cluster.h"
#include "tests/integration/subprocess.h"

namespace racelab::testing {
namespace {

using std::chrono::seconds;

const std::string kBin = RACELAB_BINARY;
const std::string kFixtures = std::string(RACELAB_SOURCE_DIR) + "/tests/fixtures/prepared/";

class PreparedXacts : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char tmpl[] = "/tmp/rlpx-XXXXXX";
    base_ = new std::filesystem::path(mkdtemp(tmpl));
    std::filesystem::permissions(*base_, std::filesystem::perms::all);
    pg::ClusterOptions co;
    co.base_dir = (*base_ / "c").string();
    co.settings = {{"max_prepared_transactions", "10"}};
    auto cluster = pg::EmbeddedCluster::Start(co);
    if (!cluster.ok()) {
      start_error_ = new std::string(cluster.status().message());
      return;
    }
    cluster_ = cluster.value().release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
    if (base_ != nullptr) std::filesystem::remove_all(*base_);
    delete base_;
    base_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(cluster_, nullptr) << (start_error_ ? *start_error_ : "");
    Query(
        "DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'px_admin') THEN "
        "CREATE ROLE px_admin LOGIN CREATEROLE; END IF; END$$");
    Query("GRANT CREATE ON DATABASE postgres TO px_admin");
  }

  // The first value `sql` returns as the cluster's superuser, or "ERROR: …".
  static std::string Query(const std::string& sql) {
    PGconn* c = PQconnectdb(cluster_->conninfo().c_str());
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
  static std::string Dsn() { return cluster_->conninfo() + " user=px_admin"; }
  static std::string Prepared() { return Query("SELECT count(*) FROM pg_prepared_xacts"); }
  static std::string Schemas() {
    return Query("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'racelab\\_%'");
  }
  static std::string Roles() {
    return Query("SELECT count(*) FROM pg_roles WHERE rolname LIKE 'racelab\\_role\\_%'");
  }

  static std::filesystem::path* base_;
  static pg::EmbeddedCluster* cluster_;
  static std::string* start_error_;
};

std::filesystem::path* PreparedXacts::base_ = nullptr;
pg::EmbeddedCluster* PreparedXacts::cluster_ = nullptr;
std::string* PreparedXacts::start_error_ = nullptr;

// Each trial prepares the same gid: it can only because the trial before's was rolled back after
// its final check (which still saw it). Before the fix trial 2 failed with 42710 (the gid in use)
// and the run ended with exit 2 after a lock wait, leaving the prepared transaction, the schema and
// the role.
TEST_F(PreparedXacts, ARunRollsBackWhatItsTrialsPreparedAndLeavesNothing) {
  ASSERT_EQ(Query("SHOW max_prepared_transactions"), "10");
  const auto start = std::chrono::steady_clock::now();
  ProcessResult r = RunProcess({kBin, "run", kFixtures + "prepare_transaction.yaml", "--trials",
                                "3", "--dsn", Dsn(), "--format", "console", "-q"},
                               seconds(120));
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_LT(took.count(), 20000) << "no lock wait on a prepared transaction";
  EXPECT_EQ(Prepared(), "0");
  EXPECT_EQ(Schemas(), "0");
  EXPECT_EQ(Roles(), "0");
}

// Under --no-confine the --dsn role prepares them; the run's are those holding locks in its
// schemas, and a prepared transaction of another client of that role is left alone.
TEST_F(PreparedXacts, UnconfinedRunRollsBackOnlyItsOwn) {
  Query("CREATE TABLE IF NOT EXISTS public.px_other (v int)");
  Query("GRANT ALL ON public.px_other TO px_admin");
  PGconn* c = PQconnectdb(Dsn().c_str());
  ASSERT_EQ(PQstatus(c), CONNECTION_OK);
  PQclear(PQexec(
      c, "BEGIN; INSERT INTO public.px_other VALUES (1); PREPARE TRANSACTION 'px-someone-elses'"));
  PQfinish(c);
  ASSERT_EQ(Prepared(), "1");
  ProcessResult r = RunProcess({kBin, "run", kFixtures + "prepare_transaction.yaml", "--trials",
                                "3", "--dsn", Dsn(), "--no-confine", "--format", "console", "-q"},
                               seconds(120));
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(Query("SELECT string_agg(gid, ',') FROM pg_prepared_xacts"), "px-someone-elses");
  EXPECT_EQ(Schemas(), "0");
  Query("ROLLBACK PREPARED 'px-someone-elses'");
}

// A run killed during its trial leaves its prepared transaction (holding a lock in its schema), the
// schema and the role. `racelab clean --dsn` rolls the transaction back first, then drops the rest.
TEST_F(PreparedXacts, CleanRollsBackTheTransactionsOfAKilledRun) {
  Subprocess p({kBin, "run", kFixtures + "prepare_then_sleep.yaml", "--trials", "1", "--dsn", Dsn(),
                "-q", "--format", "console"});
  for (int i = 0; i < 300 && Prepared() != "1"; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_EQ(Prepared(), "1") << "the run never prepared its transaction";
  p.Signal(SIGKILL);
  p.Wait(seconds(10));
  ASSERT_EQ(Schemas(), "1");
  ASSERT_EQ(Roles(), "1");
  // The killed run's connections go away asynchronously once their sockets close.
  const std::string backends =
      "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'racelab:%'";
  for (int i = 0; i < 100 && Query(backends) != "0"; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ProcessResult dry = RunProcess({kBin, "clean", "--dsn", Dsn(), "--dry-run"}, seconds(30));
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find(
                "would roll back prepared transaction racelab-test-killed of role racelab_role_"),
            std::string::npos)
      << dry.out;
  EXPECT_EQ(Prepared(), "1") << "--dry-run rolls back nothing";
  const auto start = std::chrono::steady_clock::now();
  ProcessResult r = RunProcess({kBin, "clean", "--dsn", Dsn()}, seconds(60));
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(
      r.out.find("rolled back prepared transaction racelab-test-killed of role racelab_role_"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("after rolling back 1 prepared transaction(s)"), std::string::npos) << r.out;
  EXPECT_LT(took.count(), 10000) << "no lock wait: " << r.out;
  EXPECT_EQ(Prepared(), "0");
  EXPECT_EQ(Schemas(), "0") << r.out;
  EXPECT_EQ(Roles(), "0") << r.out;
}

}  // namespace
}  // namespace racelab::testing
