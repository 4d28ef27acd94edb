// `racelab bench` end to end on real servers (docs/bench.md): the naive SELECT-then-UPDATE claim
// double-claims at read committed once its barriers are gone and the bench says so (exit 1, the
// invariant FAILED in the table and the JSON), the guarded compare-and-swap never does, and the
// JSON carries the documented fields. PostgreSQL embedded (the racelab binary starts its own),
// SQLite.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/integration/subprocess.h"
#include "tests/integration/test_files.h"

namespace racelab::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using std::chrono::seconds;
const std::string kBin = RACELAB_BINARY;

const json* Cell(const json& report, const std::string& scenario) {
  for (const json& c : report.at("cells")) {
    if (c.at("scenario") == scenario) return &c;
  }
  return nullptr;
}

TEST(BenchCli, TheNaiveClaimDoubleClaimsAndTheGuardedOneDoesNotOnPostgresql) {
  TempDir out;
  ProcessResult r =
      RunProcess({kBin, "bench", "naive-select-then-update", "guarded-cas-claim", "--isolation",
                  "rc", "--clients", "2", "--closed", "--duration", "0.6", "--warmup", "0.1",
                  "--repeats", "2", "--out", out.path.string()},
                 seconds(120));
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;  // a double claim fails the benchmark
  EXPECT_NE(r.out.find("FAILED: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dropped: barriers decided, updated; await_blocked"), std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("repeat 2/2"), std::string::npos) << "progress on stderr: " << r.err;
  const json report = json::parse(Slurp(out.path / "bench.json"));
  EXPECT_EQ(report.at("schema"), "racelab-bench/1");
  EXPECT_EQ(report.at("workload").at("loop"), "closed");
  EXPECT_GE(report.at("machine").at("cores").get<int>(), 1);
  EXPECT_EQ(report.at("machine").at("load_before").size(), 3u);
  EXPECT_EQ(report.at("machine").at("load_after").size(), 3u);
  const json& target = report.at("targets").at(0);
  EXPECT_EQ(target.at("engine"), "postgresql");
  EXPECT_FALSE(target.at("server_version").get<std::string>().empty());
  for (const char* s : {"fsync", "synchronous_commit", "shared_buffers"})
    EXPECT_TRUE(target.at("settings").contains(s)) << s;

  const json* naive = Cell(report, "naive-select-then-update");
  const json* guarded = Cell(report, "guarded-cas-claim");
  ASSERT_TRUE(naive != nullptr && guarded != nullptr) << report.dump(2);
  EXPECT_EQ(naive->at("invariant").at("verdict"), "FAILED");
  EXPECT_GT(naive->at("invariant").at("double_claims").get<int>(), 0);
  // The server's count agrees with the clients': attempts = 2 after every double-claimed round.
  const json& attempts = naive->at("final_values").at("SELECT attempts FROM runs WHERE id = 1");
  EXPECT_EQ(attempts.value("2", 0), naive->at("invariant").at("rounds_double_claimed").get<int>())
      << attempts.dump();
  EXPECT_EQ(guarded->at("final_values").at("SELECT attempts FROM runs WHERE id = 1").size(), 1u)
      << "always 1";
  EXPECT_EQ(guarded->at("invariant").at("verdict"), "held");
  EXPECT_EQ(guarded->at("invariant").at("double_claims"), 0);
  for (const json* c : {naive, guarded}) {
    EXPECT_EQ(c->at("isolation"), "read committed");
    EXPECT_EQ(c->at("clients"), 2);
    EXPECT_EQ(c->at("repeats"), 2);
    EXPECT_EQ(c->at("rounds_error"), 0) << c->at("error");
    EXPECT_GT(c->at("committed").get<int>(), 0);
    EXPECT_GT(c->at("committed_per_s").at("mean").get<double>(), 0);
    EXPECT_TRUE(c->at("committed_per_s").at("ci95").is_number());
    for (const char* p : {"p50", "p90", "p99", "p99.9", "max"})
      EXPECT_GT(c->at("latency_us").at(p).at("mean").get<double>(), 0) << p;
    EXPECT_TRUE(c->contains("retries") && c->at("retries").contains("by_attempt"));
    EXPECT_TRUE(c->contains("lock_waits"));
  }
  // The guarded claim: one winner per round, and every client's transaction committed.
  EXPECT_EQ(guarded->at("won").get<int>(), guarded->at("rounds").get<int>());
}

// Ctrl-C mid-repeat: the run ends within seconds, exit 130, bench.json written with the cell's
// reason, and (the embedded server being racelab's) no server process left.
TEST(BenchCli, SigintEndsARunCleanlyAndWritesWhatItHas) {
  TempDir out;
  Subprocess p({kBin, "bench", "guarded-cas-claim", "--isolation", "rc", "--clients", "2",
                "--closed", "--duration", "600", "--warmup", "0", "--repeats", "1", "--out",
                out.path.string()});
  ASSERT_TRUE(p.WaitForStderr("repeat 1/1 …", std::chrono::milliseconds(60000)));
  p.Signal(SIGINT);
  ProcessResult r = p.Wait(std::chrono::milliseconds(20000));
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_LT(r.elapsed_ms, 60000);
  const json report = json::parse(Slurp(out.path / "bench.json"));
  const json* c = Cell(report, "guarded-cas-claim");
  ASSERT_NE(c, nullptr) << report.dump(2);
  EXPECT_EQ(c->at("error"), "interrupted during repeat 1 of 1: that repeat is not counted");
}

// A SQLite round makes a new database file and runs setup (~100 ms here): a low rate keeps it
// short.
TEST(BenchCli, OnSqliteTheGuardedClaimHoldsInAnOpenLoop) {
  TempDir base, out;
  ProcessResult r = RunProcess({kBin,
                                "bench",
                                "sqlite-guarded-cas-claim",
                                "--engine",
                                "sqlite",
                                "--clients",
                                "2",
                                "--rate",
                                "20",
                                "--duration",
                                "0.4",
                                "--warmup",
                                "0",
                                "--repeats",
                                "1",
                                "--format",
                                "json",
                                "--out",
                                out.path.string(),
                                "-q"},
                               seconds(60), {{"RACELAB_TMPDIR", base.path.string()}});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  const json report = json::parse(Slurp(out.path / "bench.json"));
  EXPECT_EQ(report.at("workload").at("loop"), "open");
  EXPECT_EQ(report.at("workload").at("rate_per_s"), 20);
  const json* c = Cell(report, "sqlite-guarded-cas-claim");
  ASSERT_NE(c, nullptr) << report.dump(2);
  EXPECT_EQ(c->at("invariant").at("verdict"), "held");
  EXPECT_EQ(c->at("rounds_error"), 0) << c->at("error");
  EXPECT_EQ(c->at("transactions").get<int>(), 8) << "due in 0.4 s at 20/s: 4 rounds of 2";
  EXPECT_TRUE(c->at("errors").is_object());
  EXPECT_TRUE(c->at("committed_per_s").at("ci95").is_null()) << "one repeat: no interval";
}

}  // namespace
}  // namespace racelab::testing
