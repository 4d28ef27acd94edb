// The PostgreSQL server integration tests talk to (target `racelab_test_env`).
//
//   #include "tests/integration/pg_test_env.h"
//   PGconn* conn = PQconnectdb(racelab::testing::TestConninfo().c_str());
//
// TestConninfo() returns $RACELAB_TEST_DSN when it is set and not empty (run the suite against your
// own server). Otherwise the first call starts ONE EmbeddedCluster for the whole test binary
// (default options: base folder pg::DefaultBaseDir(), so the initdb template is shared with the
// racelab CLI and other test binaries) and later calls return the same conninfo. The cluster is
// stopped by a GoogleTest global Environment's TearDown (registered by a static initializer in
// pg_test_env.cc), or at exit if the tests did not get that far.
//
// If the cluster cannot start, every call records a non-fatal test failure with the reason and
// returns an empty string (tests then fail on connecting); the start is not retried.
//
// Thread-safety: safe to call from any thread, including test worker threads: the cluster is
// started and stopped by a keeper thread of its own (the postmaster's parent-death signal is tied
// to the thread that started it, see harness/engines/postgresql/cluster.h), so the thread that
// first calls it may end. The first call blocks until the server is ready (at most ~3 minutes,
// initdb included).
#pragma once

#include <memory>
#include <string>

#include "harness/engine/engine.h"

namespace racelab::testing {

// libpq conninfo of the test server (see above); empty if it could not be started.
const std::string& TestConninfo();

// The embedded cluster's jsonlog (EmbeddedCluster::server_log_path), after TestConninfo() has
// started it; empty with $RACELAB_TEST_DSN (lock waits then come from the monitor's polls only).
const std::string& TestServerLog();

// The PostgreSQL engine on TestConninfo() as the tests run it: no confinement (the test server's
// superuser), with the server's jsonlog when `server_log` and TestServerLog() has one. nullptr
// (with a test failure recorded) when it cannot be opened.
std::unique_ptr<Engine> TestEngine(bool server_log = true);

}  // namespace racelab::testing
