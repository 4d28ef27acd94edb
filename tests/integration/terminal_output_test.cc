// Terminal output never carries control characters from data: a scenario's title and lesson,
// database values, and error messages quoting a file are shown with ESC, BEL and CR escaped (\x1b,
// \x07, \r) by `list`, `explain`, `run` (progress, console report, errors).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/integration/pg_test_env.h"
#include "tests/integration/subprocess.h"
#include "tests/temp_dir.h"

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
  EXPECT_NE(r.out.find("Retitle \\x1b]0;pwned\\x07 and clear \\x1b[2J"), std::string::npos)
      << r.out;
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

// Issue 20 item 16: a spec file's transcript carries the spec's SQL and names and the server's
// values and messages; printed raw, they retitled and cleared the terminal.
TEST(TerminalOutput, SpecTranscriptShowsEscapesEscaped) {
  TempDir dir;
  const std::string spec = dir.File("hostile.spec");
  std::ofstream(spec, std::ios::binary) << "setup { CREATE TABLE t (v text); INSERT INTO t VALUES "
                                           "(E'data \\x1b]0;pwned\\x07 \\x1b[2J'); }\n"
                                           "teardown { DROP TABLE t; }\n"
                                           "session s1\n"
                                           "step \"r\x1b[2J\" { SELECT v FROM t; }\n"
                                           "step s1sql { SELECT 1 AS \"\x1b]0;sql\a\"; }\n"
                                           "step s1err { SELECT E'\\x1b[2J bad'::int; }\n"
                                           "step s1bidi { SELECT 'pass \xe2\x80\xae' AS v; }\n";
  for (const bool expected : {false, true}) {
    std::vector<std::string> argv = {
        kBin, "run", spec, "--dsn", TestConninfo(), "--allow-superuser", "-q"};
    if (expected)
      argv.insert(argv.end(),
                  {"--expected", "/dev/null"});  // the buffered path, compared then printed
    ProcessResult r = RunProcess(argv, seconds(120));
    EXPECT_EQ(r.exit_code, expected ? 1 : 0) << r.err << r.out;
    ExpectNoControlCharacters("transcript", r.out + r.err);
    EXPECT_NE(r.out.find("data \\x1b]0;pwned\\x07 \\x1b[2J"), std::string::npos)
        << r.out;  // a value
    EXPECT_NE(r.out.find("step r\\x1b[2J: SELECT v FROM t;"), std::string::npos)
        << r.out;  // a step name
    EXPECT_NE(r.out.find("SELECT 1 AS \"\\x1b]0;sql\\x07\""), std::string::npos) << r.out;  // SQL
    EXPECT_NE(r.out.find("\"\\x1b[2J bad\""), std::string::npos) << r.out;  // an error message
    EXPECT_NE(r.out.find("pass \\u202e"), std::string::npos) << r.out;      // a bidi control
    EXPECT_EQ(r.out.find("\xe2\x80\xae"), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace racelab::testing
