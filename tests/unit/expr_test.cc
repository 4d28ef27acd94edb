#include "harness/loader/expr.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace racelab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(SubstituteParamsTest, ReplacesDeclaredAndLeavesOthers) {
  ParamMap params = {{"workers", "3"}, {"id", "42"}};
  EXPECT_EQ(SubstituteParams("${workers} - 1", params), "3 - 1");
  EXPECT_EQ(SubstituteParams("WHERE id = ${id} AND s = '${status}'", params),
            "WHERE id = 42 AND s = '${status}'");
  EXPECT_EQ(SubstituteParams("${id}${id}", params), "4242");
  EXPECT_EQ(SubstituteParams("no refs, $$ dollar quoting $1", params),
            "no refs, $$ dollar quoting $1");
  EXPECT_EQ(SubstituteParams("unterminated ${id", params), "unterminated ${id");
}

TEST(SubstituteParamsTest, ValuesAreNotSubstitutedAgain) {
  ParamMap params = {{"a", "${b}"}, {"b", "x"}};
  EXPECT_EQ(SubstituteParams("${a}", params), "${b}");
}

TEST(ReferencedNamesTest, InOrderWithoutDuplicates) {
  EXPECT_THAT(ReferencedNames("${b} + ${a} * ${b}"), ElementsAre("b", "a"));
  EXPECT_TRUE(ReferencedNames("SELECT 1").empty());
}

TEST(EvalNumberTest, Arithmetic) {
  ParamMap params = {{"workers", "3"}, {"hold_ms", "1200"}};
  EXPECT_DOUBLE_EQ(*EvalNumber("${workers} - 1", params), 2.0);
  EXPECT_DOUBLE_EQ(*EvalNumber("${hold_ms} * 0.95", params), 1140.0);
  EXPECT_DOUBLE_EQ(*EvalNumber("${hold_ms} + 500", params), 1700.0);
  EXPECT_DOUBLE_EQ(*EvalNumber("1 + 2 * 3", params), 7.0);
  EXPECT_DOUBLE_EQ(*EvalNumber("(1 + 2) * 3", params), 9.0);
  EXPECT_DOUBLE_EQ(*EvalNumber("10 / 4", params), 2.5);
  EXPECT_DOUBLE_EQ(*EvalNumber("8 - 2 - 1", params), 5.0);  // left associative
  EXPECT_DOUBLE_EQ(*EvalNumber("-3 + 5", params), 2.0);
  EXPECT_DOUBLE_EQ(*EvalNumber("-(2 + 3)", params), -5.0);
  EXPECT_DOUBLE_EQ(*EvalNumber("2 * -3", params), -6.0);
  EXPECT_DOUBLE_EQ(*EvalNumber(" .5 ", params), 0.5);
  EXPECT_DOUBLE_EQ(*EvalNumber("007", params), 7.0);
}

TEST(EvalNumberTest, Errors) {
  ParamMap params = {{"workers", "abc"}};
  Result<double> r = EvalNumber("${workers}", params);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUsage);
  EXPECT_THAT(r.status().message(), HasSubstr("'${workers}' is not a number"));
  EXPECT_THAT(r.status().message(), HasSubstr("abc"));

  EXPECT_THAT(EvalNumber("1 / 0", {}).status().message(), HasSubstr("division by zero"));
  EXPECT_THAT(EvalNumber("1 / (2 - 2)", {}).status().message(), HasSubstr("division by zero"));
  EXPECT_THAT(EvalNumber("${nope} + 1", {}).status().message(),
              HasSubstr("unknown parameter ${nope}"));
  EXPECT_THAT(EvalNumber("", {}).status().message(), HasSubstr("empty expression"));
  EXPECT_THAT(EvalNumber("2 +", {}).status().message(), HasSubstr("unexpected end"));
  EXPECT_THAT(EvalNumber("(2 + 1", {}).status().message(), HasSubstr("missing ')'"));
  EXPECT_THAT(EvalNumber("2 3", {}).status().message(), HasSubstr("unexpected '3'"));
  EXPECT_THAT(EvalNumber("1.2.3", {}).status().message(), HasSubstr("bad number"));
  EXPECT_FALSE(EvalNumber("1e3", {}).ok());
  EXPECT_FALSE(EvalNumber("inf", {}).ok());
  EXPECT_FALSE(EvalNumber("0x10", {}).ok());
}

TEST(EvalIntegerTest, RequiresAnInteger) {
  ParamMap params = {{"workers", "3"}, {"hold_ms", "1000"}};
  EXPECT_EQ(*EvalInteger("${workers} - 1", params), 2);
  EXPECT_EQ(*EvalInteger("${hold_ms} * 0.5", params), 500);
  EXPECT_EQ(*EvalInteger("0.1 * 30", params), 3);  // 3.0000000000000004 is within 1e-9
  EXPECT_EQ(*EvalInteger("-4", params), -4);
  Result<long> half = EvalInteger("${workers} / 2", params);
  ASSERT_FALSE(half.ok());
  EXPECT_THAT(half.status().message(), HasSubstr("is not an integer (evaluates to 1.5)"));
}

}  // namespace
}  // namespace racelab
