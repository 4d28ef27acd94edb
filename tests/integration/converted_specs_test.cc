// The differential test, extended to `order:` and its markers: the team's spec files
// (tests/fixtures/spec/diff, whose transcripts spec_transcript_test checks against isolationtester
// itself) converted by `racelab convert`'s core into one scenario with `order:` — markers and all —
// and run through the normal runner. Every permutation runs without an order or deadline error, and
// each spec step fails exactly when, and with the error that, isolationtester's transcript shows.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "harness/loader/spec_convert.h"
#include "harness/loader/spec_parser.h"
#include "harness/loader/spec_permutations.h"
#include "tests/integration/scenario_runner.h"
#include "tests/integration/test_files.h"

namespace racelab::testing {
namespace {

std::string DiffDir() { return std::string(RACELAB_SOURCE_DIR) + "/tests/fixtures/spec/diff/"; }

// Per permutation of an isolationtester transcript: "step: primary message" of every failed step,
// in the order the transcript reports them. An ERROR line belongs to the step reported complete
// last (a
// "<waiting ...>" step is not complete).
std::vector<std::vector<std::string>> ErrorsOfTranscript(const std::string& text) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(text);
  std::string line, current;
  while (std::getline(in, line)) {
    if (line.rfind("starting permutation: ", 0) == 0) {
      out.emplace_back();
      current.clear();
    } else if (line.rfind("step ", 0) == 0 && line.find(':') != std::string::npos) {
      current = line.substr(5, line.find(':') - 5);
    }
    if (line.size() >= 13 && line.compare(line.size() - 13, 13, "<waiting ...>") == 0)
      current.clear();
    if (line.rfind("ERROR:  ", 0) == 0 && !out.empty())
      out.back().push_back(current + ": " + line.substr(8));
  }
  return out;
}

// The same from one trial's events: every failed step of a spec session (not setup/teardown).
std::vector<std::string> ErrorsOfTrial(const TrialResult& trial) {
  std::vector<const StepEvent*> failed;
  for (const StepEvent& ev : trial.events) {
    if (!ev.sqlstate.empty() && ev.step != "setup" && ev.step != "teardown") failed.push_back(&ev);
  }
  std::sort(failed.begin(), failed.end(), [](const StepEvent* a, const StepEvent* b) {
    return a->completed_us < b->completed_us;
  });
  std::vector<std::string> out;
  for (const StepEvent* ev : failed) out.push_back(ev->step + ": " + ev->message);
  return out;
}

class ConvertedSpecTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ConvertedSpecTest, EachPermutationFailsWhereIsolationtestersDoes) {
  auto spec = LoadSpecFile(DiffDir() + GetParam() + ".spec");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto orders = ExpandSpecPermutations(*spec);
  ASSERT_TRUE(orders.ok()) << orders.status().message();
  std::vector<NumberedOrder> all;
  for (size_t i = 0; i < orders->size(); ++i) all.push_back(NumberedOrder{i + 1, &(*orders)[i]});
  TempDir dir;
  const std::string path = (dir.path / (GetParam() + ".yaml")).string();
  std::ofstream(path) << ConvertSpec(*spec, all).yaml;
  ScenarioRun run =
      RunScenario(path, 1, {}, {kRc});  // the file's one level (the spec's SQL sets its own)
  ASSERT_TRUE(run.error.empty()) << run.error;
  const auto expected = ErrorsOfTranscript(Slurp(DiffDir() + GetParam() + ".out"));
  ASSERT_EQ(run.results.size(), orders->size());
  ASSERT_EQ(expected.size(), orders->size());
  for (size_t i = 0; i < run.results.size(); ++i) {
    const ResultSummary& r = run.results[i];
    EXPECT_EQ(r.verdict, Verdict::kPass)
        << "permutation " << i + 1 << ": " << r.error << Failures(r);
    ASSERT_EQ(r.trial_details.size(), 1u);
    EXPECT_EQ(ErrorsOfTrial(r.trial_details[0].result), expected[i])
        << "permutation " << i + 1 << ": " << (*orders)[i].name;
  }
}

INSTANTIATE_TEST_SUITE_P(OwnSpecs, ConvertedSpecTest,
                         ::testing::Values("locks", "deadlock", "results", "notices"));

}  // namespace
}  // namespace racelab::testing
