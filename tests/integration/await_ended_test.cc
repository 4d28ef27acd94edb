// `await_ended` on a real PostgreSQL (the embedded cluster): the server ends an idle-in-transaction
// holder (idle_in_transaction_session_timeout) and the waiter goes on at that end — after the
// holder went idle for the timeout, before the holder's own "call" is over, so not after a fixed
// sleep; the holder's next statement fails with 25P03 and that is behaviour, not an infrastructure
// fault. A holder that nothing ends makes the await fail at its timeout_ms with a message that says
// so.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/integration/scenario_runner.h"

namespace racelab::testing {
namespace {

constexpr int kTrials = 10;

std::string Fixture(const std::string& file) {
  return std::string(RACELAB_SOURCE_DIR) + "/tests/fixtures/await_ended/" + file;
}

const StepEvent* Find(const TrialResult& t, const std::string& session, const std::string& step) {
  for (const auto& e : t.events) {
    if (e.session == session && e.step == step) return &e;
  }
  ADD_FAILURE() << session << "/" << step << " not in trial " << t.index + 1;
  return nullptr;
}

TEST(AwaitEnded, ReturnsWhenTheServerEndsTheIdleHolder) {
  const long idle_ms = 200, call_ms = 1500;
  ScenarioRun run = RunScenario(Fixture("idle_timeout.yaml"), kTrials, {}, {kRc});
  ExpectAllPass(run, kTrials, 1);
  if (run.results.size() != 1) return;
  for (const TrialVerdict& t : run.results[0].trial_details) {
    const StepEvent* claim = Find(t.result, "holder", "claim");
    const StepEvent* call = Find(t.result, "holder", "call_out");
    const StepEvent* release = Find(t.result, "holder", "release");
    const StepEvent* gone = Find(t.result, "waiter", "holder_gone");
    if (!claim || !call || !release || !gone) continue;
    EXPECT_EQ(gone->kind, StepKind::kAwaitEnded);
    // The server ended the holder idle_ms after its last statement (which ended after it was sent:
    // the answer may reach racelab late, so not measured from that): the await cannot return
    // earlier…
    EXPECT_GE(gone->completed_us - claim->sent_us, idle_ms * 1000)
        << "trial " << t.result.index + 1;
    // …and returned while the holder was still in its call (a fixed sleep would be call_ms or
    // more).
    EXPECT_LT(gone->completed_us, call->completed_us) << "trial " << t.result.index + 1;
    EXPECT_LT(gone->completed_us - claim->sent_us, call_ms * 1000)
        << "trial " << t.result.index + 1;
    // What the ended session sees at its next statement: PostgreSQL's FATAL, sent when it ended.
    EXPECT_EQ(release->sqlstate, "25P03");
    EXPECT_EQ(release->message, "terminating connection due to idle-in-transaction timeout");
    EXPECT_TRUE(t.result.error.empty())
        << t.result.error;  // behaviour, not an infrastructure fault
  }
}

TEST(AwaitEnded, FailsAtItsTimeoutWhenNothingEndsTheTarget) {
  const long wait_ms = 300;
  ScenarioRun run = RunScenario(Fixture("never_ends.yaml"), 2, {}, {kRc});
  ASSERT_TRUE(run.error.empty()) << run.error;
  ASSERT_EQ(run.results.size(), 1u);
  const ResultSummary& r = run.results[0];
  EXPECT_EQ(r.verdict, Verdict::kError);
  ASSERT_EQ(r.trial_details.size(), 2u);
  for (const TrialVerdict& t : r.trial_details) {
    EXPECT_EQ(t.verdict, Verdict::kError);
    EXPECT_EQ(
        t.result.error.rfind("waiter: await_ended: the server did not end 'holder' within 300 ms "
                             "(1 of 1 still connected)",
                             0),
        0u)
        << t.result.error;
    const StepEvent* gone = Find(t.result, "waiter", "holder_gone");
    const StepEvent* after = Find(t.result, "waiter", "after");
    if (!gone || !after) continue;
    EXPECT_GE(gone->completed_us - gone->sent_us, wait_ms * 1000);
    EXPECT_TRUE(after->skipped);
  }
}

}  // namespace
}  // namespace racelab::testing
