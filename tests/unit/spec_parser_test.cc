// The isolation spec parser (harness/loader/spec_parser.h) and the permutation expansion
// (harness/loader/spec_permutations.h): the whole grammar on the team's own spec files, and bad
// input with FILE:LINE:COL.
#include "harness/loader/spec_parser.h"

#include <gtest/gtest.h>

#include <string>

#include "harness/loader/spec_permutations.h"

namespace racelab {
namespace {

std::string Fixture(const std::string& name) {
  return std::string(RACELAB_SOURCE_DIR) + "/tests/fixtures/spec/" + name;
}

std::string ErrorOf(const std::string& text) {
  auto spec = ParseSpecText(text, "t.spec");
  EXPECT_FALSE(spec.ok()) << "parsed: " << text;
  if (spec.ok()) return "";
  EXPECT_EQ(spec.status().code(), StatusCode::kUsage);
  return spec.status().message();
}

TEST(SpecParserTest, ReadsEveryPartOfTheGrammar) {
  auto spec = LoadSpecFile(Fixture("grammar.spec"));
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  ASSERT_EQ(spec->setup.size(), 2u);
  EXPECT_EQ(spec->setup[0].text,
            "\n  CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL);\n");
  EXPECT_EQ(spec->setup[0].loc.line, 4);
  EXPECT_EQ(spec->setup[1].text, "INSERT INTO accounts VALUES (1, 100), (2, 100);");
  ASSERT_TRUE(spec->teardown.has_value());
  EXPECT_EQ(spec->teardown->text, "DROP TABLE accounts;");

  ASSERT_EQ(spec->sessions.size(), 3u);
  const SpecSession& s1 = spec->sessions[0];
  EXPECT_EQ(s1.name, "s1");
  EXPECT_EQ(s1.loc.line, 10);
  EXPECT_EQ(s1.loc.column, 1);
  ASSERT_TRUE(s1.setup.has_value());
  EXPECT_EQ(s1.setup->text, "SET lock_timeout = '10s';");
  ASSERT_TRUE(s1.teardown.has_value());
  EXPECT_EQ(s1.teardown->text, "RESET lock_timeout;");
  ASSERT_EQ(s1.steps.size(), 4u);
  EXPECT_EQ(s1.steps[1].name, "s1u");
  EXPECT_EQ(s1.steps[1].sql.text, "UPDATE accounts SET balance = balance - 10 WHERE id = 1;");
  // A block keeps its newlines and inner indentation; only blanks next to the braces are cut.
  EXPECT_EQ(s1.steps[2].sql.text, "\n    SELECT id, balance\n      FROM accounts ORDER BY id;\n");

  const SpecSession& s2 = spec->sessions[1];
  EXPECT_EQ(s2.name, "Session Two");
  EXPECT_FALSE(s2.setup.has_value());
  EXPECT_FALSE(s2.teardown.has_value());
  EXPECT_EQ(s2.steps[0].name, "s2 u");

  const SpecSession& s3 = spec->sessions[2];
  EXPECT_EQ(s3.steps[0].name, "step");
  EXPECT_EQ(s3.steps[0].sql.text, "SELECT 1 AS \"one\";");
  EXPECT_EQ(s3.steps[1].name, "q\"t");
  EXPECT_EQ(s3.steps[2].name, "s3$x");

  ASSERT_EQ(spec->permutations.size(), 3u);
  EXPECT_EQ(spec->permutations[0].steps.size(), 9u);
  EXPECT_EQ(spec->permutations[0].loc.line, 30);
  const auto& p2 = spec->permutations[1].steps;
  ASSERT_EQ(p2[2].blockers.size(), 1u);
  EXPECT_EQ(p2[2].blockers[0].kind, SpecBlocker::Kind::kOnce);
  const auto& p3 = spec->permutations[2].steps;
  ASSERT_EQ(p3[2].blockers.size(), 1u);
  EXPECT_EQ(p3[2].blockers[0].kind, SpecBlocker::Kind::kStep);
  EXPECT_EQ(p3[2].blockers[0].step, "s1c");
  ASSERT_EQ(p3[4].blockers.size(), 2u);
  EXPECT_EQ(p3[4].blockers[0].step, "s1c");
  EXPECT_EQ(p3[4].blockers[1].kind, SpecBlocker::Kind::kOnce);
  ASSERT_EQ(p3[6].blockers.size(), 1u);
  EXPECT_EQ(p3[6].blockers[0].kind, SpecBlocker::Kind::kNotices);
  EXPECT_EQ(p3[6].blockers[0].step, "s2 u");
  EXPECT_EQ(p3[6].blockers[0].notices, 1);
  EXPECT_TRUE(spec->warnings.empty());
}

TEST(SpecParserTest, NamedPermutationsResolveSessionsStepsAndMarkers) {
  auto spec = LoadSpecFile(Fixture("grammar.spec"));
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto orders = ExpandSpecPermutations(*spec);
  ASSERT_TRUE(orders.ok()) << orders.status().message();
  ASSERT_EQ(orders->size(), 3u);
  EXPECT_EQ((*orders)[0].name, "s1b s1u s2 u s1c s2c s1r step q\"t s3$x");
  const OrderedStep& s2u = (*orders)[2].steps[2];
  EXPECT_EQ(s2u.session, 1);
  EXPECT_EQ(s2u.step, 0);
  ASSERT_EQ(s2u.blockers.size(), 1u);
  EXPECT_EQ(s2u.blockers[0].session, 0);
  EXPECT_EQ(s2u.blockers[0].step, 3);  // s1c
  const OrderedStep& step = (*orders)[2].steps[6];
  EXPECT_EQ(step.blockers[0].kind, SpecBlocker::Kind::kNotices);
  EXPECT_EQ(step.blockers[0].session, 1);
  EXPECT_EQ(step.blockers[0].notices, 1);
}

TEST(SpecParserTest, WithoutPermutationLinesEveryInterleavingRunsInIsolationtestersOrder) {
  auto spec = LoadSpecFile(Fixture("interleavings.spec"));
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto orders = ExpandSpecPermutations(*spec);
  ASSERT_TRUE(orders.ok()) << orders.status().message();
  ASSERT_EQ(orders->size(), 3u);
  EXPECT_EQ((*orders)[0].name, "a1 a2 b1");
  EXPECT_EQ((*orders)[1].name, "a1 b1 a2");
  EXPECT_EQ((*orders)[2].name, "b1 a1 a2");
}

TEST(SpecParserTest, TooManyInterleavingsIsAnErrorThatSaysWhatToDo) {
  std::string text;
  for (int s = 0; s < 4; ++s) {
    text += "session s" + std::to_string(s) + "\n";
    for (int k = 0; k < 5; ++k)
      text += "step s" + std::to_string(s) + "_" + std::to_string(k) + " { SELECT 1; }\n";
  }
  auto spec = ParseSpecText(text, "big.spec");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto orders = ExpandSpecPermutations(*spec);  // 20!/(5!^4) = 11732745024 orders
  ASSERT_FALSE(orders.ok());
  EXPECT_NE(orders.status().message().find("permutation"), std::string::npos)
      << orders.status().message();
}

TEST(SpecParserTest, UnusedStepsAreWarningsAsInIsolationtester) {
  auto spec = ParseSpecText(
      "session a\nstep a1 { SELECT 1; }\nstep a2 { SELECT 2; }\npermutation a1\n", "t.spec");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  ASSERT_EQ(spec->warnings.size(), 1u);
  EXPECT_EQ(spec->warnings[0], "t.spec:3:1: unused step name: a2");
}

TEST(SpecParserTest, CommentsNeedNotEndTheFileWithANewline) {
  auto spec = ParseSpecText("session a step a1 {SELECT 1;} # end", "t.spec");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->sessions[0].steps[0].sql.text, "SELECT 1;");
}

TEST(SpecParserTest, SyntaxErrorsNameLineColumnAndWhatWasExpected) {
  EXPECT_EQ(ErrorOf(""),
            "t.spec:1:1: expected 'setup', 'teardown' or 'session', found end of file");
  EXPECT_EQ(ErrorOf("session s1\n  step s1a SELECT 1;"),
            "t.spec:2:12: expected a { SQL } block for step \"s1a\", found name \"SELECT\"");
  EXPECT_EQ(ErrorOf("session s1\n"),
            "t.spec:2:1: expected 'step' (session \"s1\" needs at least one step; its "
            "'setup' comes first), found end of file");
  EXPECT_EQ(ErrorOf("session step step s { SELECT 1; }"),
            "t.spec:1:9: expected a session name (to use the keyword 'step' as a name, quote it: "
            "\"step\"), found "
            "keyword 'step'");
  EXPECT_EQ(
      ErrorOf("session s step a { SELECT 1;"),
      "t.spec:1:18: unterminated SQL block: '{' without '}' (a step's SQL cannot contain '}')");
  EXPECT_EQ(ErrorOf("session \"s\nstep a {}"), "t.spec:1:11: unexpected newline in quoted name");
  EXPECT_EQ(ErrorOf("session \"s"), "t.spec:1:9: unterminated quoted name");
  EXPECT_EQ(ErrorOf("session s step a { SELECT 1; } ;"), "t.spec:1:32: unexpected character ';'");
  EXPECT_EQ(ErrorOf("session s step a {x}\nsetup {y}"),
            "t.spec:2:1: expected 'session', 'permutation' or the end of the file, found keyword "
            "'setup'");
  EXPECT_EQ(ErrorOf("teardown {x}\nteardown {y}\nsession s step a {x}"),
            "t.spec:2:1: expected 'session' (setup and teardown come first, at most one teardown), "
            "found keyword "
            "'teardown'");
  EXPECT_EQ(ErrorOf("session s step a {x}\npermutation"),
            "t.spec:2:12: expected a step name after 'permutation', found end of file");
  EXPECT_EQ(ErrorOf("session s step a {x}\npermutation a(b"),
            "t.spec:2:16: expected ',' or ')' in the markers of step \"a\", found end of file");
  EXPECT_EQ(ErrorOf("session s step a {x}\npermutation a(b notices)"),
            "t.spec:2:24: expected a number after 'notices', found ')'");
  EXPECT_EQ(ErrorOf("session s step a {x}\npermutation a()"),
            "t.spec:2:15: expected a marker: '*', a step name, or STEP notices N, found ')'");
}

TEST(SpecParserTest, MeaningErrorsNameLineColumn) {
  EXPECT_EQ(ErrorOf("session s\nstep a {x}\nsession t\nstep a {y}"),
            "t.spec:4:1: duplicate step name \"a\" (first at line 2; step names are unique in the "
            "whole file)");
  EXPECT_EQ(ErrorOf("session s\nstep a {x}\nsession s\nstep b {y}"),
            "t.spec:3:1: duplicate session name \"s\" (first at line 1)");
  EXPECT_EQ(ErrorOf("session s\nstep a {x}\npermutation a zz"),
            "t.spec:3:15: permutation: undefined step \"zz\"");
  EXPECT_EQ(ErrorOf("session s\nstep a {x}\nsession t\nstep b {y}\npermutation a(zz) b"),
            "t.spec:5:15: permutation step \"a\": marker names step \"zz\", which this permutation "
            "does not run");
  EXPECT_EQ(
      ErrorOf("session s\nstep a {x}\nstep c {x}\npermutation a(c) c"),
      "t.spec:4:15: permutation step \"a\" cannot wait for \"c\", a step of its own session \"s\"");
  EXPECT_EQ(ErrorOf("session s\nstep a {x}\nsession t\nstep b {y}\npermutation a(b notices 0) b"),
            "t.spec:5:15: permutation step \"a\": notices must be at least 1");
}

TEST(SpecParserTest, AFileThatCannotBeReadIsAUsageError) {
  auto spec = LoadSpecFile("/nonexistent/x.spec");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), StatusCode::kUsage);
  EXPECT_TRUE(IsSpecPath("a/b.spec"));
  EXPECT_FALSE(IsSpecPath("a/b.yaml"));
}

}  // namespace
}  // namespace racelab
