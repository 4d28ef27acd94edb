// The loader's `exec:` and `pauses:` (docs/race-your-own-code.md): the program found when the file
// loads, its pause points as steps, and each mistake refused at its line, column and field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "harness/loader/planner.h"
#include "harness/loader/scenario_loader.h"
#include "tests/unit/loader_text.h"

namespace racelab {
namespace {

using testing::EditLines;
using testing::ErrorOf;

const std::vector<std::string> kBase = {
    "name: exec-example",                             // 1
    "title: t",                                       // 2
    "teaches: t",                                     // 3
    "isolation: read committed",                      // 4
    "sessions:",                                      // 5
    "  - name: worker",                               // 6
    "    count: 2",                                   // 7
    "    exec: [sh, -c, 'exit 0']",                   // 8
    "    pauses: [after_read, before_commit]",        // 9
    "expect:",                                        // 10
    "  final: [ { sql: 'SELECT 1', equals: '1' } ]",  // 11
};

TEST(ExecLoader, AProgramOnPathAndItsPausePointsBecomeSteps) {
  Result<Scenario> s = LoadScenarioText(EditLines(kBase, {}), "t.yaml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  const SessionSpec& w = s->sessions[0];
  EXPECT_EQ(w.exec, (std::vector<std::string>{"sh", "-c", "exit 0"}));
  EXPECT_TRUE(std::filesystem::path(w.program).is_absolute()) << w.program;
  EXPECT_EQ(w.exec_dir, std::filesystem::current_path().lexically_normal().string());
  ASSERT_EQ(w.steps.size(), 3u);
  EXPECT_EQ(w.steps[0].name, "start");
  EXPECT_EQ(w.steps[1].name, "after_read");
  EXPECT_EQ(w.steps[1].barrier, "after_read");
  EXPECT_EQ(w.steps[2].kind, StepKind::kProgram);

  PlanOptions po;
  po.trials = 1;
  auto items = ExpandScenario(*s, po);
  ASSERT_TRUE(items.ok()) << items.status().message();
  ASSERT_EQ(items->front().sessions.size(), 2u);
  EXPECT_EQ(items->front().sessions[1].label, "worker.2");
  EXPECT_EQ(items->front().sessions[1].exec.front(), "sh");
}

TEST(ExecLoader, MistakesAreRefusedAtTheirField) {
  const std::string not_found =
      "t.yaml:8:12: sessions[0].exec[0]: program 'racelab-no-such-program' not found on PATH (";
  EXPECT_EQ(ErrorOf(EditLines(kBase, {{8, "    exec: [racelab-no-such-program, x]"}}))
                .substr(0, not_found.size()),
            not_found);
  EXPECT_EQ(ErrorOf(EditLines(kBase, {{8, "    exec: [./nope.py]"}})),
            "t.yaml:8:12: sessions[0].exec[0]: program './nope.py' not found (" +
                (std::filesystem::current_path() / "nope.py").string() + " does not exist)");
  EXPECT_EQ(ErrorOf(EditLines(kBase, {{9, "    pauses: [after_read, start]"}})),
            "t.yaml:9:26: sessions[0].pauses[1]: 'start' is not a pause point name (expected "
            "[a-z][a-z0-9_]*, not 'start', e.g. after_read)");
  EXPECT_EQ(ErrorOf(EditLines(kBase, {{9, "    pauses: [a, a]"}})),
            "t.yaml:9:17: sessions[0].pauses[1]: pause point 'a' is listed twice");
  EXPECT_EQ(ErrorOf(EditLines(kBase, {{8, "    steps: [ { sql: 'SELECT 1' } ]"}})),
            "t.yaml:9:13: sessions[0].pauses: pauses are the pause points of a program: give the "
            "session exec:");
  EXPECT_EQ(ErrorOf(EditLines(kBase, {{9, "    steps: [ { sql: 'SELECT 1' } ]"}})),
            "t.yaml:8:11: sessions[0].exec: a session runs either steps or a program (exec): not "
            "both");
  EXPECT_EQ(ErrorOf(EditLines(kBase, {{8, "    exec: []"}})),
            "t.yaml:8:11: sessions[0].exec: list the program and its arguments, e.g. exec: "
            "[/usr/bin/python3, worker.py]");
  EXPECT_EQ(
      ErrorOf(EditLines(kBase, {{8, "    # no steps"}, {9, "    # no exec"}}))
              .find("missing required key 'steps' (or exec: [program, args…] to run a program)") !=
          std::string::npos,
      true);
}

TEST(ExecLoader, ARelativeProgramIsTheFilesFolders) {
  const auto dir = std::filesystem::temp_directory_path() / "racelab-exec-loader-test";
  std::filesystem::create_directories(dir);
  const auto script = dir / "w.sh";
  std::ofstream(script) << "#!/bin/racelab-no-such-shell\n";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  const std::string file = (dir / "s.yaml").string();
  const std::string text = EditLines(kBase, {{8, "    exec: [./w.sh]"}});
  Result<Scenario> s = LoadScenarioText(text, file);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            file + ":8:12: sessions[0].exec[0]: program '" + script.string() +
                "' names the interpreter /bin/racelab-no-such-shell (its #! line), which is not "
                "installed");
  std::ofstream(script) << "#!/bin/sh\nexit 0\n";
  s = LoadScenarioText(text, file);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->sessions[0].program, script.string());
  EXPECT_EQ(s->sessions[0].exec_dir, dir.string());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace racelab
