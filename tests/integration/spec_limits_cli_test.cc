// Spec files at the command line under hostile input (issue 20 items 13–15): `racelab list` on a
// folder holding a 100,000-step spec or 2,000,000 permutation lines, and `racelab run` of a spec
// whose session name is 12,000 characters, each end with exit 2 and FILE:LINE:COL, at once and in
// little memory — not SIGSEGV, gigabytes, or exit 3 from a server that closed the connection. No
// database is needed: every case ends before racelab would connect.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/integration/subprocess.h"
#include "tests/temp_dir.h"

namespace racelab::testing {
namespace {

using std::chrono::seconds;

const std::string kBin = RACELAB_BINARY;

// A folder holding one spec file `name` with `text`; returns the folder.
std::string Catalogue(const TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir.File(name), std::ios::binary) << text;
  return dir.path.string();
}

std::string OneSession(size_t steps) {
  std::string text = "session a\n";
  for (size_t i = 0; i < steps; ++i) text += "step a" + std::to_string(i) + " { SELECT 1; }\n";
  return text;
}

TEST(SpecLimitsCli, ListOfAFolderWithAHundredThousandStepSpecIsAnError) {
  TempDir dir;
  // 2.1 MB: over the size limit, so the file is refused before it is parsed.
  std::string folder = Catalogue(dir, "deep.spec", OneSession(100000));
  ProcessResult r = RunProcess({kBin, "list", "--scenarios", folder}, seconds(30));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(dir.File("deep.spec") + ":1:1: the file has "), std::string::npos) << r.err;
  EXPECT_LT(r.elapsed_ms, 5000);
  // Within the size limit the steps limit says where: the 501st step.
  TempDir small;
  folder = Catalogue(small, "deep.spec", OneSession(5000));
  r = RunProcess({kBin, "list", "--scenarios", folder}, seconds(30));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(small.File("deep.spec") + ":502:1: session \"a\": more than 500 steps"),
            std::string::npos)
      << r.err;
}

TEST(SpecLimitsCli, TwoMillionPermutationLinesAreRefusedAtOnce) {
  TempDir dir;
  std::string text = "session a\nstep a0 { SELECT 1; }\nstep a1 { SELECT 2; }\n";
  std::string lines;
  for (int i = 0; i < 2000000; ++i) lines += "permutation a0 a1\n";
  std::string folder = Catalogue(dir, "many.spec", text + lines);
  const std::string size = std::to_string(text.size() + lines.size());
  ProcessResult r = RunProcess({kBin, "list", "--scenarios", folder}, seconds(60));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(dir.File("many.spec") + ":1:1: the file has " + size +
                       " bytes; a spec file may have at most "
                       "262144"),
            std::string::npos)
      << r.err;
  EXPECT_LT(r.elapsed_ms, 5000);
  // Under the size limit, the 10,001st permutation line is the error.
  TempDir small;
  lines.clear();
  for (int i = 0; i < 12000; ++i) lines += "permutation a0 a1\n";
  folder = Catalogue(small, "many.spec", text + lines);
  r = RunProcess({kBin, "list", "--scenarios", folder}, seconds(60));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(small.File("many.spec") +
                       ":10004:1: permutation: more than 10000 permutation lines"),
            std::string::npos)
      << r.err;
}

TEST(SpecLimitsCli, ALongSessionNameIsAUsageErrorBeforeAnyServerStarts) {
  TempDir dir;
  const std::string path = dir.File("long.spec");
  std::ofstream(path) << "session " << std::string(12000, 's') << "\nstep a1 { SELECT 1; }\n";
  // No --dsn: had the file loaded, racelab would start an embedded server; it stops before that.
  ProcessResult r = RunProcess({kBin, "run", path}, seconds(30));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(path + ":1:9: session name \"" + std::string(63, 's') +
                       "…\" is 12000 bytes long; at most "
                       "63 are allowed"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("starting embedded"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace racelab::testing
