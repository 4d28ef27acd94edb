// Terminal output never carries control characters from data: a scenario's title and lesson, database
// values, and error messages quoting a file are shown with ESC, BEL and CR escaped (\x1b, \x07, \r) by
// `list`, `explain`, `run` (progress, console report, errors).
#include <gtest/gtest.h>

#include <string>

#include "tests/integration/subprocess.h"

namespace racelab::testing {
namespace {

using std::chrono::seconds;

const std::string kBin = RACELAB_BINARY;
const std::string kFixture = std::string(RACELAB_SOURCE_DIR) + "/tests/fixtures/hostile_text.yaml";

void ExpectNoControlCharacters(const std::string& what, const std::string& text) {
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    EXPECT_TRUE(u == '\n' || u == '\t' || (u >= 0x20 && u != 0x7f))
        << what << ": control byte " << static_cast<int>(u) << " in:\n"
        << text;
  }
}

TEST(TerminalOutput, ExplainShowsEscapesEscaped) {
  ProcessResult r = RunProcess({kBin, "explain", kFixture}, seconds(30));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ExpectNoControlCharacters("explain", r.out + r.err);
  EXPECT_NE(r.out.find("Retitle \\x1b]0;pwned\\x07 and clear \\x1b[2J"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\\rrewrites"), std::string::npos) << r.out;
}

TEST(TerminalOutput, RunShowsDatabaseValuesEscaped) {
  ProcessResult r =
      RunProcess({kBin, "run", kFixture, "--trials", "1", "--format", "console"}, seconds(120));
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;  // the final check fails on purpose
  ExpectNoControlCharacters("run", r.out + r.err);
  EXPECT_NE(r.out.find("data \\x1b]0;pwned\\x07 \\x1b[2J"), std::string::npos) << r.out;
}

TEST(TerminalOutput, ErrorMessagesShowEscapesEscaped) {
  ProcessResult r = RunProcess({kBin, "run", "no-such-\x1b[2J-scenario"}, seconds(30));
  EXPECT_EQ(r.exit_code, 2);
  ExpectNoControlCharacters("error", r.out + r.err);
  EXPECT_NE(r.err.find("no-such-\\x1b[2J-scenario"), std::string::npos) << r.err;
  r = RunProcess({kBin, "\x1b]0;pwned\a"}, seconds(30));
  EXPECT_EQ(r.exit_code, 2);
  ExpectNoControlCharacters("unknown command", r.out + r.err);
}

}  // namespace
}  // namespace racelab::testing
