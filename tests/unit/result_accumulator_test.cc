// ResultAccumulator: what each --details policy keeps, which trial is the representative, and that
// the aggregates do not depend on the policy (harness/eval/result_accumulator.h).

#include "harness/eval/result_accumulator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "harness/eval/evaluator.h"

namespace racelab {
namespace {

using ::testing::ElementsAre;

// Trial `index`: verdict `v`, a lock wait when `waited`, 1000 µs long, one check.
TrialVerdict Trial(int index, Verdict v, bool waited = false) {
  TrialVerdict t;
  t.result.index = index;
  t.result.duration_us = 1000;
  StepEvent e;
  e.session = "worker.1";
  e.step = "claim";
  e.lock_wait = waited;
  e.lock_wait_us = waited ? 2000 : 0;
  if (v == Verdict::kError) t.result.error = "lost connection";
  t.result.events.push_back(e);
  t.checks.push_back(
      Check{"winners = 1", v == Verdict::kPass, v == Verdict::kPass ? "" : "winners = 2"});
  t.verdict = v;
  return t;
}

std::vector<int> KeptNumbers(const ResultSummary& s) {
  std::vector<int> out;
  for (const TrialVerdict& t : s.trial_details) out.push_back(t.result.index);
  return out;
}

ResultSummary Accumulate(DetailsPolicy policy, const std::vector<TrialVerdict>& trials,
                         const PlanItem& item) {
  ResultAccumulator acc(item, policy);
  for (const TrialVerdict& t : trials) acc.Add(t);
  return acc.Finish("");
}

TEST(ResultAccumulator, PolicyNameRoundTrips) {
  for (const char* name : {"none", "failed", "all"}) {
    ASSERT_TRUE(ParseDetailsPolicy(name).has_value()) << name;
    EXPECT_STREQ(DetailsPolicyName(*ParseDetailsPolicy(name)), name);
  }
  EXPECT_FALSE(ParseDetailsPolicy("some").has_value());
}

TEST(ResultAccumulator, FailedKeepsOnlyTheRepresentativeWhenEveryTrialPasses) {
  PlanItem item;
  // The first trial with a lock wait is the representative (trial 3 here), not the first trial.
  std::vector<TrialVerdict> trials = {Trial(0, Verdict::kPass), Trial(1, Verdict::kPass),
                                      Trial(2, Verdict::kPass, true),
                                      Trial(3, Verdict::kPass, true)};
  ResultSummary s = Accumulate(DetailsPolicy::kFailed, trials, item);
  EXPECT_THAT(KeptNumbers(s), ElementsAre(2));
  EXPECT_EQ(s.representative_trial, 0);
  EXPECT_EQ(s.trial_details_omitted, 3);
  EXPECT_EQ(s.trials, 4);
  EXPECT_EQ(s.duration_us, 4000) << "every trial's duration, kept or not";
  EXPECT_EQ(s.blocked_ms.count, 2u) << "aggregates over every trial";
  EXPECT_EQ(s.verdict, Verdict::kPass);
}

TEST(ResultAccumulator, FailedKeepsFailingTrialsUpToTheCapAndTheFirstIsTheRepresentative) {
  PlanItem item;
  std::vector<TrialVerdict> trials = {Trial(0, Verdict::kPass, true)};
  for (int i = 1; i <= kMaxFailedTrialsKept + 5; ++i)
    trials.push_back(Trial(i, i == 3 ? Verdict::kError : Verdict::kFail));
  ResultSummary s = Accumulate(DetailsPolicy::kFailed, trials, item);
  ASSERT_EQ(static_cast<int>(s.trial_details.size()), kMaxFailedTrialsKept);
  EXPECT_EQ(s.trial_details.front().result.index, 1)
      << "the first failing trial, not the passing one that waited";
  EXPECT_EQ(s.trial_details.back().result.index, kMaxFailedTrialsKept);
  EXPECT_EQ(s.representative_trial, 0);
  EXPECT_EQ(s.trial_details_omitted, 6);
  EXPECT_EQ(s.expectations[0].failed, kMaxFailedTrialsKept + 5) << "tallies count every trial";
  EXPECT_EQ(s.verdict, Verdict::kError);
  EXPECT_EQ(s.error, "trial 4: lost connection");
}

TEST(ResultAccumulator, NoneKeepsNoTrialAndAllKeepsEvery) {
  PlanItem item;
  std::vector<TrialVerdict> trials = {Trial(0, Verdict::kPass), Trial(1, Verdict::kFail),
                                      Trial(2, Verdict::kPass)};
  ResultSummary none = Accumulate(DetailsPolicy::kNone, trials, item);
  EXPECT_TRUE(none.trial_details.empty());
  EXPECT_EQ(none.trial_details_omitted, 3);
  EXPECT_EQ(none.verdict, Verdict::kFail);
  ResultSummary all = Accumulate(DetailsPolicy::kAll, trials, item);
  EXPECT_THAT(KeptNumbers(all), ElementsAre(0, 1, 2));
  EXPECT_EQ(all.representative_trial, 1);
  EXPECT_EQ(all.trial_details_omitted, 0);
  // The aggregates are the policy's business no more than Summarize's.
  ResultSummary summarized = Summarize(item, trials, "");
  for (const ResultSummary* s : {&none, &all}) {
    EXPECT_EQ(s->winners, summarized.winners);
    EXPECT_EQ(s->expectations[0].failed, summarized.expectations[0].failed);
    EXPECT_EQ(s->duration_us, summarized.duration_us);
  }
}

TEST(ResultAccumulator, ItemErrorMakesTheVerdictError) {
  PlanItem item;
  ResultAccumulator acc(item, DetailsPolicy::kFailed);
  acc.Add(Trial(0, Verdict::kPass));
  ResultSummary s = acc.Finish("before trial 2 of 3: Lost connection to server");
  EXPECT_EQ(s.verdict, Verdict::kError);
  EXPECT_EQ(s.error, "before trial 2 of 3: Lost connection to server");
  EXPECT_TRUE(s.interrupted.empty());
  EXPECT_THAT(KeptNumbers(s), ElementsAre(0));
}

// A stop request (SIGINT/SIGTERM) is not a fault: the trials that ran all passed -> `interrupted`,
// not `error` (a CI gate tells "stopped" from "the database faulted"); a trial that failed or
// errored before it keeps its verdict, and the result says it was cut short either way.
TEST(ResultAccumulator, AnInterruptIsItsOwnVerdictUnlessATrialThatRanFailedOrErred) {
  PlanItem item;
  const std::string why = "interrupted during trial 3 of 20; that trial is not evaluated";
  ResultAccumulator passed(item, DetailsPolicy::kFailed);
  passed.Add(Trial(0, Verdict::kPass));
  passed.Add(Trial(1, Verdict::kPass));
  ResultSummary s = passed.FinishInterrupted(why);
  EXPECT_EQ(s.verdict, Verdict::kInterrupted);
  EXPECT_STREQ(VerdictName(s.verdict), "interrupted");
  EXPECT_EQ(s.interrupted, why);
  EXPECT_TRUE(s.error.empty()) << s.error;
  EXPECT_EQ(s.trials, 2);
  EXPECT_EQ(s.expectations.at(0).passed, 2);

  ResultAccumulator none(item, DetailsPolicy::kFailed);
  EXPECT_EQ(none.FinishInterrupted("interrupted before trial 1 of 20").verdict,
            Verdict::kInterrupted);

  ResultAccumulator failed(item, DetailsPolicy::kFailed);
  failed.Add(Trial(0, Verdict::kPass));
  failed.Add(Trial(1, Verdict::kFail));
  ResultSummary f = failed.FinishInterrupted(why);
  EXPECT_EQ(f.verdict, Verdict::kFail)
      << "a failed expectation is a regression, interrupted or not";
  EXPECT_EQ(f.interrupted, why);

  ResultAccumulator erred(item, DetailsPolicy::kFailed);
  erred.Add(Trial(0, Verdict::kError));
  ResultSummary e = erred.FinishInterrupted(why);
  EXPECT_EQ(e.verdict, Verdict::kError);
  EXPECT_EQ(e.error, "trial 1: lost connection");
  EXPECT_EQ(e.interrupted, why);
}

}  // namespace
}  // namespace racelab
