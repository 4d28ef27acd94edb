// The exit-code table (harness/cli/exit_codes.h) is what `racelab --help` prints, and README.md's
// "Exit codes" table holds the same rows word for word, so the two cannot drift apart.
#include "harness/cli/exit_codes.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace racelab::cli {
namespace {

std::string Readme() {
  std::ifstream in(std::string(RACELAB_SOURCE_DIR) + "/README.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ExitCodesTest, ReadmeHoldsEveryRowOfTheHelpTable) {
  const std::string readme = Readme();
  ASSERT_NE(readme.find("## Exit codes"), std::string::npos);
  for (const ExitCodeRow& row : kExitCodes) {
    const std::string line =
        "| `" + std::string(row.command) + "` | " + std::string(row.codes) + " |";
    EXPECT_NE(readme.find(line), std::string::npos) << "README.md lacks: " << line;
  }
}

TEST(ExitCodesTest, HelpTableHasEverySubcommandAndEachSubcommandItsRows) {
  const std::string table = ExitCodeTable();
  for (const char* command : {"list", "explain", "run", "step", "convert", "compare", "merge",
                              "matrix", "check", "clean"}) {
    EXPECT_NE(ExitCodesOf(command).find(std::string(command) + ": 0 "), std::string::npos)
        << command;
    EXPECT_NE(table.find("\n  " + std::string(command) + " "), std::string::npos) << command;
  }
  const std::string run = ExitCodesOf("run");
  EXPECT_NE(run.find("run --baseline FILE: the run's own 2, 3"), std::string::npos) << run;
  EXPECT_NE(run.find("run X.spec: 0 "), std::string::npos) << run;
  EXPECT_NE(ExitCodesOf("merge").find("0 joined, whatever the results' verdicts"),
            std::string::npos);
  EXPECT_EQ(ExitCodesOf("compare").find("merge"), std::string::npos);
}

}  // namespace
}  // namespace racelab::cli
