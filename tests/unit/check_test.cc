// The checker (harness/check/checker.h) on hand-made histories: each anomaly class, the examples of
// Adya's thesis ("Weak Consistency", 1999, §3–4: H_wcycle, H1a, H1b, H1c, H_single, H2, H_lost) and
// of Elle (its README's G1c, its tests' G0/G1b/lost-update shapes), written here as EDN.
#include <gtest/gtest.h>

#include <string>

#include "harness/check/checker.h"
#include "harness/check/generate.h"
#include "harness/check/history_file.h"

namespace racelab::check {
namespace {

History Edn(const std::string& text) {
  auto h = ParseElleHistory("h.edn", text);
  EXPECT_TRUE(h.ok()) << h.status().message();
  return h.ok() ? std::move(h).value() : History{};
}

CheckResult Checked(const History& h, CheckOptions options = {}) {
  auto r = Check(h, options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : CheckResult{};
}

std::string Explained(const CheckResult& r, const std::string& name) {
  for (const Anomaly& a : r.anomalies)
    if (a.name == name) return a.explanation;
  return "";
}

size_t Count(const CheckResult& r, const std::string& name) {
  auto it = r.counts.find(name);
  return it == r.counts.end() ? 0 : it->second;
}

// The issue's own sentence: a write skew over two lists.
TEST(CheckTest, ListAppendWriteSkewIsG2ItemExplainedInProse) {
  History h = Edn(R"(
{:type :ok, :f :txn, :value [[:append x 1]], :process 0, :index 0}
{:type :ok, :f :txn, :value [[:r x [1]] [:append y 3]], :process 1, :index 1}
{:type :ok, :f :txn, :value [[:r y []] [:append x 2]], :process 2, :index 2}
{:type :ok, :f :txn, :value [[:r x [1 2]] [:r y [3]]], :process 0, :index 3}
)");
  CheckResult r = Checked(h);
  EXPECT_EQ(Count(r, "G2-item"), 1u);
  EXPECT_EQ(r.counts.size(), 1u);
  const std::string text = Explained(r, "G2-item");
  EXPECT_TRUE(
      text == "T1 read x=[1] before T2 appended 2, T2 read y=[] before T1 appended 3: G2-item" ||
      text == "T2 read y=[] before T1 appended 3, T1 read x=[1] before T2 appended 2: G2-item")
      << text;
}

// Adya's H_wcycle (a cycle of writes), as list appends: x = [1 2] but y = [2 1].
TEST(CheckTest, WriteCycleIsG0) {
  CheckResult r = Checked(Edn(R"(
{:type :ok, :f :txn, :value [[:append :x 1] [:append :y 1]], :process 0, :index 1}
{:type :ok, :f :txn, :value [[:append :x 2] [:append :y 2]], :process 1, :index 2}
{:type :ok, :f :txn, :value [[:r :x [1 2]] [:r :y [2 1]]], :process 2, :index 3}
)"));
  EXPECT_EQ(Count(r, "G0"), 1u);
  EXPECT_NE(Explained(r, "G0").find("T1 appended 1 to :x before T2 appended 2"), std::string::npos)
      << Explained(r, "G0");
  EXPECT_EQ(Count(r, "G1c"), 0u);
  EXPECT_EQ(Count(r, "G2-item"), 0u);
}

// Adya's H1a: T2 reads what the aborted T1 wrote.
TEST(CheckTest, AbortedReadIsG1a) {
  CheckResult r = Checked(Edn(R"(
{:type :fail, :f :txn, :value [[:append x 1]], :process 0, :index 1}
{:type :ok, :f :txn, :value [[:r x [1]]], :process 1, :index 2}
)"));
  EXPECT_EQ(Count(r, "G1a"), 1u);
  EXPECT_EQ(Explained(r, "G1a"), "T2 read x=[1], but T1 appended 1 and failed: G1a");
  CheckResult reg = Checked(Edn(R"(
{:type :fail, :f :txn, :value [[:w x 7]], :process 0, :index 1}
{:type :ok, :f :txn, :value [[:r x 7]], :process 1, :index 2}
)"));
  EXPECT_EQ(Count(reg, "G1a"), 1u);
}

// Adya's H1b: T2 reads T1's intermediate version. With list-append it is a G-single too: T2's read
// misses T1's second append (Elle says the same).
TEST(CheckTest, IntermediateReadIsG1b) {
  CheckResult r = Checked(Edn(R"(
{:type :ok, :f :txn, :value [[:append x 1] [:append x 2]], :process 0, :index 1}
{:type :ok, :f :txn, :value [[:r x [1]]], :process 1, :index 2}
)"));
  EXPECT_EQ(Count(r, "G1b"), 1u);
  EXPECT_EQ(Count(r, "G-single"), 1u);
  CheckResult own =
      Checked(Edn("{:type :ok, :f :txn, :value [[:append x 1] [:r x [1]] [:append x 2]], "
                  ":process 0}"));
  EXPECT_TRUE(own.valid()) << "a transaction may read its own intermediate state";
  CheckResult reg = Checked(Edn(R"(
{:type :ok, :f :txn, :value [[:w x 1] [:w x 2]], :process 0, :index 1}
{:type :ok, :f :txn, :value [[:r x 1]], :process 1, :index 2}
)"));
  EXPECT_EQ(Count(reg, "G1b"), 1u);
}

// Adya's H1c (registers: each reads the other's write) and Elle's README G1c (list-append).
TEST(CheckTest, CircularInformationFlowIsG1c) {
  CheckResult r = Checked(Edn(R"(
{:type :ok, :f :txn, :value [[:w x 1] [:r y 2]], :process 0, :index 1}
{:type :ok, :f :txn, :value [[:w y 2] [:r x 1]], :process 1, :index 2}
)"));
  EXPECT_EQ(Count(r, "G1c"), 1u);
  EXPECT_EQ(r.counts.size(), 1u);
  CheckResult elle = Checked(Edn(R"(
{:index 0, :type :ok, :process 0, :f :txn, :value [[:append :x 1] [:r :y [1]]]}
{:index 1, :type :ok, :process 1, :f :txn, :value [[:append :x 2] [:append :y 1]]}
{:index 2, :type :ok, :process 2, :f :txn, :value [[:r :x [1 2]]]}
)"));
  EXPECT_EQ(Count(elle, "G1c"), 1u);
  const std::string text = Explained(elle, "G1c");
  EXPECT_NE(text.find("T1 appended 1 to :y before T0 read :y=[1]"), std::string::npos) << text;
  EXPECT_NE(text.find("T0 appended 1 to :x before T1 appended 2"), std::string::npos) << text;
}

// Adya's H_single (read skew): T1 reads x before T2's writes and y after them.
TEST(CheckTest, ReadSkewIsGSingle) {
  CheckResult r = Checked(Edn(R"(
{:type :ok, :f :txn, :value [[:r x nil] [:r y 9]], :process 0, :index 1}
{:type :ok, :f :txn, :value [[:w x 1] [:w y 9]], :process 1, :index 2}
)"));
  EXPECT_EQ(Count(r, "G-single"), 1u);
  EXPECT_EQ(Count(r, "G2-item"), 0u);
  const std::string text = Explained(r, "G-single");
  EXPECT_NE(text.find("T1 read x=nil before T2 wrote x=1"), std::string::npos) << text;
  EXPECT_NE(text.find("T2 wrote y=9 before T1 read y=9"), std::string::npos) << text;
}

// Adya's H2 (write skew) on registers.
TEST(CheckTest, RegisterWriteSkewIsG2Item) {
  CheckResult r = Checked(Edn(R"(
{:type :ok, :f :txn, :value [[:r x nil] [:r y nil] [:w x 1]], :process 0, :index 1}
{:type :ok, :f :txn, :value [[:r x nil] [:r y nil] [:w y 2]], :process 1, :index 2}
)"));
  EXPECT_EQ(Count(r, "G2-item"), 1u);
  EXPECT_EQ(Count(r, "G-single"), 0u);
  EXPECT_EQ(Count(r, "lost-update"), 0u);
}

// Adya's H_lost on registers, and Elle's lost-update shape on lists: two transactions read the
// same version and both write the key.
TEST(CheckTest, LostUpdate) {
  CheckResult reg = Checked(Edn(R"(
{:type :ok, :f :txn, :value [[:r x nil] [:w x 14]], :process 0, :index 1}
{:type :ok, :f :txn, :value [[:r x nil] [:w x 15]], :process 1, :index 2}
)"));
  EXPECT_EQ(Count(reg, "lost-update"), 1u);
  EXPECT_EQ(Explained(reg, "lost-update"), "T1, T2 read x=nil and each wrote x: lost-update");
  CheckResult list = Checked(Edn(R"(
{:type :ok, :f :txn, :value [[:append x 0]], :process 0, :index 0}
{:type :ok, :f :txn, :value [[:r x [0]] [:append x 1]], :process 1, :index 1}
{:type :ok, :f :txn, :value [[:r x [0]] [:append x 2]], :process 2, :index 2}
)"));
  EXPECT_EQ(Count(list, "lost-update"), 1u);
  EXPECT_EQ(Count(list, "G2-item"), 1u) << "neither saw the other's append: rw both ways";
  CheckResult one = Checked(Edn(R"(
{:type :ok, :f :txn, :value [[:r x nil] [:append x 1] [:append x 2]], :process 0, :index 0}
{:type :ok, :f :txn, :value [[:r x [1 2]]], :process 1, :index 1}
)"));
  EXPECT_TRUE(one.valid()) << "one transaction writing twice over its read is no lost update";
}

TEST(CheckTest, TransactionThatMissesItsOwnWriteIsInternal) {
  CheckResult list = Checked(Edn(R"(
{:type :ok, :f :txn, :value [[:r x [1 2]] [:append x 3] [:r x [1 2]]], :process 0, :index 5}
)"));
  EXPECT_EQ(Count(list, "internal"), 1u);
  EXPECT_NE(Explained(list, "internal")
                .find("T5 read x=[1 2] where its own reads and appends say "
                      "[1 2 3]"),
            std::string::npos)
      << Explained(list, "internal");
  EXPECT_EQ(Count(Checked(Edn("{:type :ok, :f :txn, :value [[:append x 4] [:r x [4 1]]], :process "
                              "0}")),
                  "internal"),
            1u);
  EXPECT_EQ(Count(Checked(Edn("{:type :ok, :f :txn, :value [[:w x 1] [:r x 2]], :process 0}")),
                  "internal"),
            1u);
  EXPECT_TRUE(Checked(Edn("{:type :ok, :f :txn, :value [[:r y [5 6]] [:append x 3] [:r x [1 2 3]] "
                          "[:append x 4] [:r x [1 2 3 4]]], :process 0}"))
                  .counts.count("internal") == 0);
}

TEST(CheckTest, GarbageDuplicateAndIncompatibleReads) {
  CheckResult garbage = Checked(Edn("{:type :ok, :f :txn, :value [[:r x [9]]], :process 0}"));
  EXPECT_EQ(Count(garbage, "garbage-read"), 1u);
  CheckResult reg = Checked(Edn("{:type :ok, :f :txn, :value [[:r x 9]], :process 0}"));
  EXPECT_EQ(Count(reg, "garbage-read"), 1u);
  CheckResult dup = Checked(Edn(R"(
{:type :ok, :f :txn, :value [[:append x 1]], :process 0}
{:type :ok, :f :txn, :value [[:r x [1 1]]], :process 1}
)"));
  EXPECT_EQ(Count(dup, "duplicate-elements"), 1u);
  CheckResult order = Checked(Edn(R"(
{:type :ok, :f :txn, :value [[:append x 1]], :process 0}
{:type :ok, :f :txn, :value [[:append x 2]], :process 1}
{:type :ok, :f :txn, :value [[:r x [1 2]]], :process 2}
{:type :ok, :f :txn, :value [[:r x [2 1]]], :process 3}
)"));
  EXPECT_EQ(Count(order, "incompatible-order"), 1u);
}

// A read that misses an earlier transaction of its own session is a cycle only through the
// session's order.
TEST(CheckTest, ProcessOrderNamesProcessCycles) {
  History h = Edn(R"(
{:type :ok, :f :txn, :value [[:append x 1]], :process 0, :index 1}
{:type :ok, :f :txn, :value [[:r x []]], :process 0, :index 2}
{:type :ok, :f :txn, :value [[:r x [1]]], :process 1, :index 3}
)");
  EXPECT_TRUE(Checked(h).valid());
  CheckResult r = Checked(h, {.process_order = true});
  EXPECT_EQ(Count(r, "G-single-process"), 1u);
  EXPECT_NE(Explained(r, "G-single-process").find("T1 ran before T2 on process 0"),
            std::string::npos)
      << Explained(r, "G-single-process");
}

// An info transaction may have committed: what it wrote can be read (no G1a) and it is in the
// graph; a failed one is not.
TEST(CheckTest, InfoWritesCountFailedOnesDoNot) {
  CheckResult r = Checked(Edn(R"(
{:type :info, :f :txn, :value [[:append x 1] [:append y 1]], :process 0, :index 1}
{:type :ok, :f :txn, :value [[:r x [1]] [:r y []]], :process 1, :index 2}
{:type :ok, :f :txn, :value [[:r y [1]]], :process 2, :index 3}
)"));
  EXPECT_EQ(Count(r, "G1a"), 0u);
  EXPECT_EQ(Count(r, "G-single"), 1u) << "T2 saw T1's x but not its y";
  EXPECT_EQ(r.info, 1u);
  CheckResult failed = Checked(Edn(R"(
{:type :fail, :f :txn, :value [[:append x 1]], :process 0, :index 1}
{:type :ok, :f :txn, :value [[:r x []]], :process 1, :index 2}
)"));
  EXPECT_TRUE(failed.valid());
  EXPECT_EQ(failed.dependencies, 0u);
}

TEST(CheckTest, ElementAppendedTwiceIsBadInput) {
  auto r = Check(Edn(R"(
{:type :ok, :f :txn, :value [[:append x 1]], :process 0, :index 1}
{:type :ok, :f :txn, :value [[:append x 1]], :process 1, :index 2}
)"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUsage);
  EXPECT_EQ(r.status().message(),
            "T1 and T2 both append 1 to x: list-append needs each element appended once");
}

TEST(CheckTest, SerialHistoriesHaveNoAnomaly) {
  for (Model model : {Model::kListAppend, Model::kRwRegister}) {
    CheckResult r = Checked(GenerateHistory({.model = model, .txns = 5000, .seed = 7}));
    EXPECT_TRUE(r.valid()) << ModelName(model) << ": " << r.counts.begin()->first << " "
                           << r.anomalies.front().explanation;
    EXPECT_GT(r.dependencies, 5000u) << ModelName(model);
    EXPECT_EQ(r.ok, 5000u);
    EXPECT_TRUE(
        Checked(GenerateHistory({.model = model, .txns = 2000, .seed = 3}), {.process_order = true})
            .valid())
        << ModelName(model);
  }
}

TEST(CheckTest, GeneratedWriteSkewsAreFound) {
  for (Model model : {Model::kListAppend, Model::kRwRegister}) {
    CheckResult r = Checked(GenerateHistory(
        {.model = model, .txns = 2000, .active_keys = 50, .write_skew_every = 100, .seed = 11}));
    EXPECT_GT(Count(r, "G2-item"), 0u) << ModelName(model);
    for (const auto& [name, n] : r.counts)
      EXPECT_TRUE(name == "G2-item" || name == "G-single") << ModelName(model) << ": " << name;
  }
}

}  // namespace
}  // namespace racelab::check
