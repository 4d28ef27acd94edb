// racelab-bench's support without a server: the SQL its context names for the families that ran
// (bench/claim_sql.h), the context written after the runs (bench/context_last.h), and a --help that
// names every counter and environment variable the benchmark's sources use (bench/bench_help.h).
#include <benchmark/benchmark.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_help.h"
#include "bench/claim_sql.h"
#include "bench/context_last.h"
#include "tests/temp_dir.h"

namespace racelab::bench {
namespace {

using ::testing::HasSubstr;

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(SqlContext, NamesOnlyTheStrategiesThatRan) {
  const auto ctx =
      SqlContext({"strategy/naive/read_committed", "strategy/guarded_cas/serializable"});
  EXPECT_EQ(ctx.at("strategy_sql_naive"),
            "SELECT id FROM runs WHERE status = 'queued' ORDER BY id LIMIT 1; UPDATE runs SET "
            "status = 'running', attempts = attempts + 1 WHERE id = $1 RETURNING attempts");
  // strategy/guarded_cas returns attempts, not the id: before, the context named only claim_sql
  // (… RETURNING id), which no strategy/… benchmark sends.
  EXPECT_EQ(ctx.at("strategy_sql_guarded_cas"), kStrategyCasSql);
  EXPECT_NE(std::string(kStrategyCasSql), std::string(kClaimSql));
  EXPECT_EQ(ctx.at("begin_sql_read_committed"), "BEGIN ISOLATION LEVEL READ COMMITTED");
  EXPECT_EQ(ctx.at("begin_sql_serializable"), "BEGIN ISOLATION LEVEL SERIALIZABLE");
  EXPECT_EQ(ctx.count("claim_sql"), 0u);
  EXPECT_EQ(ctx.count("begin_sql_repeatable_read"), 0u);
  EXPECT_EQ(ctx.count("strategy_sql_advisory"), 0u);
  EXPECT_EQ(ctx.size(), 4u);
}

TEST(SqlContext, TheGuardedCasFamiliesNameTheClaim) {
  const auto ctx = SqlContext(
      {"guarded_cas_claim/repeatable_read", "guarded_cas_claim/repeatable_read/prepared"});
  EXPECT_EQ(ctx.at("claim_sql"), kClaimSql);
  EXPECT_EQ(ctx.at("begin_sql_repeatable_read"), "BEGIN ISOLATION LEVEL REPEATABLE READ");
  EXPECT_EQ(ctx.size(), 2u);
}

TEST(SqlContext, AdvisoryTakesItsLockFirst) {
  const auto ctx = SqlContext({"strategy/advisory/read_committed"});
  EXPECT_EQ(ctx.at("strategy_sql_advisory").rfind(std::string(kAdvisoryLockSql) + "; SELECT id", 0),
            0u);
}

TEST(SqlContext, NamesOfNoFamilyAddNothing) {
  EXPECT_TRUE(SqlContext({}).empty());
  EXPECT_TRUE(SqlContext({"strategy/bogus/read_committed", "strategy/naive/dirty_read",
                          "guarded_cas_claim", "other/read_committed"})
                  .empty());
}

// compare_pgbench.py checks the same lines against the context at run time; this checks the code.
TEST(SqlContext, IsThePgbenchScriptsSql) {
  const std::string script =
      Slurp(std::string(RACELAB_SOURCE_DIR) + "/bench/pgbench/guarded_cas_claim.sql");
  EXPECT_EQ(script, BeginSql(IsolationLevel::kReadCommitted) + ";\n" + kClaimSql + ";\nCOMMIT;\n");
}

void Spin(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(state.iterations());
}

// One process, one benchmark::Initialize: the JSON display (held) and the JSON file both get the
// late entries, and the families are those the filter let run.
TEST(RunBenchmarksContextLast, TheContextSaysWhatRanAfterItRan) {
  racelab::testing::TempDir dir;
  const std::string out = dir.File("out.json");
  std::vector<std::string> args = {
      "bench_support_test",     "--benchmark_filter=^strategy/naive/", "--benchmark_format=json",
      "--benchmark_out=" + out, "--benchmark_min_time=0.001",          "--benchmark_repetitions=2"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  benchmark::Initialize(&argc, argv.data());
  ASSERT_EQ(argc, 1);
  benchmark::RegisterBenchmark("strategy/naive/read_committed", Spin);
  benchmark::RegisterBenchmark("guarded_cas_claim/read_committed/simple", Spin);  // filtered out
  std::vector<std::string> seen;
  ::testing::internal::CaptureStdout();
  const size_t ran = RunBenchmarksContextLast([&](const std::vector<std::string>& families) {
    seen = families;
    auto entries = SqlContext(families);
    entries["late_entry"] = std::to_string(families.size());
    return entries;
  });
  const std::string shown = ::testing::internal::GetCapturedStdout();
  benchmark::Shutdown();
  EXPECT_EQ(ran, 1u);
  EXPECT_EQ(seen, std::vector<std::string>{"strategy/naive/read_committed"});
  for (const std::string& text : {shown, Slurp(out)}) {
    const auto doc = nlohmann::json::parse(text);  // throws (fails) on a JSON with no end
    const auto& ctx = doc.at("context");
    EXPECT_EQ(ctx.at("late_entry"), "1");
    EXPECT_TRUE(ctx.contains("strategy_sql_naive"));
    EXPECT_FALSE(ctx.contains("claim_sql"));
    std::set<std::string> names;
    for (const auto& b : doc.at("benchmarks")) names.insert(b.at("name").get<std::string>());
    EXPECT_THAT(*names.begin(), HasSubstr("strategy/naive/read_committed"));
    // 2 repetitions + mean, median, stddev, cv.
    EXPECT_EQ(doc.at("benchmarks").size(), 6u);
  }
}

// Every counter and environment variable racelab-bench's sources use is in its --help.
TEST(Help, NamesEveryCounterAndVariableTheSourcesUse) {
  const std::string help = HelpText();
  const std::regex counter(R"re(counters\["([a-z_0-9]+)"\])re");
  const std::regex prefix(R"re(SetCounters\(state, "([a-z_]+)"\))re");
  const std::regex variable(R"re(getenv\("([A-Z_]+)"\))re");
  int found = 0;
  for (const char* file :
       {"bench/claim_bench.cc", "bench/protocol_claims.cc", "bench/claim_strategies.cc",
        "bench/bench_target.h", "bench/bench_context.cc", "bench/latency_counters.h"}) {
    const std::string text = Slurp(std::string(RACELAB_SOURCE_DIR) + "/" + file);
    ASSERT_FALSE(text.empty()) << file;
    for (const auto* re : {&counter, &variable}) {
      for (std::sregex_iterator m(text.begin(), text.end(), *re), end; m != end; ++m, ++found)
        EXPECT_THAT(help, HasSubstr((*m)[1].str())) << file;
    }
    for (std::sregex_iterator m(text.begin(), text.end(), prefix), end; m != end; ++m, ++found)
      EXPECT_THAT(help, HasSubstr((*m)[1].str() + "_{p50,p90,p99,p999,max}_us")) << file;
  }
  EXPECT_GE(found, 12);  // the patterns still find the sources' counters
  for (const char* family :
       {"guarded_cas_claim/<level>/real_time/threads:N",
        "guarded_cas_claim/<level>/<protocol>/iterations:1/real_time/threads:N",
        "strategy/<strategy>/<level>/iterations:1/real_time/threads:N"})
    EXPECT_THAT(help, HasSubstr(family));
}

}  // namespace
}  // namespace racelab::bench
