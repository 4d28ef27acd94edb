// A later `racelab run` into the same --out folder never changes an earlier run's reports without
// saying so (harness/cli/report_folder.h): a run that ran trials is moved into previous/ (said on
// stderr) by the next run, whatever that run does; a run that ran no trial (a mistyped scenario, a
// --dsn that cannot be reached) never pushes it out of previous/; and a run into a folder another
// racelab run holds is refused before it writes anything. SQLite runs (no server to start) and one
// --dsn that nothing listens on keep it to seconds.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>

#include "tests/integration/subprocess.h"
#include "tests/integration/test_files.h"

namespace racelab::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kBin = RACELAB_BINARY;
const char* const kReportFiles[] = {"racelab.json", "racelab.md", "racelab-summary.md",
                                    "racelab.junit.xml", "racelab.html"};

// Every report file of `dir`, by name.
std::map<std::string, std::string> Reports(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const char* name : kReportFiles) {
    if (fs::exists(dir / name)) files[name] = Slurp(dir / name);
  }
  return files;
}

ProcessResult GoodRun(const TempDir& out, const TempDir& base) {
  return RunProcess({kBin, "run", "--engine", "sqlite", "sqlite-guarded-cas-claim", "--trials", "2",
                     "--out", out.path.string()},
                    seconds(120), {{"RACELAB_TMPDIR", base.path.string()}});
}

TEST(ReportFolder, ALaterRunNeverReplacesAnEarlierRunsReportsWithoutSayingSo) {
  TempDir out, base;
  ProcessResult good = GoodRun(out, base);
  ASSERT_EQ(good.exit_code, 0) << good.err;
  EXPECT_THAT(good.err, Not(HasSubstr("earlier run"))) << "an empty folder: nothing to say";
  const std::map<std::string, std::string> first = Reports(out.path);
  ASSERT_EQ(first.size(), 5u);

  // A mistyped scenario name: exit 2. Its error report is written (CI finds its JUnit); the good
  // run's reports are moved aside, byte for byte, and stderr says where.
  ProcessResult typo =
      RunProcess({kBin, "run", "guarded-cas-clam", "--out", out.path.string()}, seconds(60));
  EXPECT_EQ(typo.exit_code, 2) << typo.err;
  EXPECT_THAT(typo.err, HasSubstr(out.path.string() + "/ held the reports of an earlier run ("));
  EXPECT_THAT(typo.err, HasSubstr(", 1 result): moved to " + out.path.string() + "/previous/"))
      << typo.err;
  EXPECT_EQ(Reports(out.path / "previous"), first);
  EXPECT_THAT(Slurp(out.path / "racelab.json"), HasSubstr("\"run_error\""));

  // A --dsn nothing listens on: exit 3. It replaces only the run that ran no trial, says so, and
  // previous/ keeps the good run.
  ProcessResult unreachable = RunProcess(
      {kBin, "run", "guarded-cas-claim", "--dsn", "postgresql://racelab@127.0.0.1:1/postgres",
       "--connect-timeout-ms", "2000", "--out", out.path.string()},
      seconds(60));
  EXPECT_EQ(unreachable.exit_code, 3) << unreachable.err;
  EXPECT_THAT(unreachable.err, HasSubstr("replacing the reports in " + out.path.string() +
                                         "/ of an earlier run that ran no trial ("));
  EXPECT_THAT(unreachable.err, HasSubstr("/previous/ keeps the run before it ("))
      << unreachable.err;
  EXPECT_EQ(Reports(out.path / "previous"), first);

  // The next good run replaces the error report; previous/ still holds the first good run.
  ProcessResult again = GoodRun(out, base);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.err, HasSubstr("of an earlier run that ran no trial")) << again.err;
  EXPECT_EQ(Reports(out.path / "previous"), first);
  EXPECT_THAT(Slurp(out.path / "racelab.json"), Not(HasSubstr("\"run_error\"")));

  // A third good run moves the second into previous/, and says that it replaces the first there.
  const std::map<std::string, std::string> second = Reports(out.path);
  ProcessResult third = GoodRun(out, base);
  ASSERT_EQ(third.exit_code, 0) << third.err;
  EXPECT_THAT(third.err, HasSubstr(", replacing those of ")) << third.err;
  EXPECT_EQ(Reports(out.path / "previous"), second);
}

TEST(ReportFolder, ARunIntoAFolderAnotherRunHoldsIsRefusedAndWritesNothing) {
  TempDir out, base;
  ProcessResult good = GoodRun(out, base);
  ASSERT_EQ(good.exit_code, 0) << good.err;
  const std::map<std::string, std::string> before = Reports(out.path);
  // The hold a running racelab has on its folder (flock on the folder), taken here.
  const int fd = open(out.path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);
  ProcessResult busy = GoodRun(out, base);
  ProcessResult typo =
      RunProcess({kBin, "run", "guarded-cas-clam", "--out", out.path.string()}, seconds(60));
  close(fd);
  EXPECT_EQ(busy.exit_code, 2) << busy.err;
  EXPECT_THAT(busy.err, HasSubstr("another racelab run is writing its reports there")) << busy.err;
  EXPECT_THAT(busy.err, Not(HasSubstr("[1/"))) << "refused before any trial";
  EXPECT_EQ(typo.exit_code, 2) << typo.err;
  EXPECT_THAT(typo.err, HasSubstr("another racelab run is writing its reports there")) << typo.err;
  EXPECT_EQ(Reports(out.path), before);
  EXPECT_FALSE(fs::exists(out.path / "previous"));
}

}  // namespace
}  // namespace racelab::testing
