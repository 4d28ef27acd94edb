// ListObsoleteTemplates / CleanObsoleteTemplates (harness/engines/postgresql/template.h): racelab
// clean removes the initdb templates of earlier racelab versions (template-<major>, 16 MB WAL
// segments) and nothing else of the base folder. ListUnusedTemplates / CleanUnusedTemplates: this
// version's template in a base folder racelab no longer uses, unless a run uses the folder or the
// template (embedded::EnsureTemplate's hold, RemoveTemplateUnlessHeld).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "harness/engines/embedded/run_folders.h"
#include "harness/engines/embedded/template_dir.h"
#include "harness/engines/postgresql/template.h"
#include "tests/temp_dir.h"

namespace racelab::internal {
namespace {

namespace fs = std::filesystem;

TEST(ObsoleteTemplate, OnlyTheOldNamingIsListedAndRemoved) {
  const ::racelab::testing::TempDir temp;  // removed with its files when the test ends
  const fs::path& base = temp.path;
  for (const char* dir :
       {"template-15", "template-15-wal1", "template-15.tmp-1-0", "run-1-0", "template-"}) {
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

// A run that chose the folder (a live run folder: this process's) or holds the template (copying
// it: shared lock) keeps it; then it is listed and removed with a killed maker's leftover, and
// nothing else: the lock file (a run may have it open), an earlier version's template (the other
// cleaner's).
TEST(UnusedTemplate, RemovedUnlessARunUsesTheFolderOrTheTemplate) {
  const ::racelab::testing::TempDir temp;
  const fs::path& base = temp.path;
  const std::string current = (base / "template-15-wal1").string();
  for (const char* dir :
       {"template-15-wal1", "template-15-wal1.tmp-1-0", "template-15", "template-15-wal2"}) {
    fs::create_directories(base / dir);
  }
  std::ofstream(current + "/PG_VERSION") << "15\n";
  const fs::path run = base / "run-1-0";
  fs::create_directories(run);
  ASSERT_TRUE(embedded::WriteOwnerFile(run.string()).ok());
  EXPECT_TRUE(ListUnusedTemplates(base.string()).empty()) << "a live run uses the folder";
  EXPECT_EQ(CleanUnusedTemplates(base.string()), 0);
  EXPECT_TRUE(fs::exists(current));
  fs::remove_all(run);
  {
    embedded::TemplateLock copying;
    ASSERT_TRUE(copying.Acquire(current + ".lock", std::chrono::seconds(5), /*shared=*/true).ok());
    EXPECT_TRUE(ListUnusedTemplates(base.string()).empty()) << "a run is copying it";
    EXPECT_EQ(CleanUnusedTemplates(base.string()), 0);
    EXPECT_TRUE(fs::exists(current + "/PG_VERSION"));
  }
  EXPECT_EQ(ListUnusedTemplates(base.string()), std::vector<std::string>{current});
  EXPECT_EQ(CleanUnusedTemplates(base.string()), 1);
  EXPECT_FALSE(fs::exists(current));
  EXPECT_FALSE(fs::exists(base / "template-15-wal1.tmp-1-0"))
      << "a killed maker's leftover goes too";
  for (const char* kept : {"template-15-wal1.lock", "template-15", "template-15-wal2"}) {
    EXPECT_TRUE(fs::exists(base / kept)) << kept;
  }
  for (const fs::directory_entry& e : fs::directory_iterator(base)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp-clean-"), std::string::npos) << e.path();
  }
}

// A run holds the template from when it finds it complete until it has copied it: clean cannot take
// it then; once released it can, and the next run makes the template again.
TEST(UnusedTemplate, ARunHoldsTheTemplateUntilCopiedAndMakesAgainOneRemoved) {
  const ::racelab::testing::TempDir temp;
  int made = 0;
  embedded::TemplateMaker maker;
  maker.path = (temp.path / "template-15-wal1").string();
  maker.complete = [](const std::string& dir) { return fs::exists(fs::path(dir) / "PG_VERSION"); };
  maker.make = [&made](const std::string& data_dir, const std::string&) {
    ++made;
    std::ofstream(fs::path(data_dir) / "PG_VERSION") << "15\n";
    return Status::Ok();
  };
  maker.lock_timeout = std::chrono::seconds(5);
  embedded::TemplateLock hold;
  Result<embedded::TemplateDir> t = embedded::EnsureTemplate(maker, embedded::ServerUser{}, &hold);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(made, 1);
  EXPECT_FALSE(embedded::TemplateFree(maker.path));
  EXPECT_FALSE(embedded::RemoveTemplateUnlessHeld(maker.path)) << "held while the run copies it";
  EXPECT_TRUE(fs::exists(fs::path(maker.path) / "PG_VERSION"));
  hold.Release();
  EXPECT_TRUE(embedded::RemoveTemplateUnlessHeld(maker.path));
  EXPECT_FALSE(fs::exists(maker.path));
  t = embedded::EnsureTemplate(maker, embedded::ServerUser{}, &hold);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(made, 2) << "removed, so made again";
  EXPECT_TRUE(fs::exists(fs::path(maker.path) / "PG_VERSION"));
}

}  // namespace
}  // namespace racelab::internal
