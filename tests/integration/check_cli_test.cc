// `racelab check` through the real binary (docs/check.md): exit 0 for a serializable history, 1
// with the cycle explained for an anomalous one, 2 with file:line for bad input; --format json; and
// --export elle written and read back to the same verdict. No database is needed.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/integration/subprocess.h"
#include "tests/temp_dir.h"

namespace racelab::testing {
namespace {

using std::chrono::seconds;

ProcessResult Racelab(std::vector<std::string> args) {
  args.insert(args.begin(), RACELAB_BINARY);
  return RunProcess(args, seconds(60));
}

std::string Write(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.File(name);
  std::ofstream(path) << text;
  return path;
}

constexpr const char* kSkew = R"({"racelab_history": 1, "model": "list-append"}
{"index": 0, "session": "a", "outcome": "ok", "ops": [["append", "x", 1]]}
{"index": 1, "session": "b", "outcome": "ok", "ops": [["r", "x", [1]], ["append", "y", 3]]}
{"index": 2, "session": "c", "outcome": "ok", "ops": [["r", "y", []], ["append", "x", 2]]}
{"index": 3, "session": "a", "outcome": "ok", "ops": [["r", "x", [1, 2]], ["r", "y", [3]]]}
)";

TEST(CheckCliTest, SerialHistoryExitsZero) {
  TempDir dir;
  const std::string file = Write(dir, "serial.edn", R"(
{:type :ok, :f :txn, :value [[:append 1 1] [:r 2 nil]], :process 0, :index 0}
{:type :ok, :f :txn, :value [[:r 1 [1]] [:append 2 5]], :process 1, :index 1}
{:type :ok, :f :txn, :value [[:r 1 [1]] [:r 2 [5]]], :process 0, :index 2}
)");
  ProcessResult r = Racelab({"check", file});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("3 transactions (3 ok, 0 fail, 0 info), list-append"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("no anomaly"), std::string::npos) << r.out;
}

TEST(CheckCliTest, AnomalyExitsOneWithItsCycle) {
  TempDir dir;
  const std::string file = Write(dir, "skew.jsonl", kSkew);
  ProcessResult r = Racelab({"check", file});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("G2-item (1)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("T1 read x=[1] before T2 appended 2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("T2 read y=[] before T1 appended 3"), std::string::npos) << r.out;
  ProcessResult json = Racelab({"check", file, "--format", "json"});
  EXPECT_EQ(json.exit_code, 1) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["valid"], false);
  EXPECT_EQ(j["counts"]["G2-item"], 1);
  EXPECT_EQ(j["anomalies"][0]["cycle"].size(), 2u);
}

TEST(CheckCliTest, BadInputExitsTwoNamingFileAndLine) {
  TempDir dir;
  const std::string edn = Write(dir, "bad.edn",
                                "{:type :ok, :f :txn, :value [[:r 1 [1]]], :process 0}\n"
                                "{:type :ok, :f :txn, :value [[:r 1 [1 :a]]], :process 0}\n");
  ProcessResult r = Racelab({"check", edn});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(edn + ":2:39: [:r …]: a list's elements must be integers"),
            std::string::npos)
      << r.err;
  const std::string json = Write(dir, "bad.jsonl",
                                 "{\"racelab_history\": 1, \"model\": \"list-append\"}\n"
                                 "{\"session\": 1, \"outcome\": \"maybe\", \"ops\": []}\n");
  r = Racelab({"check", json});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(json + ":2: outcome:"), std::string::npos) << r.err;
  r = Racelab({"check", dir.File("missing.edn")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("missing.edn: cannot open"), std::string::npos) << r.err;
  r = Racelab({"check", dir.path.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
}

TEST(CheckCliTest, ExportToElleReadsBackTheSame) {
  TempDir dir;
  const std::string file = Write(dir, "skew.jsonl", kSkew);
  const std::string edn = dir.File("skew.edn");
  ProcessResult r = Racelab({"check", file, "--export", "elle", "--output", edn});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(edn);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "{:type :invoke, :f :txn, :value [[:append \"x\" 1]], :process 0, :index 0}");
  r = Racelab({"check", edn});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("G2-item (1)"), std::string::npos) << r.out;
}

// From a new user's trial: an empty recording must not pass, and an export never overwrites the
// history it reads.
TEST(CheckCliTest, AnEmptyHistoryIsBadInputAndAnExportKeepsItsInput) {
  TempDir dir;
  const std::string empty = Write(dir, "empty.edn", "");
  ProcessResult r = Racelab({"check", empty});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("empty.edn: holds no transaction"), std::string::npos) << r.err;
  const std::string header =
      Write(dir, "header.jsonl", "{\"racelab_history\": 1, \"model\": \"list-append\"}\n");
  r = Racelab({"check", header});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  const std::string file = Write(dir, "skew.jsonl", kSkew);
  r = Racelab({"check", file, "--export", "elle", "--output", file});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is the history being read"), std::string::npos) << r.err;
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, kSkew);
}

}  // namespace
}  // namespace racelab::testing
