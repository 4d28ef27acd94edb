// History files (harness/check/history_file.h): Elle's EDN and racelab's JSON lines in, each bad
// input an error with file:line (and the column for EDN), and the exports read back the same.
#include <gtest/gtest.h>

#include <sstream>

#include "harness/check/check_output.h"
#include "harness/check/checker.h"
#include "harness/check/generate.h"
#include "harness/check/history_file.h"

namespace racelab::check {
namespace {

std::string EdnError(const std::string& text) {
  auto h = ParseElleHistory("h.edn", text);
  return h.ok() ? "" : h.status().message();
}

std::string JsonError(const std::string& text) {
  auto h = ParseJsonHistory("h.json", text);
  return h.ok() ? "" : h.status().message();
}

TEST(HistoryFileTest, ReadsElleOperationsPairedByProcess) {
  auto h = ParseElleHistory("h.edn", R"(; a comment
{:type :invoke, :f :txn, :value [[:append 1 2] [:r 1 nil]], :process 0, :index 0, :time 5}
{:type :invoke, :f :txn, :value [[:append 1 3]], :process 1, :index 1}
{:type :ok, :f :txn, :value [[:append 1 2] [:r 1 [1 2]]], :process 0, :index 2}
{:type :info, :f :txn, :value nil, :process 1, :index 3}
{:type :info, :f :start-partition, :value nil, :process :nemesis, :index 4}
{:type :invoke, :f :txn, :value [[:r 1 nil]], :process 2, :index 5}
)");
  ASSERT_TRUE(h.ok()) << h.status().message();
  ASSERT_EQ(h->txns.size(), 3u);
  EXPECT_EQ(h->model, Model::kListAppend);
  EXPECT_EQ(h->txns[0].index, 2);
  EXPECT_EQ(h->txns[0].line, 4u);
  EXPECT_EQ(h->txns[1].outcome, Outcome::kInfo);
  ASSERT_EQ(h->txns[1].mop_count, 1u) << "an :info completion keeps what its :invoke wrote";
  EXPECT_EQ(h->MopsOf(h->txns[1])[0].value, 3);
  EXPECT_EQ(h->txns[2].outcome, Outcome::kInfo) << "never completed";
  EXPECT_EQ(TxnOpsText(*h, h->txns[0]), "[[:append 1 2] [:r 1 [1 2]]]");
}

TEST(HistoryFileTest, ReadsAVectorOfOperationsToo) {
  auto h = ParseElleHistory("h.edn",
                            "[{:type :ok, :f :txn, :value [[:w :x 1]], :process 0}\n"
                            " {:type :ok, :f :txn, :value [[:r :x 1]], :process 1}]");
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->model, Model::kRwRegister);
  EXPECT_EQ(h->txns.size(), 2u);
  EXPECT_EQ(h->keys[0], ":x");
}

TEST(HistoryFileTest, BadEdnNamesFileLineAndColumn) {
  EXPECT_EQ(EdnError("{:type :ok, :f :txn, :value [[:append 1 2]], :process 0}\n"
                     "{:type :ok, :f :txn, :value [[:r 1 [1 x]]], :process 0}\n"),
            "h.edn:2:39: [:r …]: a list's elements must be integers, not symbol x");
  EXPECT_EQ(EdnError("{:type :ok, :f :txn,\n :value [[:append 1 2]\n"),
            "h.edn:2:9: this vector is never closed (']')");
  EXPECT_EQ(EdnError("{:type :done, :f :txn, :value [], :process 0}"),
            "h.edn:1:8: :type: expected :invoke, :ok, :fail or :info, not keyword :done");
  EXPECT_EQ(EdnError("{:type :ok, :f :txn, :value [[:append 1 2.5]], :process 0}"),
            "h.edn:1:41: not an integer (floats and ratios are not part of a history): 2.5");
  EXPECT_EQ(EdnError("{:type :ok, :f :txn, :value [[:append 1 2] [:w 2 3]], :process 0}"),
            "h.edn:1:45: a rw-register operation in a list-append history (a history holds one "
            "model)");
  EXPECT_EQ(EdnError("{:type :ok, :f :txn, :value [[:cas 1 2]], :process 0}"),
            "h.edn:1:31: unknown operation :cas (expected :append, :w or :r)");
  EXPECT_EQ(EdnError("{:type :ok :f}"), "h.edn:1:1: a map with a key and no value");
  EXPECT_EQ(EdnError("\n  )"), "h.edn:2:3: unexpected ')'");
  EXPECT_EQ(EdnError("[:ok]"),
            "h.edn:1:2: an operation must be a map {:type …}, not a keyword :ok");
  EXPECT_EQ(EdnError("{:type :ok, :f :txn, :value [[:append 1 99999999999999999999]], :process 0}"),
            "h.edn:1:41: an integer out of 64-bit range: 99999999999999999999");
}

// #_ discards are counted, not recursed into (a new user's trial: 100,000 of them in a row crashed
// the reader), and a form inside a discard counts toward the nesting limit.
TEST(HistoryFileTest, DiscardsInARowOrNestedCostNoStack) {
  const std::string op = "{:type :ok, :f :txn, :value [[:append 1 2]], :process 0}";
  auto h = ParseElleHistory("h.edn", "#_ #_ [1] [2] " + op + " #_ ; a comment\n :dropped");
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->txns.size(), 1u);
  std::string chain;
  for (int i = 0; i < 100000; ++i) chain += "#_";
  EXPECT_EQ(EdnError(chain + "1"), "h.edn:1:200002: #_ discards nothing: the text ends");
  std::string nested;
  for (int i = 0; i < 100000; ++i) nested += "#_ [";
  EXPECT_EQ(EdnError(nested).rfind("h.edn:1:", 0), 0u) << EdnError(nested);
  EXPECT_NE(EdnError(nested).find("nested deeper than 64"), std::string::npos) << EdnError(nested);
}

