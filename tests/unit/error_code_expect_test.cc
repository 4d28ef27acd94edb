// `expect.sqlstates` keys may be an engine's own error code (docs/scenario-format.md "Errors by the
// engine's own code"): a failed statement counts under its code when the expectation lists it, else
// under its SQLSTATE.
#include <gtest/gtest.h>

#include "harness/eval/evaluator.h"

namespace racelab {
namespace {

PlanItem Item(std::map<std::string, CountRange> sqlstates) {
  PlanItem item;
  item.scenario = "codes";
  for (int i = 1; i <= 2; ++i) {
    PlannedSession s;
    s.role = "worker";
    s.index = i;
    s.label = "worker." + std::to_string(i);
    item.sessions.push_back(s);
  }
  item.expect.sqlstates = std::move(sqlstates);
  return item;
}

TrialResult OneDeadlockAndOneLockTimeout() {
  TrialResult r;
  StepEvent a;
  a.session = "worker.1";
  a.step = "write";
  a.sqlstate = "40001";
  a.error_code = "1213";  // MariaDB ER_LOCK_DEADLOCK
  StepEvent b = a;
  b.session = "worker.2";
  b.sqlstate = "HY000";
  b.error_code = "1205";  // ER_LOCK_WAIT_TIMEOUT: SQLSTATE HY000, the catch-all
  r.events = {a, b};
  for (int i = 1; i <= 2; ++i) {
    SessionResult s;
    s.label = "worker." + std::to_string(i);
    s.role = "worker";
    r.sessions.push_back(s);
  }
  return r;
}

TEST(ErrorCodeExpectTest, EngineCodesAndSqlstatesBothMatch) {
  TrialVerdict v = EvaluateTrial(Item({{"1213", 1}, {"1205", 1}}), OneDeadlockAndOneLockTimeout());
  EXPECT_EQ(v.verdict, Verdict::kPass);
  v = EvaluateTrial(Item({{"40001", 1}, {"1205", 1}}), OneDeadlockAndOneLockTimeout());
  EXPECT_EQ(v.verdict, Verdict::kPass)
      << "1213 counts under its SQLSTATE when only 40001 is listed";
}

TEST(ErrorCodeExpectTest, AnUnlistedCodeIsStillASurprise) {
  TrialVerdict v = EvaluateTrial(Item({{"1213", 1}}), OneDeadlockAndOneLockTimeout());
  EXPECT_EQ(v.verdict, Verdict::kFail);
  bool saw = false;
  for (const Check& c : v.checks) {
    if (c.text == "no other SQLSTATE") saw = !c.passed && c.detail == "saw 1205×1";
  }
  EXPECT_TRUE(saw)
      << "the 1205 (HY000) nobody expected fails the trial, named by its code (error_key.h)";
  v = EvaluateTrial(Item({{"1213", 2}, {"1205", 1}}), OneDeadlockAndOneLockTimeout());
  EXPECT_EQ(v.verdict, Verdict::kFail);
}

}  // namespace
}  // namespace racelab
