// ListObsoleteTemplates / CleanObsoleteTemplates (harness/engines/postgresql/template.h): racelab
// clean removes the initdb templates of earlier racelab versions (template-<major>, 16 MB WAL
// segments) and nothing else of the base folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "harness/engines/postgresql/template.h"
#include "tests/temp_dir.h"

namespace racelab::internal {
namespace {

namespace fs = std::filesystem;

TEST(ObsoleteTemplate, OnlyTheOldNamingIsListedAndRemoved) {
  const ::racelab::testing::TempDir temp;  // removed with its files when the test ends
  const fs::path& base = temp.path;
  for (const char* dir : {"template-15", "template-15-wal1", "template-15.tmp-1-0", "run-1-0", "template-"}) {
    fs::create_directories(base / dir);
  }
  std::ofstream(base / "template-15" / "PG_VERSION") << "15\n";
  std::ofstream(base / "template-15.lock") << "";
  const std::string old = (base / "template-15").string();
  EXPECT_EQ(ListObsoleteTemplates(base.string()), std::vector<std::string>{old});
  EXPECT_EQ(CleanObsoleteTemplates(base.string()), 1);
  EXPECT_FALSE(fs::exists(old));
  EXPECT_FALSE(fs::exists(base / "template-15.lock"));
  for (const char* kept : {"template-15-wal1", "template-15.tmp-1-0", "run-1-0", "template-"}) {
    EXPECT_TRUE(fs::exists(base / kept)) << kept;
  }
  EXPECT_TRUE(ListObsoleteTemplates(base.string()).empty());
}

}  // namespace
}  // namespace racelab::internal