TEST(HistoryFileTest, ReadsRacelabJsonLines) {
  auto h = ParseJsonHistory("h.json", R"({"racelab_history": 1, "model": "list-append"}
{"index": 1, "session": "worker.1", "outcome": "ok", "ops": [["append", "x", 1], ["r", "y", []]]}

{"session": 2, "outcome": "info", "ops": [["r", "x", null]]}
)");
  ASSERT_TRUE(h.ok()) << h.status().message();
  ASSERT_EQ(h->txns.size(), 2u);
  EXPECT_EQ(h->txns[0].line, 2u);
  EXPECT_EQ(h->txns[1].line, 4u);
  EXPECT_EQ(h->processes[h->txns[0].process], "worker.1");
  EXPECT_FALSE(h->MopsOf(h->txns[1])[0].read_known);
}

TEST(HistoryFileTest, BadJsonNamesFileLineAndField) {
  const std::string header = "{\"racelab_history\": 1, \"model\": \"rw-register\"}\n";
  EXPECT_EQ(JsonError(header + "{\"session\": 1, \"outcome\": \"ok\", \"ops\": []}\n" +
                      "{\"session\": 1, \"outcome\": \"done\", \"ops\": []}\n"),
            "h.json:3: outcome: expected \"ok\", \"fail\" or \"info\", not \"done\"");
  EXPECT_EQ(JsonError(header + "{\"session\": 1, \"outcome\": \"ok\", \"ops\": [[\"r\", \"x\", "
                               "[1]]]}\n"),
            "h.json:2: ops[0][2]: a rw-register read returns an integer or null");
  EXPECT_EQ(JsonError(header + "{\"session\": 1, \"outcome\": \"ok\", \"ops\": [[\"append\", "
                               "\"x\", 1]]}\n"),
            "h.json:2: ops[0][0]: \"append\" in a rw-register history (expected \"w\")");
  EXPECT_EQ(JsonError(header + "{\"outcome\": \"ok\", \"ops\": []}\n"),
            "h.json:2: session: missing (the session that ran it)");
  EXPECT_EQ(JsonError(header + "{\"session\": 1, \"outcome\": \"ok\", \"ops\": [], \"x\": 1}\n"),
            "h.json:2: x: unknown field (expected index, session, outcome, ops)");
  EXPECT_EQ(JsonError("{\"model\": \"list-append\"}\n"),
            "h.json:1: racelab_history: the first line must be the header {\"racelab_history\": "
            "1, \"model\": \"list-append\" or \"rw-register\"}");
  EXPECT_EQ(JsonError("{\"racelab_history\": 1, \"model\": \"bank\"}\n"),
            "h.json:1: model: expected \"list-append\" or \"rw-register\"");
  EXPECT_EQ(JsonError(header + "{\"session\": 1,\n"), JsonError(header + "{\"session\": 1,\n"));
  EXPECT_EQ(JsonError(header + "{\"session\": 1,\n").rfind("h.json:2:", 0), 0u)
      << JsonError(header + "{\"session\": 1,\n");
  EXPECT_EQ(JsonError(""),
            "h.json: empty: a history starts with its header line "
            "{\"racelab_history\": 1, \"model\": …}");
}

