// Reports read as input (harness/compare/report_file.h, report_view.h, stats.h): a hostile or
// corrupted report costs bounded time and memory and gets an exit-2 error naming the file and the
// JSON path — regular files only, at most 64 MiB, counts within the schema's range — and the exact
// tests answer in closed form whatever the counts.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/compare/report_file.h"
#include "harness/compare/report_view.h"
#include "harness/compare/stats.h"
#include "tests/temp_dir.h"

namespace racelab::compare {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

Json OneResult(Json patch = Json::object()) {
  Json r = {
      {"scenario", "s"},
      {"isolation", "read committed"},
      {"trials", 20},
      {"verdict", "pass"},
      {"winners", {{"1", 20}}},
      {"sqlstates", {{"40001", 3}}},
      {"retries", 0},
      {"expectations", Json::array({{{"text", "winners = 1"}, {"passed", 20}, {"failed", 0}}})}};
  r.merge_patch(patch);
  return r;
}

Json ReportWith(const Json& result) {
  return {{"schema_version", 2},
          {"target", {{"engine", "postgresql"}}},
          {"results", Json::array({result})}};
}

std::string ErrorOf(const Json& result) {
  auto v = ReportViewFromJson(ReportWith(result), "r.json");
  return v.ok() ? "" : v.status().message();
}

TEST(ReportInput, CountsOutsideTheSchemasRangeAreRefusedWithTheirPath) {
  EXPECT_EQ(ErrorOf(OneResult()), "");
  EXPECT_EQ(
      ErrorOf(OneResult({{"sqlstates", {{"40001", 4294967296LL}}}})),
      "r.json: results[0].sqlstates.40001: 4294967296 is out of range (expected 0 to 1000000000)");
  EXPECT_EQ(ErrorOf(OneResult({{"sqlstates", {{"40001", -1}}}})),
            "r.json: results[0].sqlstates.40001: -1 is out of range (expected 0 to 1000000000)");
  EXPECT_EQ(ErrorOf(OneResult({{"trials", -5}})),
            "r.json: results[0].trials: -5 is out of range (expected 0 to 1000000000)");
  EXPECT_EQ(
      ErrorOf(OneResult({{"trials", 18446744073709551615ULL}})),
      "r.json: results[0].trials: 18446744073709551615 is out of range (expected 0 to 1000000000)");
  EXPECT_EQ(ErrorOf(OneResult({{"errors", {{"HY000:1205", 1000000001}}}})),
            "r.json: results[0].errors.HY000:1205: 1000000001 is out of range (expected 0 to "
            "1000000000)");
  EXPECT_EQ(ErrorOf(OneResult({{"retries", 1e20}})),
            "r.json: results[0].retries: expected an integer");
  EXPECT_EQ(
      ErrorOf(OneResult({{"blocked_ms", {{"p50", 0}, {"p95", 0}, {"max", 0}, {"count", -2}}}})),
      "r.json: results[0].blocked_ms.count: -2 is out of range (expected 0 to 1000000000)");
}

TEST(ReportInput, FailedMoreThanTrialsIsRefused) {
  Json x = OneResult();
  x["expectations"][0]["passed"] = 0;
  x["expectations"][0]["failed"] = 21;
  EXPECT_EQ(ErrorOf(x),
            "r.json: results[0].expectations[0]: passed + failed = 21 is more than the result's 20 "
            "trials");
  x["expectations"][0]["passed"] = -1;
  x["expectations"][0]["failed"] = 1;
  EXPECT_EQ(
      ErrorOf(x),
      "r.json: results[0].expectations[0].passed: -1 is out of range (expected 0 to 1000000000)");
  EXPECT_EQ(ErrorOf(OneResult({{"winners", {{"1", 21}}}})),
            "r.json: results[0].winners.1: 21 is more than the result's 20 trials");
}

TEST(ReportInput, OnlyRegularFilesAreRead) {
  testing::TempDir dir;
  const auto start = Clock::now();
  auto zero = ReadReportView("/dev/zero");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().message(),
            "/dev/zero: a character device, not a report file (a report is read from a "
            "regular file)");
  const std::string fifo = (dir.path / "fifo.json").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto from_fifo = ReadReportView(fifo);  // no writer: a blocking open would never return
  ASSERT_FALSE(from_fifo.ok());
  EXPECT_EQ(from_fifo.status().message(),
            fifo +
                ": a FIFO (named pipe), not a report file (a report is read from a "
                "regular file)");
  auto folder = ReadReportView(dir.path.string());
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(folder.status().message().find("a folder, not a report file"), std::string::npos);
  EXPECT_LT(SecondsSince(start), 2.0);
}

TEST(ReportInput, AFileOverTheBoundIsRefusedUnread) {
  testing::TempDir dir;
  const fs::path big = dir.path / "big.json";
  std::ofstream(big) << "{";
  fs::resize_file(big, kMaxReportBytes + 1);  // sparse: costs no disk
  auto v = ReadReportView(big.string());
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(), big.string() +
                                      ": the file has 67108865 bytes; a report may have at most "
                                      "67108864 (64 MiB)");
}

