// The worker alone (harness/run/worker.h) on a scripted FakeEngine session: what it publishes and
// how a failed statement ends its session — no runner, no server.
#include <gtest/gtest.h>

#include "harness/run/trial_context.h"
#include "harness/run/worker.h"
#include "tests/unit/fake/fake_run.h"

namespace racelab {
namespace {

using fake::FakeEngine;
using fake::FakeScript;
using Kind = TrialEvent::Kind;

constexpr char kOne[] = R"(name: fake-worker
title: One session
teaches: A failed write ends the session.
setup: CREATE TABLE t (k int)
expect: { sqlstates: {} }
sessions:
  - name: a
    steps:
      - { begin: , name: begin }
      - { sql: "UPDATE t SET k = 1", name: write }
      - { sql: "SELECT k FROM t", name: read }
      - { commit: , name: commit }
)";

TEST(WorkerFakeTest, AFailedStatementRollsBackSkipsTheRestAndEveryStepIsPublished) {
  auto items = fake::PlanText(kOne);
  ASSERT_EQ(items.size(), 1u);
  FakeScript script;
  script.On("a", "UPDATE").Fails("40001", "could not serialize access");
  FakeEngine engine(std::move(script));
  auto conn = engine.OpenSession(kServerNode, "a", std::chrono::steady_clock::now(), nullptr);
  auto monitor = engine.OpenMonitor(std::chrono::microseconds(1000),
                                    std::chrono::steady_clock::now(), nullptr);
  ASSERT_TRUE(conn.ok() && monitor.ok());
  TrialEvents events;
  TrialContext ctx;
  ctx.item = &items[0];
  ctx.origin = std::chrono::steady_clock::now();
  ctx.clock.Start(ctx.origin, std::chrono::milliseconds(10000));
  ctx.monitor = monitor->get();
  ctx.engine = &engine;
  ctx.role_pids["a"] = {(*conn)->connection_id()};
  ctx.sessions = {conn->get()};
  ctx.gate = std::make_unique<FreeGate>();
  ctx.events = &events;
  Worker w(&ctx, 0, &items[0].sessions[0], conn->get());
  WorkerOutput out = w.Run();

  EXPECT_EQ(out.session.sqlstate, "40001");
  EXPECT_FALSE(out.session.committed);
  std::vector<std::string> sql;
  for (const auto& e : engine.log()) sql.push_back(e.sql);
  EXPECT_EQ(sql, (std::vector<std::string>{"BEGIN", "UPDATE t SET k = 1", "ROLLBACK"}));
  const std::vector<StepEvent> steps = FoldSteps(events.events());
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[1].sqlstate, "40001");
  EXPECT_FALSE(steps[1].skipped);
  EXPECT_TRUE(steps[2].skipped);
  EXPECT_TRUE(steps[3].skipped);
  // Each step is a start then an end, in the session's order.
  std::vector<std::string> kinds;
  for (const TrialEvent& e : events.events())
    kinds.push_back(TrialEventKindName(e.kind) + (" " + e.step));
  EXPECT_EQ(kinds, (std::vector<std::string>{"step started begin", "step ended begin",
                                             "step started write", "step ended write",
                                             "step started read", "step ended read",
                                             "step started commit", "step ended commit"}));
}

}  // namespace
}  // namespace racelab
