#include "harness/loader/catalogue.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "harness/loader/scenario_loader.h"
#include "tests/temp_dir.h"

namespace racelab {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

std::string ScenarioText(const std::string& name, const std::string& tags) {
  return "name: " + name + "\ntitle: T\nteaches: L\ntags: [" + tags +
         "]\nsessions:\n  - name: solo\n    steps: [begin, commit]\nexpect: { sqlstates: {} }\n";
}

class CatalogueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Write("b.yaml", ScenarioText("beta", "locks"));
    Write("a.yml", ScenarioText("alpha", "claim, locks"));
    Write("c-file.yaml", ScenarioText("gamma", "faults"));
    Write("notes.txt", "not a scenario");
  }

  std::string Write(const std::string& file, const std::string& text) {
    fs::path path = dir_ / file;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path.string();
  }
  static std::vector<std::string> Names(const std::vector<Scenario>& scenarios) {
    std::vector<std::string> names;
    for (const Scenario& s : scenarios) names.push_back(s.name);
    return names;
  }

  const ::racelab::testing::TempDir temp_;  // this test's, removed with its files when it ends
  const fs::path dir_ = temp_.path;
};

TEST_F(CatalogueTest, NoSelectorsLoadsTheFolderSortedByFileName) {
  Result<std::vector<Scenario>> r = LoadScenarios({}, dir_.string());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_THAT(Names(*r), ElementsAre("alpha", "beta", "gamma"));
  EXPECT_EQ((*r)[0].loc.file, (dir_ / "a.yml").string());
}

TEST_F(CatalogueTest, SelectsByNameFileAndFolder) {
  std::string extra = Write("more/d.yaml", ScenarioText("delta", ""));
  Result<std::vector<Scenario>> r =
      LoadScenarios({"gamma", "beta", extra, (dir_ / "more").string(), "alpha"}, dir_.string());
  ASSERT_TRUE(r.ok()) << r.status().message();
  // delta is selected twice (file and folder): kept once.
  EXPECT_THAT(Names(*r), ElementsAre("gamma", "beta", "delta", "alpha"));
}

TEST_F(CatalogueTest, UnknownNameListsTheCatalogue) {
  Result<std::vector<Scenario>> r = LoadScenarios({"betta"}, dir_.string());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUsage);
  EXPECT_THAT(r.status().message(),
              StartsWith("unknown scenario 'betta' (did you mean 'beta'? scenarios in "));
  EXPECT_THAT(r.status().message(), HasSubstr("alpha, beta, gamma"));
}

TEST_F(CatalogueTest, MissingFileOrFolder) {
  Result<std::vector<Scenario>> r = LoadScenarios({"nope/x.yaml"}, dir_.string());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "nope/x.yaml: no such scenario file or folder");
  r = LoadScenarios({}, (dir_ / "absent").string());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), StartsWith("scenario folder '"));
}

TEST_F(CatalogueTest, ANamedFolderWithoutScenarioFilesIsAnError) {
  fs::create_directories(dir_ / "empty.yaml");  // a folder, even with a scenario file's name
  Write("only-notes/readme.txt", "no scenario here");
  for (const std::string& folder :
       {(dir_ / "empty.yaml").string(), (dir_ / "only-notes").string()}) {
    Result<std::vector<Scenario>> r = LoadScenarios({folder}, dir_.string());
    ASSERT_FALSE(r.ok()) << folder;
    EXPECT_EQ(r.status().code(), StatusCode::kUsage);
    EXPECT_EQ(r.status().message(), folder + ": no scenario file (*.yaml, *.yml) in this folder");
  }
}

TEST_F(CatalogueTest, AFileThatCannotBeOpenedSaysWhy) {
  // Root reads a mode-000 file, so the reason tried here is one root meets too.
  std::string file = Write("plain.yaml", ScenarioText("plain", "")) + "/inside.yaml";
  Result<Scenario> r = LoadScenarioFile(file);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), file + ": cannot open scenario file: Not a directory");
}

TEST_F(CatalogueTest, ANulByteIsRefusedWhereItIs) {
  std::string text = ScenarioText("nul", "");
  text.replace(text.find("title: T"), 8, std::string("title: T\0x", 10));
  std::string file = Write("nul.yaml", text);
  Result<std::vector<Scenario>> r = LoadScenarios({file}, dir_.string());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), StartsWith(file + ":2:9: a NUL byte (0x00)"));
}

TEST_F(CatalogueTest, DuplicateNamesAreAnError) {
  std::string copy = Write("zz.yaml", ScenarioText("alpha", ""));
  Result<std::vector<Scenario>> r = LoadScenarios({}, dir_.string());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), StartsWith("duplicate scenario name 'alpha': "));
  EXPECT_THAT(r.status().message(), HasSubstr(copy));
}

