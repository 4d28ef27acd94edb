#include "bench/pg_claim_client.h"

#include <poll.h>

#include <utility>

namespace racelab::bench {

namespace {

using Clock = std::chrono::steady_clock;

const char* const kStatementNames[3] = {"racelab_begin", "racelab_claim", "racelab_commit"};

}  // namespace

const char* ProtocolName(Protocol p) {
  switch (p) {
    case Protocol::kSimple:
      return "simple";
    case Protocol::kExtended:
      return "extended";
    case Protocol::kPrepared:
      return "prepared";
    case Protocol::kPipeline:
      return "pipeline";
  }
  return "?";
}

ClaimClient::ClaimClient(PGconn* conn, Protocol protocol, std::string begin_sql,
                         std::string claim_sql)
    : conn_(conn),
      protocol_(protocol),
      sql_{std::move(begin_sql), std::move(claim_sql), "COMMIT"} {}

ClaimClient::~ClaimClient() {
  if (conn_ != nullptr) PQfinish(conn_);
}

std::unique_ptr<ClaimClient> ClaimClient::Connect(const std::string& conninfo, Protocol protocol,
                                                  const std::string& setup_sql,
                                                  const std::string& begin_sql,
                                                  const std::string& claim_sql,
                                                  std::string* error) {
  PGconn* conn = PQconnectdb(conninfo.c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    *error = PQerrorMessage(conn);
    PQfinish(conn);
    return nullptr;
  }
  std::unique_ptr<ClaimClient> c(new ClaimClient(conn, protocol, begin_sql, claim_sql));
  constexpr std::chrono::seconds kSetup{30};
  if (!setup_sql.empty() && !c->Exec(setup_sql, kSetup)) {
    *error = c->error_;
    return nullptr;
  }
  if (protocol == Protocol::kPrepared || protocol == Protocol::kPipeline) {
    for (int i = 0; i < 3; ++i) {
      int rows;
      std::string sqlstate, tag;
      if (!PQsendPrepare(conn, kStatementNames[i], c->sql_[i].c_str(), 0, nullptr) ||
          !c->Collect(Clock::now() + kSetup, &rows, &sqlstate, &tag) || !sqlstate.empty()) {
        *error = "prepare '" + c->sql_[i] +
                 "': " + (sqlstate.empty() ? c->error_ : sqlstate + " " + c->error_);
        return nullptr;
      }
    }
  }
  if (protocol == Protocol::kPipeline && !PQenterPipelineMode(conn)) {
    *error = PQerrorMessage(conn);
    return nullptr;
  }
  return c;
}

bool ClaimClient::Exec(const std::string& sql, std::chrono::milliseconds timeout) {
  int rows;
  std::string sqlstate, tag;
  const bool pipeline = PQpipelineStatus(conn_) != PQ_PIPELINE_OFF;
  if ((pipeline && !PQexitPipelineMode(conn_)) || !PQsendQuery(conn_, sql.c_str())) {
    error_ = PQerrorMessage(conn_);
    return false;
  }
  const bool ok = Collect(Clock::now() + timeout, &rows, &sqlstate, &tag) && sqlstate.empty();
  if (pipeline && !PQenterPipelineMode(conn_)) {
    error_ = PQerrorMessage(conn_);
    return false;
  }
  return ok;
}

bool ClaimClient::Send(int which) {
  switch (protocol_) {
    case Protocol::kSimple:
      return PQsendQuery(conn_, sql_[which].c_str()) == 1;
    case Protocol::kExtended:
      return PQsendQueryParams(conn_, sql_[which].c_str(), 0, nullptr, nullptr, nullptr, nullptr,
                               0) == 1;
    case Protocol::kPrepared:
    case Protocol::kPipeline:
      return PQsendQueryPrepared(conn_, kStatementNames[which], 0, nullptr, nullptr, nullptr, 0) ==
             1;
  }
  return false;
}

bool ClaimClient::WaitReadable(Clock::time_point deadline) {
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left < 0) {
      error_ = "no answer within the deadline";
      return false;
    }
    pollfd p{PQsocket(conn_), POLLIN, 0};
    int n = poll(&p, 1, static_cast<int>(left) + 1);
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) {
      error_ = "poll failed";
      return false;
    }
  }
}

