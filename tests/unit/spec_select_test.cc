// `--permutation` on a spec file (harness/loader/spec_permutations.h SelectSpecPermutations): a
// permutation is named by its 1-based number, as the spec writes it (markers included) or by its
// step names alone; a selector that names none is a usage error that lists every permutation as the
// spec writes it — found before any server starts (CliSpec checks that part on the command line).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/loader/spec_parser.h"
#include "harness/loader/spec_permutations.h"

namespace racelab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// 1: s1b s1u "s2 u" s1c s2c s1r "step" "q""t" s3$x — 2: the same, "s2 u"(*) — 3: markers on three
// steps.
const std::string kGrammar = std::string(RACELAB_SOURCE_DIR) + "/tests/fixtures/spec/grammar.spec";
const std::string kLocks = std::string(RACELAB_SOURCE_DIR) + "/tests/fixtures/spec/diff/locks.spec";

// The 1-based numbers `selectors` choose in the spec at `path`, or the error message.
std::vector<int> Chosen(const std::string& path, const std::vector<std::string>& selectors,
                        std::string* error = nullptr) {
  auto spec = LoadSpecFile(path);
  EXPECT_TRUE(spec.ok()) << spec.status().message();
  auto orders = ExpandSpecPermutations(*spec);
  EXPECT_TRUE(orders.ok());
  auto chosen = SelectSpecPermutations(*spec, *orders, selectors);
  std::vector<int> numbers;
  if (!chosen.ok()) {
    EXPECT_EQ(chosen.status().code(), StatusCode::kUsage);
    if (error != nullptr) *error = chosen.status().message();
    return numbers;
  }
  for (size_t i : *chosen) numbers.push_back(static_cast<int>(i) + 1);
  return numbers;
}

TEST(SpecPermutationsTest, WrittenAsTheSpecWritesIt) {
  auto spec = LoadSpecFile(kGrammar);
  ASSERT_TRUE(spec.ok());
  auto orders = ExpandSpecPermutations(*spec);
  ASSERT_TRUE(orders.ok());
  EXPECT_EQ(
      WrittenPermutation(*spec, (*orders)[2]),
      "s1b s1u \"s2 u\"(s1c) s1c s2c(s1c, *) s1r \"step\"(\"s2 u\" notices 1) \"q\"\"t\" s3$x");
  EXPECT_EQ(WrittenPermutation(*spec, (*orders)[2], false),
            "s1b s1u \"s2 u\" s1c s2c s1r \"step\" \"q\"\"t\" s3$x");
}

TEST(SpecPermutationsTest, ANumberTheSpecAsWrittenOrTheStepNamesAlone) {
  EXPECT_THAT(Chosen(kLocks, {}), ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(Chosen(kLocks, {"4", "2"}), ElementsAre(2, 4));
  // As the spec writes it, markers included, with other blanks; the step names alone name
  // permutation 3 (isolationtester's "starting permutation:" line), and no other one has those
  // steps.
  EXPECT_THAT(Chosen(kLocks, {"s1u s2u(*) s1c s2s s3l s3e"}), ElementsAre(3));
  EXPECT_THAT(Chosen(kLocks, {"  s1u s2u ( * ) s1c s2s s3l s3e"}), ElementsAre(3));
  EXPECT_THAT(Chosen(kLocks, {"s1u s2u s3l(s2u) s1c s2s s3e"}), ElementsAre(4));
  EXPECT_THAT(Chosen(kLocks, {"s1u s2u s1c s2s s3l s3e"}), ElementsAre(3));
  // Quoted names as the spec quotes them, or not; the step names alone name each permutation with
  // those steps, whatever its markers.
  const std::string third =
      "s1b s1u \"s2 u\"(s1c) s1c s2c(s1c,*) s1r \"step\"(\"s2 u\" notices 1) \"q\"\"t\" s3$x";
  EXPECT_THAT(Chosen(kGrammar, {third}), ElementsAre(3));
  EXPECT_THAT(Chosen(kGrammar, {"\"s1b\" s1u \"s2 u\"(*) s1c s2c s1r \"step\" \"q\"\"t\" s3$x"}),
              ElementsAre(2));
  EXPECT_THAT(Chosen(kGrammar, {"s1b s1u s2 u s1c s2c s1r step q\"t s3$x"}), ElementsAre(1, 2, 3));
  // A marker that is not the permutation's names none.
  std::string error;
  EXPECT_THAT(Chosen(kLocks, {"s1u s2u(s1u) s1c s2s s3l s3e"}, &error), ElementsAre());
  EXPECT_THAT(
      error,
      HasSubstr("--permutation s1u s2u(s1u) s1c s2s s3l s3e names none of its 4 permutations"));
}

TEST(SpecPermutationsTest, ASelectorThatNamesNoneListsEveryPermutationAsWritten) {
  std::string error;
  EXPECT_THAT(Chosen(kLocks, {"2", "7"}, &error), ElementsAre());
  EXPECT_EQ(
      error,
      kLocks +
          ": --permutation 7 names none of its 4 permutations; give a number from 1 to 4, the "
          "permutation as the spec writes it (markers included) or its step names alone:\n"
          "  1: s1u s2u s1s s1c s2s s3l s3e\n"
          "  2: s1u s2n s1c s2s s3l s3e\n"
          "  3: s1u s2u(*) s1c s2s s3l s3e\n"
          "  4: s1u s2u s3l(s2u) s1c s2s s3e");
  for (const std::string bad : {"0", "-1", "s9", "s1u s2u"}) {
    EXPECT_THAT(Chosen(kLocks, {bad}, &error), ElementsAre()) << bad;
    EXPECT_THAT(error, HasSubstr("--permutation " + bad + " names none of its 4 permutations"))
        << bad;
  }
}

// A spec without permutation lines may have thousands: the error lists the first 40 and says how to
// see them all.
TEST(SpecPermutationsTest, ALongListIsCut) {
  auto spec = ParseSpecText(
      "session a\nstep a1 { }\nstep a2 { }\nstep a3 { }\nsession b\nstep b1 { }\nstep b2 { }\n"
      "step b3 { }\n",
      "many.spec");
  ASSERT_TRUE(spec.ok());
  auto orders = ExpandSpecPermutations(*spec);
  ASSERT_EQ(orders->size(), 20u);
  auto chosen = SelectSpecPermutations(*spec, *orders, {"21"});
  ASSERT_FALSE(chosen.ok());
  EXPECT_THAT(chosen.status().message(), HasSubstr("\n  20: b1 b2 b3 a1 a2 a3"));
  spec = ParseSpecText(
      "session a\nstep a1 { }\nstep a2 { }\nstep a3 { }\nstep a4 { }\nsession b\nstep b1 { }\n"
      "step b2 { }\nstep b3 { }\nstep b4 { }\n",
      "more.spec");
  orders = ExpandSpecPermutations(*spec);
  ASSERT_EQ(orders->size(), 70u);
  chosen = SelectSpecPermutations(*spec, *orders, {"71"});
  ASSERT_FALSE(chosen.ok());
  EXPECT_THAT(chosen.status().message(), HasSubstr("\n  40: "));
  EXPECT_THAT(chosen.status().message(), testing::Not(HasSubstr("\n  41: ")));
  EXPECT_THAT(chosen.status().message(),
              HasSubstr("\n  … and 30 more (racelab convert more.spec lists every one, numbered)"));
}

}  // namespace
}  // namespace racelab
