// Loader budgets (harness/loader/limits.h): every size, length, depth, count and number past its
// limit is a kUsage error "FILE:LINE:COL: FIELD: …" — never a crash, a hang or gigabytes — and the
// barrier graph is refused when it has a cycle of any length. Issue 7 items 1, 3, 4, 5.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "harness/loader/expr.h"
#include "harness/loader/limits.h"
#include "harness/loader/planner.h"
#include "harness/loader/scenario_loader.h"
#include "tests/unit/loader_text.h"

namespace racelab {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Rep(const std::string& s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

// A valid file; `top` is added after line 3, `session` as keys of session a, `step` as its first
// step, `sessions` as more sessions.
std::string File(const std::string& top = "", const std::string& session = "",
                 const std::string& step = "", const std::string& sessions = "") {
  return "name: t\n"              // 1
         "title: T\n"             // 2
         "teaches: L\n" +         // 3
         top +                    //
         "sessions:\n"            //
         "  - name: a\n" +        //
         session +                //
         "    steps:\n" +         //
         step +                   //
         "      - barrier: go\n"  //
         "  - name: b\n"          //
         "    steps: [ { barrier: go } ]\n" +
         sessions +  //
         "expect: { lock_waits: 0 }\n";
}

using testing::ErrorOf;

TEST(ScenarioLimitsTest, BaseIsValid) { EXPECT_EQ(ErrorOf(File()), "(loaded without error)"); }

TEST(ScenarioLimitsTest, FileSize) {
  std::string big = File() + Rep("# padding\n", limits::kMaxFileBytes / 10 + 1);
  EXPECT_THAT(ErrorOf(big), StartsWith("t.yaml:1:1: the file has "));
}

TEST(ScenarioLimitsTest, YamlNesting) {
  // yaml-cpp recurses per level; the loader stops at 33 before parsing into nodes. The top-level
  // mapping is the first level.
  EXPECT_EQ(ErrorOf(File("tags: " + Rep("[", 31) + "x" + Rep("]", 31) + "\n")).find("nested"),
            std::string::npos);
  EXPECT_THAT(ErrorOf(File("tags: " + Rep("[", 32) + "x" + Rep("]", 32) + "\n")),
              StartsWith("t.yaml:4:38: lists and mappings are nested more than 32 levels deep"));
  EXPECT_THAT(ErrorOf(File("tags: " + Rep("[", 100000) + Rep("]", 100000) + "\n")),
              StartsWith("t.yaml:4:38: lists and mappings are nested more than 32 levels deep"));
  std::string block = "deep:";
  for (int i = 1; i <= 40; ++i) block += "\n" + Rep("  ", i) + "k:";
  EXPECT_THAT(ErrorOf(File(block + " 1\n")), HasSubstr("nested more than 32 levels deep"));
}

TEST(ScenarioLimitsTest, Lengths) {
  EXPECT_THAT(ErrorOf("name: " + Rep("a", 64) + "\ntitle: T\nteaches: L\nsessions: []\n"),
              StartsWith("t.yaml:1:7: name: 'aaaa"));
  EXPECT_THAT(ErrorOf("name: " + Rep("a", 64) + "\ntitle: T\nteaches: L\nsessions: []\n"),
              HasSubstr("is 64 bytes long; at most 63 are allowed here"));
  EXPECT_THAT(ErrorOf(File("tags: [" + Rep("t", 64) + "]\n")), StartsWith("t.yaml:4:8: tags[0]: "));
  EXPECT_THAT(ErrorOf(File("", "", "      - sql: SELECT '" + Rep("x", 70000) + "'\n")),
              StartsWith("t.yaml:7:14: sessions[0].steps[0].sql: 'SELECT 'xxx"));
  EXPECT_THAT(ErrorOf(File("", "", "      - sql: SELECT '" + Rep("x", 70000) + "'\n")),
              HasSubstr("is 70009 bytes long; at most 65536 are allowed here"));
  EXPECT_THAT(ErrorOf(File("params: { p: " + Rep("9", 1025) + " }\n")),
              StartsWith("t.yaml:4:14: params.p: "));
  EXPECT_THAT(ErrorOf(File(Rep("k", 64) + ": 1\n")), StartsWith("t.yaml:4:1: key 'kkkk"));
  // A 50,000-character ${name} (it once crashed a worker's std::regex): an unknown reference, its
  // name cut in the message.
  std::string msg = ErrorOf(File("", "", "      - sql: SELECT ${" + Rep("a", 50000) + "}\n"));
  EXPECT_THAT(msg, StartsWith("t.yaml:7:14: sessions[0].steps[0].sql: unknown reference ${aaa"));
  EXPECT_LT(msg.size(), 1000u);
  EXPECT_THAT(ErrorOf(File("", "", "      - sql: \"SELECT 1\\0\"\n")),
              StartsWith("t.yaml:7:14: sessions[0].steps[0].sql: contains a NUL byte"));
}

TEST(ScenarioLimitsTest, Counts) {
  std::string tags = "tags: [";
  for (int i = 0; i < 33; ++i) tags += "t" + std::to_string(i) + ",";
  EXPECT_THAT(ErrorOf(File(tags + "]\n")),
              StartsWith("t.yaml:4:7: tags: has 33 items; at most 32 are allowed here"));
  std::string params = "params: {";
  for (int i = 0; i <= 100; ++i) params += "p" + std::to_string(i) + ": 1,";
  EXPECT_THAT(ErrorOf(File(params + "}\n")),
              StartsWith("t.yaml:4:9: params: has 101 entries; at most 100 are allowed here"));
  EXPECT_EQ(ErrorOf(File("", "", Rep("      - begin\n", 500))),
            "t.yaml:7:7: sessions[0].steps: has 501 items; at most 500 are allowed here");
  std::string roles;
  for (int i = 0; i < 99; ++i)
    roles += "  - { name: r" + std::to_string(i) + ", steps: [begin] }\n";
  EXPECT_THAT(ErrorOf(File("", "", "", roles)),
              StartsWith("t.yaml:5:3: sessions: has 101 items; at most 100 are allowed here"));
  EXPECT_THAT(
      ErrorOf(File("", "    count: 600\n", "", "  - { name: c, count: 600, steps: [begin] }\n")),
      StartsWith("t.yaml:5:3: sessions: the sessions' counts add up to 1201 instances; "
                 "at most 1000"));
}

TEST(ScenarioLimitsTest, ErrorsStopAtTwentyAndAreCounted) {
  std::string keys;
  for (int i = 0; i < 90; ++i) keys += "k" + std::to_string(i) + ": v\n";
  std::string msg = ErrorOf(File(keys));
  EXPECT_THAT(msg, StartsWith("t.yaml:4:1: k0: unknown key 'k0'"));
  EXPECT_THAT(msg, EndsWith("\nt.yaml: … and more errors (the loader stops after the first 20)"));
  EXPECT_LT(msg.size(), 20000u);
  // 6.5 million unknown keys once printed 957 MB; a mapping that large is one error now.
  keys.clear();
  for (int i = 0; i < 20000; ++i) keys += "k" + std::to_string(i) + ": v\n";
  EXPECT_EQ(ErrorOf(File(keys)), "t.yaml:1:1: has 20005 entries; at most 100 are allowed here");
}

TEST(ScenarioLimitsTest, AliasesCountEachTimeTheyAreRead) {
  // 60 sessions × 30 steps × a 60 KiB text named once: 108 MB if expanded.
  std::string file = "name: t\ntitle: T\nteaches: &big '" + Rep("A", 60000) + "'\nsessions:\n";
  for (int i = 0; i < 60; ++i) {
    file += "  - { name: s" + std::to_string(i) + ", steps: [" + Rep("{ sql: *big }, ", 29) +
            "{ sql: *big }] }\n";
  }
  EXPECT_THAT(ErrorOf(file), HasSubstr("the texts of this file add up to more than 4194304 bytes"));
  // A billion laughs: nine levels of ten aliases is one list of lists; nothing expands it.
  std::string bomb = "lol0: &l0 [" + Rep("lol, ", 9) + "lol]\n";
  for (int i = 1; i <= 9; ++i) {
    std::string prev = "*l" + std::to_string(i - 1);
    bomb += "lol" + std::to_string(i) + ": &l" + std::to_string(i) + " [" + Rep(prev + ", ", 9) +
            prev + "]\n";
  }
  auto start = std::chrono::steady_clock::now();
  EXPECT_THAT(ErrorOf(File(bomb + "tags: *l9\n")),
              HasSubstr("tags[0]: expected text, found a list"));
  EXPECT_THAT(ErrorOf(File("tags: &c [*c]\n")), HasSubstr("tags[0]: expected text, found a list"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(ScenarioLimitsTest, ExpressionDepthAndLength) {
  auto eval = [](const std::string& text) {
    Result<double> r = EvalNumber(text, {});
    return r.ok() ? std::to_string(*r) : r.status().message();
  };
  EXPECT_EQ(eval(Rep("(", 32) + "2" + Rep(")", 32)), "2.000000");
  EXPECT_THAT(eval(Rep("(", 33) + "2" + Rep(")", 33)),
              HasSubstr("nested deeper than 32 levels of parentheses or signs"));
  EXPECT_EQ(eval(Rep("-", 32) + "2"), "2.000000");
  EXPECT_THAT(eval(Rep("-", 33) + "2"), HasSubstr("nested deeper than 32"));
  // The issue's crashes: 30,000 parentheses and 200,000 signs (no recursion on either).
  EXPECT_THAT(eval(Rep("(", 30000) + "2" + Rep(")", 30000)), HasSubstr("is too long"));
  EXPECT_THAT(eval(Rep("-+", 100000) + "2"), HasSubstr("is too long"));
  EXPECT_THAT(ErrorOf(File("", "    count: \"" + Rep("(", 30000) + "2" + Rep(")", 30000) + "\"\n")),
              StartsWith("t.yaml:6:12: sessions[0].count: expression '((("));
}

TEST(ScenarioLimitsTest, NumbersStayInTheClocksRange) {
  EXPECT_THAT(ErrorOf(File("", "", "      - sleep_ms: 99999999999999999999\n")),
              StartsWith("t.yaml:7:19: sessions[0].steps[0].sleep_ms: '99999999999999999999' must "
                         "be a number of ms from 0 to 86400000 (24 h) (evaluates to 1e+20)"));
  EXPECT_THAT(ErrorOf(File("", "", "      - { await_blocked: b, timeout_ms: 9000000000000000 }\n")),
              StartsWith("t.yaml:7:41: sessions[0].steps[0].timeout_ms: '9000000000000000' must be "
                         "a number of ms from 1 to 86400000"));
  EXPECT_THAT(
      ErrorOf(File("", "    retry: { sqlstates: [\"40001\"], initial_ms: 100000000000000000000 }\n",
                   "      - begin\n")),
      StartsWith("t.yaml:6:48: sessions[0].retry.initial_ms: '100000000000000000000' must "
                 "be a number of ms from 0 to 86400000"));
  EXPECT_THAT(
      ErrorOf(File("", "    retry: { sqlstates: [\"40001\"], attempts: 1001, factor: 1001 }\n",
                   "      - begin\n")),
      HasSubstr("sessions[0].retry.attempts: '1001' must be an integer from 1 to 1000"));
  EXPECT_THAT(ErrorOf(File("", "", "      - sleep_ms: 1e13\n")), HasSubstr("is not a number"));
}

TEST(ScenarioLimitsTest, BarrierCyclesOfAnyLength) {
  // a waits x then y, b waits y then z, c waits z then x.
  std::string three =
      "name: t\ntitle: T\nteaches: L\nsessions:\n"
      "  - { name: a, steps: [ { barrier: x }, { barrier: y } ] }\n"
      "  - { name: b, steps: [ { barrier: y }, { barrier: z } ] }\n"
      "  - { name: c, steps: [ { barrier: z }, { barrier: x } ] }\n"
      "expect: { lock_waits: 0 }\n";
  EXPECT_EQ(
      ErrorOf(three),
      "t.yaml:5:25: sessions[0].steps[0].barrier: barrier cycle: session 'a' meets 'x' before "
      "'y', session 'b' meets 'y' before 'z', session 'c' meets 'z' before 'x': each waits at "
      "a barrier for a session that waits at the next one, until the trial deadline (meet "
      "shared barriers in one order in every session)");
  // 50 roles in a ring: found in one pass, not by comparing every pair.
  std::string ring = "name: t\ntitle: T\nteaches: L\nsessions:\n";
  for (int i = 0; i < 50; ++i) {
    ring += "  - { name: r" + std::to_string(i) + ", steps: [ { barrier: b" + std::to_string(i) +
            " }, { barrier: b" + std::to_string((i + 1) % 50) + " } ] }\n";
  }
  ring += "expect: { lock_waits: 0 }\n";
  EXPECT_THAT(ErrorOf(ring), HasSubstr("barrier cycle: session 'r0' meets 'b0' before 'b1', "
                                       "session 'r1' meets 'b1' before 'b2'"));
  // A chain is fine, and so is a barrier met twice in the same order.
  std::string chain =
      "name: t\ntitle: T\nteaches: L\nsessions:\n"
      "  - { name: a, steps: [ { barrier: x }, { barrier: y }, { barrier: x } ] }\n"
      "  - { name: b, steps: [ { barrier: y }, { barrier: z } ] }\n"
      "  - { name: c, steps: [ { barrier: x }, { barrier: z }, { barrier: x } ] }\n"
      "expect: { lock_waits: 0 }\n";
  EXPECT_EQ(ErrorOf(chain), "(loaded without error)");
  // b meets x a second time before y, a meets y before its second x: the k-th listing of a
  // barrier is the k-th meeting.
  std::string repeat =
      "name: t\ntitle: T\nteaches: L\nsessions:\n"
      "  - { name: a, steps: [ { barrier: x }, { barrier: y }, { barrier: x } ] }\n"
      "  - { name: b, steps: [ { barrier: x }, { barrier: x }, { barrier: y } ] }\n"
      "expect: { lock_waits: 0 }\n";
  EXPECT_EQ(ErrorOf(repeat),
            "t.yaml:6:41: sessions[1].steps[1].barrier: barrier 'x' (2nd time) comes where session "
            "'a' meets 'y': sessions sharing barriers must meet them in the same order, or each "
            "waits for the other forever");
}

TEST(ScenarioLimitsTest, LoaderIsLinearInParams) {
  // 100 params (the limit), each referenced: quick. The duplicate check is a hash set.
  std::string params = "params: {";
  std::string sql = "      - sql: SELECT 1";
  for (int i = 0; i < 100; ++i) {
    params += "p" + std::to_string(i) + ": 1,";
    sql += " + ${p" + std::to_string(i) + "}";
  }
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(ErrorOf(File(params + "}\n", "", sql + "\n")), "(loaded without error)");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

// Plan-time limits: the trial deadline (a run option) and --set values.
class PlanLimitsTest : public ::testing::Test {
 protected:
  std::string PlanError(const std::string& yaml, const PlanOptions& options) {
    Result<Scenario> s = LoadScenarioText(yaml, "t.yaml");
    if (!s.ok()) return "load: " + s.status().message();
    Result<std::vector<PlanItem>> items = ExpandScenario(*s, options);
    return items.ok() ? "(planned without error)" : items.status().message();
  }
  const std::string hold = File("params: { hold_ms: 100, workers: 1 }\n", "    count: ${workers}\n",
                                "      - sleep_ms: ${hold_ms}\n");
};

TEST_F(PlanLimitsTest, AStepLongerThanTheTrialDeadlineIsAnError) {
  PlanOptions options;
  EXPECT_EQ(PlanError(hold, options), "(planned without error)");
  options.set = {{"hold_ms", "120001"}};
  EXPECT_EQ(PlanError(hold, options),
            "--set hold_ms=120001: t.yaml:9:9: sessions[0].steps[0].sleep_ms: a sleep of 120001 ms "
            "cannot end before the trial deadline (--trial-timeout-ms 120000): every trial would "
            "end at the deadline; shorten it or raise the deadline");
  options.trial_timeout_ms = 200000;
  EXPECT_EQ(PlanError(hold, options), "(planned without error)");
  PlanOptions short_trials;
  short_trials.trial_timeout_ms = 50;
  EXPECT_THAT(PlanError(hold, short_trials), HasSubstr("a sleep of 100 ms cannot end"));
  EXPECT_THAT(
      PlanError(File("", "", "      - { await_blocked: b, timeout_ms: 500 }\n"), short_trials),
      HasSubstr("sessions[0].steps[0].timeout_ms: a wait (timeout_ms) of 500 ms cannot end"));
}

TEST_F(PlanLimitsTest, HostileSetValues) {
  PlanOptions options;
  // The issue's --set workers=((((…2…)))) with 30,000 parentheses: an error, not a crash.
  options.set = {{"workers", Rep("(", 30000) + "2" + Rep(")", 30000)}};
  EXPECT_THAT(PlanError(hold, options), StartsWith("--set workers=((((("));
  EXPECT_THAT(PlanError(hold, options),
              HasSubstr(": t.yaml:4:34: params.workers: the value has 60001 bytes; at most 1024"));
  options.set = {{"workers", Rep("(", 40) + "2" + Rep(")", 40)}};
  EXPECT_THAT(PlanError(hold, options), HasSubstr("t.yaml:7:12: sessions[0].count: "));
  EXPECT_THAT(PlanError(hold, options), HasSubstr("nested deeper than 32"));
  options.set = {{"hold_ms", "10000000000000"}};
  EXPECT_THAT(PlanError(hold, options), HasSubstr("must be a number of ms from 0 to 86400000"));
  options.set = {{"hold_ms", "1e13"}};
  EXPECT_THAT(PlanError(hold, options), HasSubstr("is not a number"));
  options.set = {{"workers", "1001"}};
  EXPECT_THAT(
      PlanError(hold, options),
      HasSubstr("t.yaml:7:12: sessions[0].count: '${workers}' must be an integer from 1 to 1000"));
}

TEST_F(PlanLimitsTest, CountCannotMultiplyTextIntoGigabytes) {
  // 1000 instances × 2 × 40 KiB of SQL = 80 MB of plan: refused before it is built.
  std::string sql = "      - sql: SELECT '" + Rep("x", 40000) + "'\n";
  std::string yaml = File("params: { workers: 1 }\n", "    count: ${workers}\n", sql + sql);
  PlanOptions options;
  options.set = {{"workers", "999"}};
  EXPECT_THAT(PlanError(yaml, options),
              HasSubstr("t.yaml:6:5: sessions[0].count: '${workers}' = 999 instances of this "
                        "session make the plan hold more than 67108864 bytes of text"));
}

}  // namespace
}  // namespace racelab
