// harness/model/condition.h: the `when` grammar and ${capture} substitution, shared by the loader
// and the worker. Linear scanners: a 50,000-character condition or reference neither recurses nor
// crashes (the std::regex they replace overflowed the stack on such input, issue 7 item 1).
#include "harness/model/condition.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace racelab {
namespace {

WhenCondition Parse(const std::string& text) {
  std::string error;
  std::optional<WhenCondition> c = ParseWhen(text, &error);
  EXPECT_TRUE(c.has_value()) << text << ": " << error;
  return c.value_or(WhenCondition{});
}

std::string ErrorOf(const std::string& text) {
  std::string error;
  std::optional<WhenCondition> c = ParseWhen(text, &error);
  EXPECT_FALSE(c.has_value()) << text;
  return error;
}

TEST(ConditionTest, CompareWithTextOrNumber) {
  WhenCondition c = Parse("  status == 'queued' ");
  EXPECT_EQ(c.kind, WhenCondition::Kind::kCompare);
  EXPECT_EQ(c.name, "status");
  EXPECT_EQ(c.op, "==");
  EXPECT_TRUE(c.is_text);
  EXPECT_EQ(c.literal, "queued");
  c = Parse("n!=-1.5");
  EXPECT_EQ(c.op, "!=");
  EXPECT_FALSE(c.is_text);
  EXPECT_DOUBLE_EQ(c.number, -1.5);
  EXPECT_EQ(Parse("s == '${other} x'").literal, "${other} x");  // substituted at run time
  EXPECT_EQ(Parse("rows == 1").name, "rows");                   // a capture may be called rows
  EXPECT_EQ(Parse("defined == 1").name, "defined");
}

TEST(ConditionTest, DefinedAndRows) {
  WhenCondition c = Parse("defined(id)");
  EXPECT_EQ(c.kind, WhenCondition::Kind::kDefined);
  EXPECT_EQ(c.name, "id");
  EXPECT_FALSE(c.negated);
  c = Parse("! defined ( id )");
  EXPECT_TRUE(c.negated);
  c = Parse("rows(pull-1) >= 2");
  EXPECT_EQ(c.kind, WhenCondition::Kind::kRows);
  EXPECT_EQ(c.name, "pull-1");
  EXPECT_EQ(c.op, ">=");
  EXPECT_DOUBLE_EQ(c.number, 2);
  for (const char* op : {"==", "!=", "<", "<=", ">", ">="}) {
    EXPECT_EQ(Parse(std::string("rows(pull) ") + op + " 0").op, op);
  }
}

TEST(ConditionTest, OrderingComparesACaptureAsANumber) {
  for (const char* op : {"<", "<=", ">", ">="}) {
    WhenCondition c = Parse(std::string("balance ") + op + " -10.5");
    EXPECT_EQ(c.kind, WhenCondition::Kind::kCompare);
    EXPECT_EQ(c.op, op);
    EXPECT_FALSE(c.is_text);
    EXPECT_DOUBLE_EQ(c.number, -10.5);
  }
}

TEST(ConditionTest, SqlstateAndFailedNameAnEarlierStep) {
  WhenCondition c = Parse("sqlstate(claim-1) == '40P01'");
  EXPECT_EQ(c.kind, WhenCondition::Kind::kSqlstate);
  EXPECT_EQ(c.name, "claim-1");
  EXPECT_EQ(c.op, "==");
  EXPECT_EQ(c.literal, "40P01");
  EXPECT_EQ(Parse("sqlstate ( claim ) != '40001'").op, "!=");
  c = Parse("failed(claim)");
  EXPECT_EQ(c.kind, WhenCondition::Kind::kFailed);
  EXPECT_FALSE(c.negated);
  c = Parse("!failed( claim )");
  EXPECT_TRUE(c.negated);
  EXPECT_EQ(c.name, "claim");
  EXPECT_EQ(Parse("failed == 1").kind,
            WhenCondition::Kind::kCompare);  // a capture may be called failed
}

TEST(ConditionTest, Errors) {
  EXPECT_EQ(ErrorOf("status = 1"), "expected == != < <= > or >= after the name");
  EXPECT_EQ(ErrorOf("status < 'b'"),
            "< compares numbers: write a number after it, or use == or != with 'text'");
  EXPECT_EQ(ErrorOf("== 1"), "expected a captured name first");
  EXPECT_EQ(ErrorOf("s == 'open"), "unterminated 'text'");
  EXPECT_EQ(ErrorOf("s == 1.2.3"), "bad number '1.2.3'");
  EXPECT_EQ(ErrorOf("s == x"), "expected 'quoted text' or a number after the operator");
  EXPECT_EQ(ErrorOf("s == 'a' and t == 'b'"), "unexpected 'and t == 'b'' at the end");
  EXPECT_EQ(ErrorOf("defined(id"), "expected ')' after defined(id");
  EXPECT_EQ(ErrorOf("defined()"), "expected a captured name in defined(…)");
  EXPECT_EQ(ErrorOf("!status == 1"), "'!' goes only before defined(NAME) or failed(STEP)");
  EXPECT_EQ(ErrorOf("sqlstate(claim) == 40001"),
            "expected a quoted SQLSTATE after ==, e.g. '40001'");
  EXPECT_EQ(ErrorOf("sqlstate(claim) < '40001'"), "expected == or != after sqlstate(claim)");
  EXPECT_EQ(
      ErrorOf("sqlstate(claim) == '4001'"),
      "'4001' is not a SQLSTATE (5 characters, digits and capital letters, e.g. '40001', '40P01')");
  EXPECT_EQ(ErrorOf("sqlstate() == '40001'"), "expected a step name in sqlstate(…)");
  EXPECT_EQ(ErrorOf("failed(claim"), "expected ')' after failed(claim");
  EXPECT_EQ(ErrorOf("rows(pull)"), "expected == != < <= > or >= after rows(pull)");
  EXPECT_EQ(ErrorOf("rows(pull) > -1"), "expected a row count (an integer >= 0) after >");
  EXPECT_EQ(ErrorOf("rows(pull) > 1.5"), "unexpected '.5' at the end");
  EXPECT_EQ(ErrorOf("rows(1x) > 1"), "expected a step name in rows(…)");
}

TEST(ConditionTest, CompareNumbers) {
  EXPECT_TRUE(CompareNumbers(0, "==", 0));
  EXPECT_TRUE(CompareNumbers(1, "!=", 0));
  EXPECT_TRUE(CompareNumbers(0, "<", 1));
  EXPECT_FALSE(CompareNumbers(1, "<", 1));
  EXPECT_TRUE(CompareNumbers(1, "<=", 1));
  EXPECT_TRUE(CompareNumbers(2, ">", 1));
  EXPECT_TRUE(CompareNumbers(1, ">=", 1));
  EXPECT_FALSE(CompareNumbers(0, ">=", 1));
}

std::optional<std::string> Lookup(const std::string& name) {
  static const std::map<std::string, std::string> kValues = {{"id", "7"}, {"s", "it's"}};
  auto it = kValues.find(name);
  if (it == kValues.end()) return std::nullopt;
  return it->second;
}

TEST(ConditionTest, SubstituteRefs) {
  std::string out, missing;
  ASSERT_TRUE(
      SubstituteRefs("UPDATE t SET x = 1 WHERE id = ${id} AND s = '${s}'", Lookup, &out, &missing));
  EXPECT_EQ(out, "UPDATE t SET x = 1 WHERE id = 7 AND s = 'it's'");
  // Not a reference: left as written (as the old regex did).
  ASSERT_TRUE(SubstituteRefs("$${1x} ${ id} ${} ${id", Lookup, &out, &missing));
  EXPECT_EQ(out, "$${1x} ${ id} ${} ${id");
  EXPECT_FALSE(SubstituteRefs("a ${id} b ${nope} c", Lookup, &out, &missing));
  EXPECT_EQ(missing, "nope");
}

TEST(ConditionTest, HugeInputIsLinearAndDoesNotCrash) {
  std::string name(50000, 'a');
  std::string out, missing;
  EXPECT_FALSE(SubstituteRefs("${" + name + "}", Lookup, &out, &missing));
  EXPECT_EQ(missing.size(), 50000u);
  std::string many;
  for (int i = 0; i < 10000; ++i) many += "${id}";
  ASSERT_TRUE(SubstituteRefs(many, Lookup, &out, &missing));
  EXPECT_EQ(out, std::string(10000, '7'));
  EXPECT_EQ(Parse(name + " == '" + std::string(50000, 'x') + "'").literal.size(), 50000u);
  EXPECT_EQ(Parse("rows(p) == " + std::string(50000, '1').substr(0, 15)).kind,
            WhenCondition::Kind::kRows);
  std::string error;
  EXPECT_FALSE(ParseWhen(std::string(50000, '('), &error).has_value());
  EXPECT_FALSE(ParseWhen("s == " + std::string(50000, '9') + "x", &error).has_value());
}

}  // namespace
}  // namespace racelab