// Both exports read back as the same history: the same transactions, the same anomalies.
TEST(HistoryFileTest, ExportsReadBackTheSame) {
  for (Model model : {Model::kListAppend, Model::kRwRegister}) {
    const History h = GenerateHistory(
        {.model = model, .txns = 300, .active_keys = 5, .write_skew_every = 30, .seed = 5});
    std::ostringstream edn, json;
    WriteElleHistory(h, edn);
    WriteJsonHistory(h, json);
    auto from_edn = ParseElleHistory("x.edn", edn.str());
    auto from_json = ParseJsonHistory("x.json", json.str());
    ASSERT_TRUE(from_edn.ok()) << from_edn.status().message();
    ASSERT_TRUE(from_json.ok()) << from_json.status().message();
    const CheckResult want = Check(h).value();
    ASSERT_FALSE(want.valid());
    for (const History* back : {&*from_edn, &*from_json}) {
      ASSERT_EQ(back->txns.size(), h.txns.size());
      for (size_t i = 0; i < h.txns.size(); ++i)
        ASSERT_EQ(TxnOpsText(*back, back->txns[i]), TxnOpsText(h, h.txns[i])) << i;
      const CheckResult got = Check(*back).value();
      EXPECT_EQ(got.counts, want.counts);
      EXPECT_EQ(got.dependencies, want.dependencies);
    }
  }
}

TEST(HistoryFileTest, OutputsNameEachAnomaly) {
  auto h = ParseElleHistory("h.edn", R"(
{:type :ok, :f :txn, :value [[:r x nil] [:r y nil] [:w x 1]], :process 0, :index 1}
{:type :ok, :f :txn, :value [[:r x nil] [:r y nil] [:w y 2]], :process 1, :index 2}
)");
  ASSERT_TRUE(h.ok());
  const CheckResult r = Check(*h).value();
  std::ostringstream console, json;
  WriteCheckConsole("h.edn", *h, r, console);
  WriteCheckJson("h.edn", *h, r, json);
  EXPECT_NE(console.str().find("h.edn: 2 transactions (2 ok, 0 fail, 0 info), rw-register, "),
            std::string::npos)
      << console.str();
  EXPECT_NE(console.str().find("G2-item (1)\n"), std::string::npos) << console.str();
  EXPECT_NE(console.str().find("    T1  line 2, process 0, ok: [[:r x nil] [:r y nil] [:w x 1]]"),
            std::string::npos)
      << console.str();
  EXPECT_NE(json.str().find("\"G2-item\": 1"), std::string::npos) << json.str();
  EXPECT_NE(json.str().find("\"type\": \"rw\""), std::string::npos) << json.str();
  EXPECT_NE(json.str().find("\"valid\": false"), std::string::npos) << json.str();
}

}  // namespace
}  // namespace racelab::check