bool ClaimClient::Collect(Clock::time_point deadline, int* rows, std::string* sqlstate,
                          std::string* tag) {
  *rows = 0;
  for (;;) {
    while (PQisBusy(conn_)) {
      if (!WaitReadable(deadline)) return false;
      if (!PQconsumeInput(conn_)) {
        error_ = PQerrorMessage(conn_);
        return false;
      }
    }
    PGresult* r = PQgetResult(conn_);
    if (r == nullptr) return true;  // this statement's results are all in
    const ExecStatusType st = PQresultStatus(r);
    if (st == PGRES_TUPLES_OK) *rows = PQntuples(r);
    if (st == PGRES_FATAL_ERROR && sqlstate->empty()) {
      const char* s = PQresultErrorField(r, PG_DIAG_SQLSTATE);
      *sqlstate = s != nullptr ? s : "?????";
      error_ = PQresultErrorMessage(r);
    } else if (st == PGRES_PIPELINE_ABORTED && sqlstate->empty()) {
      *sqlstate = "pipeline aborted";
    }
    *tag = PQcmdStatus(r);
    PQclear(r);
    if (st == PGRES_PIPELINE_SYNC) return true;  // a Sync's result stands alone (no NULL after it)
  }
}

ClaimOutcome ClaimClient::Fail(const std::string& what) {
  error_ = what + ": " + error_;
  return ClaimOutcome::kError;
}

ClaimOutcome ClaimClient::RunOnce(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  int rows[3] = {0, 0, 0};
  std::string sqlstate[3], tag[3];
  if (protocol_ == Protocol::kPipeline) {
    for (int i = 0; i < 3; ++i) {
      if (!Send(i)) return Fail(std::string("send: ") + PQerrorMessage(conn_));
    }
    if (!PQpipelineSync(conn_)) return Fail(std::string("sync: ") + PQerrorMessage(conn_));
    for (int i = 0; i < 3; ++i) {
      if (!Collect(deadline, &rows[i], &sqlstate[i], &tag[i])) return Fail(sql_[i]);
    }
    int sync_rows;
    std::string sync_state, sync_tag;
    if (!Collect(deadline, &sync_rows, &sync_state, &sync_tag)) return Fail("sync");
  } else {
    for (int i = 0; i < 3; ++i) {
      if (!Send(i)) return Fail(std::string("send: ") + PQerrorMessage(conn_));
      if (!Collect(deadline, &rows[i], &sqlstate[i], &tag[i])) return Fail(sql_[i]);
      if (!sqlstate[i].empty()) break;
    }
  }
  for (int i = 0; i < 3; ++i) {
    if (sqlstate[i].empty() || sqlstate[i] == "pipeline aborted") continue;
    // A failed statement leaves the transaction aborted (or, after COMMIT, already ended).
    if (PQtransactionStatus(conn_) != PQTRANS_IDLE) {
      const bool sent =
          protocol_ == Protocol::kPipeline
              ? PQsendQueryParams(conn_, "ROLLBACK", 0, nullptr, nullptr, nullptr, nullptr, 0) &&
                    PQpipelineSync(conn_)
              : PQsendQuery(conn_, "ROLLBACK");
      int r;
      std::string s, t;
      if (!sent || !Collect(deadline, &r, &s, &t)) return Fail("ROLLBACK");
      if (protocol_ == Protocol::kPipeline && !Collect(deadline, &r, &s, &t))
        return Fail("ROLLBACK sync");
    }
    if (sqlstate[i] == "40001") return ClaimOutcome::kSerializationFailure;
    error_ = sqlstate[i] + " " + error_;
    return ClaimOutcome::kError;
  }
  if (tag[2] != "COMMIT") return ClaimOutcome::kError;
  return rows[1] == 1 ? ClaimOutcome::kClaimed : ClaimOutcome::kLost;
}

}  // namespace racelab::bench