TEST(ReportInput, DeepNestingAndAStopRequestEndTheRead) {
  testing::TempDir dir;
  const fs::path deep = dir.path / "deep.json";
  std::ofstream(deep) << std::string(100000, '[') << std::string(100000, ']');
  auto v = ReadReportView(deep.string());
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(),
            deep.string() + ": JSON nested deeper than 64 levels: not a racelab report");

  const fs::path ok = dir.path / "ok.json";
  std::ofstream(ok) << ReportWith(OneResult()).dump();
  EXPECT_TRUE(ReadReportView(ok.string()).ok());
  StopFlag stop;
  stop.RequestStop(SIGTERM);
  auto stopped = ReadReportView(ok.string(), &stop);
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.status().message(), ok.string() + ": reading the report was interrupted");
  EXPECT_EQ(ExitCodeIfInterrupted(&stop), 143);
  EXPECT_EQ(ExitCodeIfInterrupted(nullptr), 0);
}

// The two-sided p-values as the definition computes them: every outcome no more likely than the
// observed one, summed (the loop the closed form replaces).
double FisherByLoop(int64_t a, int64_t b, int64_t c, int64_t d);
double PoissonByLoop(int64_t ca, int64_t ta, int64_t cb, int64_t tb);

TEST(ReportInput, ClosedFormTestsAgreeWithTheDefinition) {
  for (int64_t a = 0; a <= 12; a += 3) {
    for (int64_t b = 0; b <= 14; b += 7) {
      for (int64_t c = 0; c <= 30; c += 5) {
        for (int64_t d = 1; d <= 25; d += 8) {
          EXPECT_NEAR(FisherExactTwoSided(a, b, c, d), FisherByLoop(a, b, c, d), 1e-12)
              << a << " " << b << " " << c << " " << d;
          EXPECT_NEAR(PoissonRatesTwoSided(a + b, d, c, d + a + 1),
                      PoissonByLoop(a + b, d, c, d + a + 1), 1e-12)
              << a + b << " " << d << " " << c << " " << d + a + 1;
        }
      }
    }
  }
}

TEST(ReportInput, HugeCountsAnswerInClosedForm) {
  const auto start = Clock::now();
  // 10^8 events each side, 10^4 apart: z = 10^4 / sqrt(10^8 / 4) = 2, so p ~ 2 (1 - Phi(2)) =
  // 0.0455.
  EXPECT_NEAR(PoissonRatesTwoSided(50'010'000, 20, 49'990'000, 20), 0.0455, 2e-4);
  EXPECT_EQ(PoissonRatesTwoSided(50'000'000, 20, 50'000'000, 20), 1.0);
  EXPECT_LT(PoissonRatesTwoSided(1'000'000'000, 20, 0, 20), 1e-300);
  // Trials at the bound on both sides of a 2x2 table.
  EXPECT_EQ(FisherExactTwoSided(500'000'000, 500'000'000, 500'000'000, 500'000'000), 1.0);
  // sd of the top-left cell = sqrt(n K (N - K) (N - n) / (N^2 (N - 1))) = 11180.3: 22361 off is z
  // = 2.
  EXPECT_NEAR(FisherExactTwoSided(500'022'361, 499'977'639, 499'977'639, 500'022'361), 0.0455,
              1e-3);
  EXPECT_LT(SecondsSince(start), 2.0);
  EXPECT_THROW(FisherExactTwoSided(3'000'000'000, 1, 2'000'000'000, 1), StatisticError);
}

double FisherByLoop(int64_t a, int64_t b, int64_t c, int64_t d) {
  const auto lchoose = [](double n, double k) {
    return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1);
  };
  const int64_t row1 = a + b, col1 = a + c, total = a + b + c + d;
  if (row1 == 0 || col1 == 0 || row1 == total || col1 == total) return 1.0;
  const auto pmf = [&](int64_t x) {
    return std::exp(lchoose(col1, x) + lchoose(total - col1, row1 - x) - lchoose(total, row1));
  };
  const double observed = pmf(a);
  double p = 0;
  for (int64_t x = std::max<int64_t>(0, row1 + col1 - total); x <= std::min(row1, col1); ++x) {
    if (pmf(x) <= observed * (1 + 1e-7)) p += pmf(x);
  }
  return std::min(1.0, p);
}

double PoissonByLoop(int64_t ca, int64_t ta, int64_t cb, int64_t tb) {
  const int64_t n = ca + cb;
  if (n == 0) return 1.0;
  const double share = static_cast<double>(ta) / static_cast<double>(ta + tb);
  const auto pmf = [&](int64_t x) {
    return std::exp(std::lgamma(n + 1.0) - std::lgamma(x + 1.0) - std::lgamma(n - x + 1.0) +
                    x * std::log(share) + (n - x) * std::log1p(-share));
  };
  const double observed = pmf(ca);
  double p = 0;
  for (int64_t x = 0; x <= n; ++x) {
    if (pmf(x) <= observed * (1 + 1e-7)) p += pmf(x);
  }
  return std::min(1.0, p);
}

}  // namespace
}  // namespace racelab::compare
