#include "tests/integration/pg_test_env.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

#include "harness/engines/postgresql/cluster.h"
#include "harness/engines/postgresql/pg_engine.h"

namespace racelab::testing {
namespace {

using pg::ClusterOptions;
using pg::EmbeddedCluster;

// Bound on a first start: initdb (120 s deadline) plus the server's readiness (30 s).
constexpr std::chrono::seconds kStartTimeout(180);

// Owns the test binary's EmbeddedCluster on a thread of its own, which lives until Shutdown(), so
// the postmaster's parent-death signal fires only when the process ends.
class ClusterKeeper {
 public:
  ClusterKeeper() : thread_([this] { Run(); }) {}
  ~ClusterKeeper() { Shutdown(); }
  ClusterKeeper(const ClusterKeeper&) = delete;
  ClusterKeeper& operator=(const ClusterKeeper&) = delete;

  // Waits (at most kStartTimeout) for the start; returns the conninfo, or empty with `*error` set.
  std::string Conninfo(std::string* error) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!cv_.wait_for(lock, kStartTimeout, [this] { return started_; })) {
      *error = "the embedded PostgreSQL cluster did not start within 180 s";
    } else {
      *error = error_;
    }
    return conninfo_;
  }

  // The server log path once started (empty before, or if the start failed).
  std::string ServerLog() {
    std::lock_guard<std::mutex> lock(mu_);
    return server_log_;
  }

  // Stops the cluster and joins the keeper thread. Idempotent.
  void Shutdown() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Run() {
    Result<std::unique_ptr<EmbeddedCluster>> cluster = EmbeddedCluster::Start(ClusterOptions{});
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (cluster.ok()) {
        conninfo_ = (*cluster)->conninfo();
        server_log_ = (*cluster)->server_log_path();
      } else {
        error_ = "cannot start the embedded PostgreSQL cluster: " + cluster.status().message();
      }
      started_ = true;
    }
    cv_.notify_all();
    if (!cluster.ok()) return;
    {
      // Lives as long as the test binary: Shutdown() comes from TearDown or the static destructor.
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_; });
    }
    (*cluster)->Stop();
  }

  std::mutex mu_;
  std::condition_variable cv_;
  bool started_ = false;    // GUARDED_BY(mu_)
  bool stop_ = false;       // GUARDED_BY(mu_)
  std::string conninfo_;    // GUARDED_BY(mu_); constant once started_
  std::string server_log_;  // GUARDED_BY(mu_); constant once started_
  std::string error_;       // GUARDED_BY(mu_); constant once started_
  std::thread thread_;      // last: starts after the members above exist
};

std::mutex keeper_mu;
std::unique_ptr<ClusterKeeper> keeper;  // GUARDED_BY(keeper_mu); destroyed (stopped) at exit

void StopKeeper() {
  std::unique_ptr<ClusterKeeper> k;
  {
    std::lock_guard<std::mutex> lock(keeper_mu);
    k = std::move(keeper);
  }
  k.reset();  // Shutdown() outside the lock
}

class EmbeddedClusterEnvironment : public ::testing::Environment {
 public:
  void TearDown() override { StopKeeper(); }
};

// gtest owns (and deletes) the environment.
const ::testing::Environment* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new EmbeddedClusterEnvironment);

}  // namespace

const std::string& TestConninfo() {
  static const std::string dsn = [] {
    const char* env = std::getenv("RACELAB_TEST_DSN");
    return std::string(env != nullptr ? env : "");
  }();
  if (!dsn.empty()) return dsn;
  // Written once (under keeper_mu) before any caller sees it, never changed: the reference stays
  // valid after the keeper is gone.
  static std::string conninfo;
  ClusterKeeper* k;
  {
    std::lock_guard<std::mutex> lock(keeper_mu);
    if (!keeper) keeper = std::make_unique<ClusterKeeper>();
    k = keeper.get();
  }
  std::string error;
  std::string started = k->Conninfo(&error);
  if (!error.empty()) {
    ADD_FAILURE() << error;
    static const std::string kNone;
    return kNone;
  }
  std::lock_guard<std::mutex> lock(keeper_mu);
  if (conninfo.empty()) conninfo = started;
  return conninfo;
}

const std::string& TestServerLog() {
  static const std::string kNone;
  if (TestConninfo().empty()) return kNone;
  const char* env = std::getenv("RACELAB_TEST_DSN");
  if (env != nullptr && *env != '\0') return kNone;
  static const std::string path = [] {
    std::lock_guard<std::mutex> lock(keeper_mu);
    return keeper ? keeper->ServerLog() : std::string();
  }();
  return path;
}

std::unique_ptr<Engine> TestEngine(bool server_log) {
  pg::PgEngineOptions o;
  o.dsn = TestConninfo();
  o.confine = false;
  o.allow_superuser = true;
  o.connect_timeout_ms = 10000;
  if (server_log) o.server_log_path = TestServerLog();
  auto engine = pg::OpenPostgresEngine(o);
  if (!engine.ok()) {
    ADD_FAILURE() << "cannot open the test engine: " << engine.status().message();
    return nullptr;
  }
  return std::move(engine.value());
}

}  // namespace racelab::testing
