// Spec file budgets (harness/loader/limits.h "Spec files"): a PostgreSQL isolation spec file is
// held to the limits of a YAML scenario file — file size, sessions, steps per session, permutations
// listed or enumerated, steps in all permutations, name lengths, SQL length, NUL bytes — each an
// exit-2 error "FILE:LINE:COL: …" that names the limit, found before any permutation is built.
// Enumeration is iterative: a 100,000-step session once overflowed the stack (one frame per step).
// Issue 20 items 13–15.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "harness/loader/limits.h"
#include "harness/loader/spec_parser.h"
#include "harness/loader/spec_permutations.h"
#include "tests/temp_dir.h"

namespace racelab {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Rep(const std::string& s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

// One session "a" of `n` steps a0 … a(n-1).
std::string Steps(size_t n, const std::string& session = "a") {
  std::string text = "session " + session + "\n";
  for (size_t i = 0; i < n; ++i) text += "step " + session + std::to_string(i) + " { }\n";
  return text;
}

std::string ErrorOf(const std::string& text) {
  auto spec = ParseSpecText(text, "t.spec");
  if (!spec.ok()) {
    EXPECT_EQ(spec.status().code(), StatusCode::kUsage);
    return spec.status().message();
  }
  auto count = CountSpecPermutations(*spec);
  if (!count.ok()) return count.status().message();
  auto orders = ExpandSpecPermutations(*spec);
  if (!orders.ok()) return orders.status().message();
  return "(loaded without error)";
}

TEST(SpecLimitsTest, AtTheLimitsASpecLoads) {
  EXPECT_EQ(ErrorOf(Steps(limits::kMaxStepsPerSession)), "(loaded without error)");
  std::string sessions;
  for (size_t i = 0; i < limits::kMaxRoles; ++i)
    sessions += "session s" + std::to_string(i) + " step x" + std::to_string(i) + " { }\n";
  EXPECT_EQ(ErrorOf(sessions + "permutation x0 x99\n"), "(loaded without error)");
  EXPECT_EQ(
      ErrorOf("session " + Rep("n", 63) + " step " + Rep("s", 63) + " { " + Rep("x", 65536) + " }"),
      "(loaded without error)");
}

TEST(SpecLimitsTest, AHundredThousandStepsInOneSessionIsAnErrorNotACrash) {
  // It once crashed with SIGSEGV in the recursive enumeration (one frame per step).
  // 1.6 MB: the size limit comes first; within it, the 501st step is the error.
  EXPECT_THAT(ErrorOf(Steps(100000)),
              StartsWith("t.spec:1:1: the file has 1588900 bytes; a spec file may have"));
  EXPECT_EQ(
      ErrorOf(Steps(5000)),
      "t.spec:502:1: session \"a\": more than 500 steps; at most 500 are allowed in one session");
}

TEST(SpecLimitsTest, EnumerationIsIterative) {
  // Built without the parser, past its limits: one order of 100,000 steps, no recursion.
  IsolationSpec spec;
  spec.loc = SourceLoc{"t.spec", 0, 0};
  SpecSession a;
  a.name = "a";
  for (int i = 0; i < 100000; ++i) a.steps.push_back(SpecStep{"a" + std::to_string(i), {}, {}});
  spec.sessions.push_back(a);
  auto orders = ExpandSpecPermutations(spec);
  ASSERT_TRUE(orders.ok()) << orders.status().message();
  ASSERT_EQ(orders->size(), 1u);
  EXPECT_EQ((*orders)[0].steps.size(), 100000u);
  EXPECT_EQ((*orders)[0].steps.back().step, 99999);
}

TEST(SpecLimitsTest, Counts) {
  std::string sessions;
  for (size_t i = 0; i <= limits::kMaxRoles; ++i)
    sessions += "session s" + std::to_string(i) + " step x" + std::to_string(i) + " { }\n";
  EXPECT_EQ(ErrorOf(sessions),
            "t.spec:101:1: session: more than 100 sessions; at most 100 are allowed in one file");
  EXPECT_EQ(ErrorOf(Rep("setup { }\n", 101) + Steps(1)),
            "t.spec:101:1: setup: more than 100 setup blocks; at most 100 are allowed in one file");
  std::string markers = "session a step a1 { }\nsession b step b1 { }\npermutation a1(" +
                        Rep("b1, ", 100) + "b1) b1\n";
  EXPECT_THAT(ErrorOf(markers), StartsWith("t.spec:3:"));
  EXPECT_THAT(ErrorOf(markers),
              HasSubstr("more than 100 markers; at most 100 are allowed on one step"));
}

TEST(SpecLimitsTest, PermutationLinesAreCapped) {
  // 2,000,000 permutation lines once took 2.2 GB to list; the 10,001st line is the error.
  std::string text = Steps(1) + Rep("permutation a0\n", kMaxSpecPermutations + 1);
  EXPECT_EQ(ErrorOf(text),
            "t.spec:10003:1: permutation: more than 10000 permutation lines; at most 10000 are "
            "allowed in one file");
  std::string long_line =
      Steps(1) + "permutation " + Rep("a0 ", limits::kMaxSpecPermutationSteps + 1) + "\n";
  EXPECT_THAT(ErrorOf(long_line),
              StartsWith("t.spec:3:1: permutation: more than 10000 steps; at most 10000 are "
                         "allowed in one permutation"));
}

TEST(SpecLimitsTest, InterleavingsAreCountedWithoutBuildingThemAndTheErrorSaysWhere) {
  std::string text;
  for (int s = 0; s < 4; ++s) {
    text += "session s" + std::to_string(s) + "\n";
    for (int k = 0; k < 5; ++k)
      text += "step s" + std::to_string(s) + "_" + std::to_string(k) + " { }\n";
  }
  auto start = std::chrono::steady_clock::now();
  std::string msg = ErrorOf(text);  // 20!/(5!^4) = 11,732,745,024 orders
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  // Named at the step that takes the count past the limit.
  EXPECT_THAT(msg, StartsWith("t.spec:"));
  EXPECT_THAT(msg,
              HasSubstr("more than 10000 interleavings (at most 10000 without permutation lines)"));
  auto spec = ParseSpecText(text, "t.spec");
  ASSERT_TRUE(spec.ok());
  auto count = CountSpecPermutations(*spec);
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.status().message(), msg);
  // Within the count limit but past the steps budget: sessions of 139 and 2 steps make C(141, 2) =
  // 9,870 orders of 141 steps.
  std::string wide = Steps(139, "a") + Steps(2, "b");
  EXPECT_THAT(ErrorOf(wide),
              HasSubstr("the permutations would run 1391670 steps; at most 1000000 are allowed"));
  // A count within every limit is exact.
  auto small = ParseSpecText(Steps(3, "a") + Steps(2, "b") + Steps(1, "c"), "t.spec");
  ASSERT_TRUE(small.ok());
  auto n = CountSpecPermutations(*small);
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(*n, 60u);  // 6! / (3! 2! 1!)
  EXPECT_EQ(ExpandSpecPermutations(*small)->size(), 60u);
}

TEST(SpecLimitsTest, Lengths) {
  // A 12,000-character session name once reached application_name, and the server closed the
  // connection.
  EXPECT_EQ(ErrorOf("session " + Rep("n", 12000) + " step s { }"),
            "t.spec:1:9: session name \"" + Rep("n", 63) +
                "…\" is 12000 bytes long; at most 63 are allowed");
  EXPECT_EQ(ErrorOf("session \"" + Rep("q", 64) + "\" step s { }"),
            "t.spec:1:9: session name \"" + Rep("q", 63) +
                "…\" is 64 bytes long; at most 63 are allowed");
  EXPECT_THAT(ErrorOf("session a step " + Rep("s", 64) + " { }"),
              StartsWith("t.spec:1:16: step name \"sss"));
  EXPECT_THAT(ErrorOf("session a step s { }\npermutation " + Rep("s", 64)),
              StartsWith("t.spec:2:13: permutation step name \"sss"));
  EXPECT_EQ(ErrorOf("session a step s { " + Rep("x", 65537) + " }"),
            "t.spec:1:18: step \"s\": its SQL is 65537 bytes long; at most 65536 are allowed");
  EXPECT_EQ(ErrorOf("setup { " + Rep("x", 65537) + " }\nsession a step s { }"),
            "t.spec:1:7: setup: its SQL is 65537 bytes long; at most 65536 are allowed");
  const char kNul[] = "session a step s { SELECT 1;\0 DROP TABLE x; }";
  EXPECT_EQ(ErrorOf(std::string(kNul, sizeof kNul - 1)),
            "t.spec:1:29: a NUL byte (0x00): a spec file is text, and no statement may hold one");
}

TEST(SpecLimitsTest, FileSize) {
  const std::string big = Steps(1) + Rep("# padding\n", limits::kMaxFileBytes / 10 + 1);
  EXPECT_EQ(ErrorOf(big), "t.spec:1:1: the file has " + std::to_string(big.size()) +
                              " bytes; a spec file may have at most 262144 (256 KiB)");
  // LoadSpecFile reads at most one byte past the limit (a 56 MB spec, or /dev/zero, costs nothing).
  testing::TempDir dir;
  const std::string path = dir.File("huge.spec");
  {
    std::ofstream f(path, std::ios::binary);
    f << Steps(1);
    for (int i = 0; i < 600000; ++i)
      f << "# padding padding padding padding padding padding padding padding\n";
  }
  auto spec = LoadSpecFile(path);
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), StartsWith(path + ":1:1: the file has "));
  EXPECT_THAT(spec.status().message(), HasSubstr("a spec file may have at most 262144 (256 KiB)"));
  auto zero = LoadSpecFile("/dev/zero");
  ASSERT_FALSE(zero.ok());
  EXPECT_THAT(zero.status().message(),
              StartsWith("/dev/zero:1:1: the file has more than 262144 bytes"));
}

}  // namespace
}  // namespace racelab
