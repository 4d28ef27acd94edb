// SqliteWorkspaceTest: a GoogleTest fixture with a SQLite engine (its run folder under
// RACELAB_TMPDIR or /tmp) and workspace 1 reset, for the SQLite engine's integration tests.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "harness/engines/sqlite/sqlite_engine.h"

namespace racelab::sqlite {

// A deadline `ms` milliseconds from now.
inline SteadyTime In(long ms) {
  return std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
}

class SqliteWorkspaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions o;
    o.engine = "sqlite";
    auto e = OpenSqliteEngine(o);
    ASSERT_TRUE(e.ok()) << e.status().message();
    engine_.reset(static_cast<SqliteEngine*>(e->release()));
    ws_ = engine_->WorkspaceName(1);
    ASSERT_TRUE(engine_->ResetWorkspace(ws_, In(5000), nullptr).ok());
  }
  // A derived fixture ends its sessions first, then calls this.
  void TearDown() override {
    if (engine_) {
      EXPECT_TRUE(engine_->Close().ok());
    }
  }

  std::unique_ptr<SqliteEngine> engine_;
  std::string ws_;
};

}  // namespace racelab::sqlite
