// FakeEngine: a scripted Engine for unit tests of the worker, the step gates and the runner without
// a server (tests only; it has no database semantics, so it is no stand-in for a real engine's
// behaviour — the integration tests against the embedded servers stay the truth).
//
// A test dictates what each statement answers and which statements wait:
//   FakeScript script;
//   script.On("b", "UPDATE").Blocks("a", "COMMIT");  // b's UPDATE waits until a runs COMMIT
//   script.On("b", "SELECT").Returns({"v"}, {{"7"}});  // one row, one column
//   script.On("a", "UPDATE").Fails("40001", "could not serialize access");
// A statement no rule matches succeeds with no rows, its command tag the first word in capitals.
// Rules match by the session's label (the label OpenSession got; "" matches any) and a substring
// of the SQL; the first matching rule wins. A blocked statement is a lock wait the FakeMonitor
// sees (wait_event "fake", blocking: the session it waits for) from the moment it blocks; it ends
// when the awaited session runs the awaited statement, or at its deadline (then it is cancelled:
// SQLSTATE 57014, cancelled_by_deadline), or on Cancel().
// Thread-safety: as the interfaces say; every session and the monitor share the engine's state
// under one mutex.
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "harness/engine/engine.h"

namespace racelab::fake {

struct FakeRule {
  std::string session;        // label, "" = any
  std::string sql_contains;   // substring of the statement
  QueryResult result;         // what it answers (rows/values/sqlstate…)
  std::string until_session;  // non-empty: blocked until that session runs `until_sql`
  std::string until_sql;

  FakeRule& Returns(std::vector<std::string> columns,
                    std::vector<std::vector<std::optional<std::string>>> values);
  FakeRule& Fails(const std::string& sqlstate, const std::string& message);
  FakeRule& Blocks(const std::string& session, const std::string& sql);
};

class FakeScript {
 public:
  FakeRule& On(const std::string& session, const std::string& sql_contains);
  // The first rule for `label` and `sql`, or null.
  const FakeRule* Match(const std::string& label, const std::string& sql) const;

 private:
  std::vector<std::unique_ptr<FakeRule>> rules_;
};

// One statement a session ran, as the engine saw it.
struct FakeExec {
  std::string session;  // label
  std::string sql;
  SteadyTime at;
};

class FakeEngine final : public Engine {
 public:
  explicit FakeEngine(FakeScript script);
  ~FakeEngine() override;

  // Every statement run so far, in order (sessions, control and setup included).
  std::vector<FakeExec> log() const;
  // The labels of sessions now blocked.
  std::vector<std::string> blocked() const;

  std::string name() const override { return "fake"; }
  const Capabilities& capabilities() const override { return caps_; }
  const TargetInfo& info() const override { return info_; }
  Result<std::unique_ptr<Session>> OpenSession(const std::string& node, const std::string& label,
                                               SteadyTime deadline, const StopFlag* stop) override;
  Result<std::unique_ptr<WaitMonitor>> OpenMonitor(std::chrono::microseconds poll,
                                                   SteadyTime deadline,
                                                   const StopFlag* stop) override;
  Status ResetWorkspace(const std::string&, SteadyTime, const StopFlag*) override {
    return Status::Ok();
  }
  Status DropWorkspace(const std::string&, SteadyTime) override { return Status::Ok(); }
  std::string WorkspaceName(int n) const override { return "fake_" + std::to_string(n); }
  std::string BeginSql(IsolationLevel) const override { return "BEGIN"; }
  bool Committed(const QueryResult& commit) const override {
    return commit.command_tag != "ROLLBACK";
  }
  bool IsScenarioError(const QueryResult& r) const override {
    return r.sqlstate.rfind("42", 0) == 0;
  }
  bool IsSessionLost(const QueryResult& r) const override { return r.sqlstate.rfind("08", 0) == 0; }
  Status HoldRunLock(SteadyTime, SteadyTime, const StopFlag*) override { return Status::Ok(); }
  bool ServerAnswers(SteadyTime) override { return true; }
  Result<std::vector<Leftover>> ListLeftovers(SteadyTime) override {
    return std::vector<Leftover>{};
  }
  Status DropLeftovers(const std::vector<Leftover>&, SteadyTime) override { return Status::Ok(); }
  Status Close() override { return Status::Ok(); }

  // Shared by the sessions and the monitor (fake_engine.cc).
  struct State;

 private:
  Capabilities caps_;
  TargetInfo info_;
  std::shared_ptr<State> state_;
};

}  // namespace racelab::fake
