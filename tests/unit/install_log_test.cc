// ErrorLinesOfFile (harness/engines/embedded/files.h): an installer's failure message names the
// cause, which mariadb-install-db prints early and follows with generic advice.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "harness/engines/embedded/files.h"
#include "tests/temp_dir.h"

namespace racelab::embedded {
namespace {

// The log of a real failure: two installs sharing /tmp (2026-12-03, MariaDB 10.11).
constexpr const char* kInstallLog =
    "Installing MariaDB/MySQL system tables in '/tmp/b/data' ...\n"
    "2026-12-03 18:50:44 1 [Warning] Could not remove temporary table: "
    "'/tmp/#sql-temptable-3c6d-1-3', error: 2\n"
    "ERROR: 1051  Unknown table 'mysql.tmp_user_sys'\n"
    "2026-12-03 18:50:44 0 [ERROR] Aborting\n"
    "\n"
    "Installation of system tables failed!  Examine the logs in\n"
    "Try '/usr/sbin/mariadbd --help' if you have problems with paths.\n";

TEST(InstallLog, ErrorLinesAreTheOnesNamingAnError) {
  const ::racelab::testing::TempDir temp;
  const std::string log = (temp.path / "install.log").string();
  std::ofstream(log) << kInstallLog;
  EXPECT_EQ(ErrorLinesOfFile(log),
            "2026-12-03 18:50:44 1 [Warning] Could not remove temporary table: "
            "'/tmp/#sql-temptable-3c6d-1-3', error: 2\n"
            "ERROR: 1051  Unknown table 'mysql.tmp_user_sys'\n"
            "2026-12-03 18:50:44 0 [ERROR] Aborting\n");
  EXPECT_EQ(ErrorLinesOfFile(log, 1),
            "2026-12-03 18:50:44 1 [Warning] Could not remove temporary table: "
            "'/tmp/#sql-temptable-3c6d-1-3', error: 2\n");
}

TEST(InstallLog, NoErrorLineAndNoFileGiveNothing) {
  const ::racelab::testing::TempDir temp;
  const std::string log = (temp.path / "install.log").string();
  std::ofstream(log) << "Installing MariaDB/MySQL system tables ...\nOK\n";
  EXPECT_EQ(ErrorLinesOfFile(log), "");
  EXPECT_EQ(ErrorLinesOfFile((temp.path / "missing.log").string()), "");
}

}  // namespace
}  // namespace racelab::embedded
