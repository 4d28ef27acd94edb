// harness/run/faults.h and the PostgreSQL engine's errors.h and session_reset.h, the parts that
// need no server: which lost sessions are an infrastructure fault, and the SQL each session runs to
// start a trial.
#include "harness/run/faults.h"

#include <gtest/gtest.h>

#include "harness/engines/postgresql/errors.h"
#include "harness/engines/postgresql/session_reset.h"

namespace racelab::internal {
namespace {

StepEvent Lost(const std::string& session, const std::string& sqlstate, int64_t completed_us) {
  StepEvent ev;
  ev.session = session;
  ev.step = "wait";
  ev.sqlstate = sqlstate;
  ev.message = "terminating connection due to administrator command";
  ev.completed_us = completed_us;
  return ev;
}

using pg::IsSessionLost;
using pg::SessionStartSql;

const std::map<std::string, ConnectionId> kPids = {{"a", {kServerNode, 100}},
                                                   {"b", {kServerNode, 200}}};

// The PostgreSQL engine's rule (Engine::IsSessionLost), as the runner passes it.
std::string OutsideFault(const std::vector<StepEvent>& events,
                         const std::map<std::string, ConnectionId>& pids,
                         const std::vector<OwnTermination>& own) {
  return internal::OutsideFault(events, pids, own,
                                [](const StepEvent& ev) { return IsSessionLost(ev.sqlstate); });
}

TEST(FaultsTest, SessionLostCodes) {
  for (const char* code : {"57P01", "57P02", "57P03", "57P04", "08006", "08003", "08000"}) {
    EXPECT_TRUE(IsSessionLost(code)) << code;
  }
  for (const char* code : {"", "40001", "40P01", "55P03", "57014", "57P05", "25P03", "42601"}) {
    EXPECT_FALSE(IsSessionLost(code)) << code;
  }
}

TEST(FaultsTest, OutsideTerminateIsAFault) {
  std::string fault = OutsideFault({Lost("b", "57P01", 500)}, kPids, {});
  EXPECT_EQ(
      fault,
      "infrastructure fault, not a race outcome: session 'b' lost its backend in step 'wait' "
      "(57P01 "
      "terminating connection due to administrator command), and no terminate step of the scenario "
      "ended it — an operator, a connection pooler or the server did");
  EXPECT_NE(OutsideFault({Lost("a", "08006", 500)}, kPids, {}), "");
}

TEST(FaultsTest, OwnTerminateIsBehaviour) {
  std::vector<OwnTermination> own = {{{kServerNode, 200}, 400}};  // ended b's backend at 400 µs
  EXPECT_EQ(OutsideFault({Lost("b", "57P01", 500), Lost("b", "08006", 600)}, kPids, own), "");
  // ...but not a's, and not b's loss before the terminate step began.
  EXPECT_NE(OutsideFault({Lost("a", "57P01", 500)}, kPids, own), "");
  EXPECT_NE(OutsideFault({Lost("b", "57P01", 300)}, kPids, own), "");
  // The same id on another node is another connection: not b's termination.
  EXPECT_NE(OutsideFault({Lost("b", "57P01", 500)}, kPids, {{{"standby1", 200}, 400}}), "");
  // Other errors are behaviour.
  EXPECT_EQ(OutsideFault({Lost("a", "40001", 500), Lost("a", "", 600)}, kPids, {}), "");
}

TEST(SessionResetTest, StartSqlSetsSearchPathThenSettingsInOrder) {
  SessionStart start{
      "worker.2", "racelab_1_2", {{"lock_timeout", "200ms"}, {"application_name", "it's"}}};
  EXPECT_EQ(SessionStartSql(start),
            "SET search_path TO \"racelab_1_2\";SET lock_timeout = '200ms';"
            "SET application_name = 'it''s';");
}

// A fault of the machine (Engine::IsInfrastructureFault: SQLite's SQLITE_FULL) is named, with the
// engine's code, before any other error of the trial; events without an error never are.
TEST(FaultsTest, MachineFaultNamesTheFirstFaultWithItsEngineCode) {
  StepEvent ok;
  ok.session = "a";
  ok.step = "read";
  StepEvent full = Lost("b", "HY000", 10);
  full.step = "fill";
  full.error_code = "SQLITE_FULL";
  full.message = "database or disk is full";
  auto is_fault = [](const StepEvent& ev) { return ev.error_code == "SQLITE_FULL"; };
  EXPECT_EQ(MachineFault({ok, full}, is_fault),
            "infrastructure fault, not a race outcome: session 'b' step 'fill' failed with "
            "SQLITE_FULL (database "
            "or disk is full): the disk, memory or files under the database failed");
  EXPECT_EQ(MachineFault({ok}, [](const StepEvent&) { return true; }), "");
  EXPECT_EQ(MachineFault({full}, [](const StepEvent&) { return false; }), "");
}

}  // namespace
}  // namespace racelab::internal