TEST_F(CatalogueTest, BrokenFileReportsItsLine) {
  std::string broken = Write("broken.yaml", "name: broken\ntitle: T\nteaches: L\nsesions: []\n");
  Result<std::vector<Scenario>> r = LoadScenarios({}, dir_.string());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), StartsWith(broken + ":1:1: sessions: missing required key"));
  // Looking up another name still works and mentions the broken file.
  r = LoadScenarios({"beta"}, dir_.string());
  ASSERT_TRUE(r.ok()) << r.status().message();
  r = LoadScenarios({"zeta"}, dir_.string());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("these files did not load: broken.yaml"));
}

// Like a compiler: every file that does not load is reported (file:line:col and field), not just
// the first, and nothing loads — a run of part of what was asked would look like a run of all of
// it.
TEST_F(CatalogueTest, EveryBrokenFileOfAFolderIsReportedAndNoneRuns) {
  std::string first = Write("broken.yaml", "name: broken\ntitle: T\nteaches: L\nsesions: []\n");
  std::string second = Write("d-typo.yaml", ScenarioText("delta", "").replace(0, 4, "nmae"));
  Result<std::vector<Scenario>> r = LoadScenarios({}, dir_.string());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUsage);
  const std::string& m = r.status().message();
  EXPECT_THAT(m, StartsWith(first + ":1:1: sessions: missing required key")) << m;
  EXPECT_THAT(m, HasSubstr("\n" + second + ":1:1: nmae: unknown key 'nmae' (did you mean 'name'?"))
      << m;
  EXPECT_THAT(m, ::testing::EndsWith(
                     "\n2 of 5 scenario files did not load (each error above); nothing was loaded: "
                     "fix them, or select the files that load"))
      << m;
  // The same when they are named one by one, or by their folder among other selectors.
  r = LoadScenarios({first, (dir_ / "b.yaml").string(), second}, dir_.string());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr(second + ":1:1:"));
  EXPECT_THAT(r.status().message(),
              ::testing::EndsWith("\n2 of 3 scenario files did not load (each error above); "
                                  "nothing was loaded: fix them, or select the files that load"));
  // One file, one problem: its error alone, as before.
  r = LoadScenarios({first}, dir_.string());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), Not(HasSubstr("did not load")));
}

TEST_F(CatalogueTest, FilterByTags) {
  Result<std::vector<Scenario>> r = LoadScenarios({}, dir_.string());
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(Names(FilterByTags(*r, {"locks"})), ElementsAre("alpha", "beta"));
  EXPECT_THAT(Names(FilterByTags(*r, {"claim", "faults"})), ElementsAre("alpha", "gamma"));
  EXPECT_THAT(Names(FilterByTags(*r, {})), ElementsAre("alpha", "beta", "gamma"));
  EXPECT_TRUE(FilterByTags(*r, {"none"}).empty());
}

TEST_F(CatalogueTest, DefaultScenarioDirHonoursTheEnvironment) {
  ::setenv("RACELAB_SCENARIOS", dir_.c_str(), 1);
  EXPECT_EQ(DefaultScenarioDir(), dir_.string());
  ::unsetenv("RACELAB_SCENARIOS");
  // No path of the build machine is compiled in: the fallback is next to the running executable.
  const std::string fallback = DefaultScenarioDir();
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe").string();
  EXPECT_EQ(fallback,
            std::filesystem::path(InstalledScenarioDirs(exe)[0]).lexically_normal().string());
  EXPECT_NE(fallback, std::string(RACELAB_SOURCE_DIR) + "/scenarios");
  // --scenarios comes before the environment.
  ::setenv("RACELAB_SCENARIOS", "/from/the/environment", 1);
  SetScenarioDirFlag(dir_.string());
  EXPECT_EQ(DefaultScenarioDir(), dir_.string());
  SetScenarioDirFlag("");
  EXPECT_EQ(DefaultScenarioDir(), "/from/the/environment");
  ::unsetenv("RACELAB_SCENARIOS");
}

TEST(CatalogueSearchTest, InstalledCatalogueIsRelativeToTheExecutable) {
  EXPECT_THAT(InstalledScenarioDirs("/usr/bin/racelab"),
              ElementsAre("/usr/share/racelab/scenarios", "/usr/bin/share/racelab/scenarios"));
  EXPECT_THAT(
      InstalledScenarioDirs("/opt/rl/bin/racelab"),
      ElementsAre("/opt/rl/share/racelab/scenarios", "/opt/rl/bin/share/racelab/scenarios"));
}

}  // namespace
}  // namespace racelab
