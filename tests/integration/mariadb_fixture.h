// MariaDbWorkspaceTest: a GoogleTest fixture with one embedded MariaDB server per test suite (its
// version and start time printed) and a fresh workspace (a database) per test, dropped after it;
// Open starts a clean session on it. For the MariaDB engine's integration tests.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "harness/engine/engine.h"
#include "harness/engines/mariadb/engine.h"

namespace racelab {

class MariaDbWorkspaceTest : public ::testing::Test {
 protected:
  using Clock = std::chrono::steady_clock;
  // A deadline `ms` milliseconds from now.
  static SteadyTime In(int ms) { return Clock::now() + std::chrono::milliseconds(ms); }

  static void SetUpTestSuite() {
    EngineOptions options;
    options.engine = "mariadb";
    const Clock::time_point t0 = Clock::now();
    Result<std::unique_ptr<Engine>> e = mariadb::OpenMariaDbEngine(options);
    ASSERT_TRUE(e.ok()) << e.status().message();
    engine_ = e->release();
    std::printf("[ mariadb  ] embedded server %s open in %.0f ms\n",
                engine_->info().server_version.c_str(),
                std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  static void TearDownTestSuite() {
    if (engine_ != nullptr) {
      EXPECT_TRUE(engine_->Close().ok());
      delete engine_;
      engine_ = nullptr;
    }
  }
  void SetUp() override {
    ASSERT_NE(engine_, nullptr);
    ws_ = engine_->WorkspaceName(++n_);
    ASSERT_TRUE(engine_->ResetWorkspace(ws_, In(10000), nullptr).ok());
  }
  // A derived fixture ends its sessions first, then calls this.
  void TearDown() override { EXPECT_TRUE(engine_->DropWorkspace(ws_, In(10000)).ok()); }

  // A session labelled `label`, started clean on the workspace; nullptr (and a failure) if not.
  std::unique_ptr<Session> Open(const std::string& label) {
    Result<std::unique_ptr<Session>> s =
        engine_->OpenSession(kServerNode, label, In(10000), nullptr);
    EXPECT_TRUE(s.ok()) << s.status().message();
    if (!s.ok()) return nullptr;
    bool lost = false;
    Status st = (*s)->StartClean({label, ws_, {}}, In(10000), "test", &lost);
    EXPECT_TRUE(st.ok()) << st.message();
    return std::move(*s);
  }
  static QueryResult Run(Session* s, const std::string& sql, int ms = 10000) {
    return s->Exec(sql, In(ms), 10);
  }

  inline static Engine* engine_ = nullptr;
  inline static int n_ = 0;
  std::string ws_;
};

}  // namespace racelab
