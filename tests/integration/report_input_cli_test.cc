// Reports as input through the real CLI (docs/compare.md "Reports as input"): compare, merge,
// matrix and run --baseline given /dev/zero, a FIFO with no writer, counts past the schema's range
// or a SQLSTATE count of 10^8 each end within seconds — exit 2 naming the file (and the JSON path),
// or an answer — and SIGTERM while a report is read ends the command with 143. No database is
// needed.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/subprocess.h"
#include "tests/integration/test_files.h"

namespace racelab::testing {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

const std::string kBin = RACELAB_BINARY;
const std::string kSrc = RACELAB_SOURCE_DIR;

ProcessResult Racelab(std::vector<std::string> args) {
  args.insert(args.begin(), kBin);
  return RunProcess(args, seconds(60));
}

Json Report(int64_t sqlstate_count, int64_t trials = 20) {
  Json result = {{"scenario", "guarded-cas-claim"},
                 {"isolation", "read committed"},
                 {"trials", trials},
                 {"verdict", "pass"},
                 {"winners", {{"1", trials}}},
                 {"sqlstates", {{"40001", sqlstate_count}}},
                 {"retries", 0},
                 {"expectations",
                  Json::array({{{"text", "winners = 1"}, {"passed", trials}, {"failed", 0}}})}};
  return {{"schema_version", 2},
          {"racelab_version", "0.1.0"},
          {"target", {{"engine", "postgresql"}}},
          {"results", Json::array({result})}};
}

fs::path Write(const fs::path& path, const Json& j) {
  std::ofstream(path) << j.dump();
  return path;
}

// Each reader of reports, given `bad` where a report is expected.
std::vector<std::vector<std::string>> Readers(const std::string& bad, const std::string& good,
                                              const fs::path& out) {
  return {{"compare", good, bad},
          {"compare", bad, good},
          {"merge", bad, "--out", out.string()},
          {"matrix", bad},
          {"run", "guarded-cas-claim", "--scenarios", kSrc + "/scenarios", "--baseline", bad,
           "--out", out.string()}};
}

TEST(ReportInputCli, DevZeroAndAFifoAreRefusedWithinSeconds) {
  TempDir dir;
  const std::string good = Write(dir.path / "good.json", Report(3)).string();
  const std::string fifo = (dir.path / "fifo.json").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& bad : {std::string("/dev/zero"), fifo}) {
    for (const auto& args : Readers(bad, good, dir.path / "out")) {
      ProcessResult r = Racelab(args);
      EXPECT_FALSE(r.timed_out) << args[0] << " " << bad;
      EXPECT_EQ(r.exit_code, 2) << args[0] << " " << bad << ": " << r.err;
      EXPECT_NE(r.err.find(bad + ": "), std::string::npos) << args[0] << ": " << r.err;
      EXPECT_NE(r.err.find("not a report file"), std::string::npos) << args[0] << ": " << r.err;
      EXPECT_LT(r.elapsed_ms, 5000) << args[0] << " " << bad;
    }
  }
}

TEST(ReportInputCli, CountsOutOfRangeAreExit2NamingTheFieldFast) {
  TempDir dir;
  const std::string good = Write(dir.path / "good.json", Report(3)).string();
  const struct {
    Json report;
    std::string field;
  } cases[] = {
      {Report(4294967296LL), "results[0].sqlstates.40001: 4294967296 is out of range"},
      {Report(-7), "results[0].sqlstates.40001: -7 is out of range"},
      {[] {
         Json j = Report(3);
         j["results"][0]["expectations"][0]["failed"] = 25;
         return j;
       }(),
       "results[0].expectations[0]: passed + failed = 45 is more than the result's 20 trials"},
  };
  for (const auto& c : cases) {
    const std::string bad = Write(dir.path / "bad.json", c.report).string();
    for (const auto& args : Readers(bad, good, dir.path / "out")) {
      ProcessResult r = Racelab(args);
      EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.err;
      EXPECT_NE(r.err.find(bad + ": " + c.field), std::string::npos) << args[0] << ": " << r.err;
      EXPECT_LT(r.elapsed_ms, 2000) << args[0];
    }
  }
}

TEST(ReportInputCli, ASqlstateCountOf10To8IsJudgedInUnderTwoSeconds) {
  TempDir dir;
  const std::string base = Write(dir.path / "base.json", Report(100'000'000)).string();
  const std::string same = Write(dir.path / "same.json", Report(100'000'000)).string();
  const std::string fewer = Write(dir.path / "fewer.json", Report(50'000'000)).string();
  ProcessResult r = Racelab({"compare", base, same});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_LT(r.elapsed_ms, 2000);
  r = Racelab({"compare", base, fewer});
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out << r.err;
  EXPECT_NE(r.out.find("40001"), std::string::npos) << r.out;
  EXPECT_LT(r.elapsed_ms, 2000);
}

// A large valid JSON file (not a report: its parse alone takes a while) read by compare; SIGTERM
// during the read ends it with 143 at once.
TEST(ReportInputCli, SigtermWhileReadingIs143) {
  TempDir dir;
  const fs::path big = dir.path / "big.json";
  {
    std::ofstream f(big);
    f << "{\"schema_version\":2,\"results\":[],\"pad\":[";
    const std::string block = [] {
      std::string b;
      for (int i = 0; i < 1000; ++i) b += "0,";
      return b;
    }();
    for (int i = 0; i < 10000; ++i) f << block;  // 20 MB, 10 million values: seconds to parse
    f << "0]}";
  }
  Subprocess p({kBin, "compare", big.string(), big.string()});
  std::this_thread::sleep_for(milliseconds(300));
  p.Signal(SIGTERM);
  ProcessResult r = p.Wait(milliseconds(10000));
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 143) << r.err;
}

}  // namespace
}  // namespace racelab::testing
