// ClaimClient: one libpq connection that runs a claim transaction (BEGIN; claim; COMMIT) the way
// pgbench runs a custom script, in each of pgbench's query modes, so racelab-bench and pgbench can
// be compared on identical SQL and protocol (pgbench docs, "-M querymode"):
//   kSimple    — PQsendQuery per statement: one simple-protocol Query message, one round trip each.
//   kExtended  — PQsendQueryParams per statement: Parse/Bind/Describe/Execute/Sync, unnamed
//   statement,
//                one round trip each.
//   kPrepared  — PQsendQueryPrepared per statement, prepared once per connection (PQsendPrepare):
//                Bind/Describe/Execute/Sync, one round trip each.
//   kPipeline  — the three prepared statements sent at once in libpq pipeline mode with one Sync
//                (pgbench's \startpipeline … \endpipeline, which needs -M extended or prepared):
//                one round trip per transaction.
// Deliberately on libpq rather than the engine Session: the point is to choose the wire protocol,
// which the Session interface hides. Every wait has a deadline (poll(2) on the socket); past it the
// transaction is reported as kError and the connection should be dropped.
// Thread-safety: one thread per ClaimClient.
#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <memory>
#include <string>

namespace racelab::bench {

enum class Protocol { kSimple, kExtended, kPrepared, kPipeline };
const char* ProtocolName(Protocol p);  // "simple", "extended", "prepared", "pipeline"

enum class ClaimOutcome {
  kClaimed,  // the claim returned a row and COMMIT committed
  kLost,     // the claim returned no row (another client won it): committed, nothing claimed
  kSerializationFailure,  // SQLSTATE 40001 (rolled back)
  kError,                 // anything else; error() says what
};

class ClaimClient {
 public:
  // Connects (blocking libpq connect, bounded by connect_timeout in the conninfo or 10 s) and, for
  // kPrepared/kPipeline, prepares `begin_sql`, `claim_sql` and "COMMIT". `setup_sql` (may be empty)
  // runs first, e.g. SET search_path. nullptr with *error set on failure.
  static std::unique_ptr<ClaimClient> Connect(const std::string& conninfo, Protocol protocol,
                                              const std::string& setup_sql,
                                              const std::string& begin_sql,
                                              const std::string& claim_sql, std::string* error);
  ~ClaimClient();
  ClaimClient(const ClaimClient&) = delete;
  ClaimClient& operator=(const ClaimClient&) = delete;

  // One transaction, waiting at most `timeout` for each answer.
  ClaimOutcome RunOnce(std::chrono::milliseconds timeout);

  // Runs `sql` (simple protocol; leaves pipeline mode for it), true on success; for setup outside
  // the measured loop.
  bool Exec(const std::string& sql, std::chrono::milliseconds timeout);

  const std::string& error() const { return error_; }

 private:
  ClaimClient(PGconn* conn, Protocol protocol, std::string begin_sql, std::string claim_sql);
  bool Send(int which);  // 0 BEGIN, 1 claim, 2 COMMIT
  // Waits for and reads the results of one statement (up to its NULL); returns the last status and
  // fills rows/sqlstate/tag. False on timeout or a lost connection.
  bool Collect(std::chrono::steady_clock::time_point deadline, int* rows, std::string* sqlstate,
               std::string* tag);
  bool WaitReadable(std::chrono::steady_clock::time_point deadline);
  ClaimOutcome Fail(const std::string& what);

  PGconn* conn_;
  const Protocol protocol_;
  const std::string sql_[3];
  std::string error_;
};

}  // namespace racelab::bench
