// `reset:` (harness/run/workspace_reset.h) on a real PostgreSQL (the embedded cluster): a reset
// that restores setup's state is used instead of a fresh schema, and one that does not — rows, a
// sequence, a table a trial made — stops the run before any trial runs in what it left. Each
// leaking fixture's trials would fail their final checks if racelab used the reset blindly; the
// test asserts the scenario error naming the object instead.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "tests/integration/scenario_runner.h"

namespace racelab::testing {
namespace {

// Two workspaces are used in turn (the background reset), so 6 trials reset each of them twice.
constexpr int kResetTrials = 6;

std::string Fixture(const std::string& file) {
  return std::string(RACELAB_SOURCE_DIR) + "/tests/fixtures/clean_trials/" + file;
}

TEST(SessionReset, AResetThatRestoresSetupIsUsedAndLeavesNothingOfTheTrial) {
  ScenarioRun run = RunScenario(Fixture("reset_workspace.yaml"), kResetTrials, {}, {kRc});
  ExpectAllPass(run, kResetTrials, 1);  // rows {0, 1, 2} and the sequence at 2 in every trial
  if (run.results.size() != 1) return;
  // The xmin of setup's row 0, per trial: the same in every trial of one workspace (the reset kept
  // setup's row; a fresh schema would insert it again), different between the two workspaces.
  std::map<int, std::string> born;
  for (const auto& t : run.results[0].trial_details) {
    for (const auto& e : t.result.events) {
      if (e.step == "born" && e.captured.count("born") != 0)
        born[t.result.index] = e.captured.at("born");
    }
  }
  ASSERT_EQ(born.size(), static_cast<size_t>(kResetTrials));
  for (int i = 2; i < kResetTrials; ++i)
    EXPECT_EQ(born[i], born[i % 2]) << "trial " << i + 1 << " was set up again";
  EXPECT_NE(born[0], born[1]) << "both trials ran in one workspace";
}

TEST(SessionReset, AResetThatChangesTheCatalogueButRestoresTheStateIsUsed) {
  ScenarioRun run = RunScenario(Fixture("reset_truncate.yaml"), kResetTrials, {}, {kRc});
  ExpectAllPass(run, kResetTrials, 1);
}

// The check's version query reads the table by name: after DROP and CREATE, PostgreSQL plans it
// again.
TEST(SessionReset, AResetThatRecreatesSetupsTableIsUsed) {
  ScenarioRun run = RunScenario(Fixture("reset_recreates_table.yaml"), kResetTrials, {}, {kRc});
  ExpectAllPass(run, kResetTrials, 1);
}

// Runs a leaking fixture: its first two trials (one per workspace, each fresh) pass; the reset
// after trial 1 must be refused with a scenario error naming `object`, so trial 3 never runs.
void ExpectRefused(const std::string& file, const std::string& object) {
  ScenarioRun run = RunScenario(Fixture(file), kResetTrials, {}, {kRc});
  ASSERT_TRUE(run.error.empty()) << run.error;
  ASSERT_EQ(run.results.size(), 1u);
  const ResultSummary& r = run.results[0];
  EXPECT_EQ(r.verdict, Verdict::kError);
  EXPECT_NE(r.error.find("reset: after trial 1 the workspace is not as setup left it"),
            std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find(object), std::string::npos) << r.error;
  EXPECT_EQ(r.trial_details.size(), 2u) << "a trial ran in a workspace the reset did not restore";
  for (const auto& t : r.trial_details) EXPECT_EQ(t.verdict, Verdict::kPass) << Failures(r);
}

TEST(SessionReset, AResetThatLeavesTheSequenceAdvancedIsRefused) {
  ExpectRefused("reset_forgets_sequence.yaml", "relation tick differs");
}

TEST(SessionReset, AResetThatLeavesATrialsRowsIsRefused) {
  ExpectRefused("reset_forgets_rows.yaml", "relation marks differs");
}

TEST(SessionReset, AResetThatLeavesATableATrialMadeIsRefused) {
  ExpectRefused("reset_keeps_table.yaml", "relation extra is new");
}

TEST(SessionReset, AResetThatLeavesAFunctionATrialMadeIsRefused) {
  ExpectRefused("reset_keeps_function.yaml", "function made() is new");
}

TEST(SessionReset, AResetThatLeavesAFunctionATrialReplacedIsRefused) {
  ExpectRefused("reset_replaces_function.yaml", "function label() differs");
}

// The version query cannot run (a table it reads is gone): a difference, not a reason to set up
// fresh.
TEST(SessionReset, AResetThatDropsATableSetupMadeIsRefused) {
  ExpectRefused("reset_drops_table.yaml", "relation aux is gone");
}

}  // namespace
}  // namespace racelab::testing
