#include "harness/engines/postgresql/connection.h"

#include <fmt/format.h>
#include <poll.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>
#include <utility>

#include "harness/engine/run_queue_delay.h"
#include "harness/engines/postgresql/application_name.h"
#include "harness/engines/postgresql/dsn.h"
#include "harness/engines/postgresql/session_reset.h"

namespace racelab::pg {
namespace {

// Sent with PQputCopyEnd; the server answers "COPY from stdin failed: <this>" (SQLSTATE 57014).
constexpr const char* kCopyInRefusal = "racelab sends no COPY data";
constexpr const char* kCopyInMessage =
    "COPY FROM STDIN is not supported: racelab has no data to send; insert the rows with INSERT, "
    "or COPY FROM a file on the server";

constexpr std::chrono::milliseconds kAfterStopGrace(1000);
// How long any wait on a silent server (below) may last, in ms.
constexpr std::chrono::milliseconds kSilentServerWait(1000);

// Servers that did not take a cancel request within its grace — a stopped server (SIGSTOP, a paused
// VM) or a dead peer; a live postmaster takes one in milliseconds even when every backend is busy.
// Keyed "host:port" as libpq names them. While a server is listed, every wait on it (connecting, a
// statement, a cancel) lasts at most kSilentServerWait, so the statements and cleanup that follow
// give up in a second each instead of a deadline each; any answer from the server takes it off.
class SilentServers {
 public:
  static SilentServers& Get() {
    static SilentServers* servers = new SilentServers();  // never destroyed: used until exit
    return *servers;
  }
  void Mark(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    if (keys_.insert(key).second) count_.fetch_add(1);
  }
  void Clear(const std::string& key) {
    if (count_.load() == 0) return;  // the common case: no lock per statement
    std::lock_guard<std::mutex> lock(mu_);
    if (keys_.erase(key) > 0) count_.fetch_sub(1);
  }
  bool Has(const std::string& key) {
    if (count_.load() == 0) return false;
    std::lock_guard<std::mutex> lock(mu_);
    return keys_.count(key) > 0;
  }

 private:
  std::mutex mu_;
  std::set<std::string> keys_;  // guarded by mu_
  std::atomic<int> count_{0};
};

std::string ServerKey(PGconn* conn) {
  const char* host = PQhost(conn);
  const char* port = PQport(conn);
  return std::string(host != nullptr ? host : "") + ":" + (port != nullptr ? port : "");
}

SteadyTime CapIfSilent(const std::string& key, SteadyTime deadline) {
  if (!SilentServers::Get().Has(key)) return deadline;
  return std::min(deadline, std::chrono::steady_clock::now() + kSilentServerWait);
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Fills sqlstate/message/rows from one PGresult. The first error wins.
void Absorb(PGresult* res, size_t max_rows, QueryResult* out) {
  ExecStatusType st = PQresultStatus(res);
  if (st == PGRES_TUPLES_OK || st == PGRES_SINGLE_TUPLE) {
    out->rows = PQntuples(res);
    out->columns.clear();
    out->values.clear();
    for (int c = 0; c < PQnfields(res); ++c) out->columns.emplace_back(PQfname(res, c));
    for (int r = 0; r < PQntuples(res) && static_cast<size_t>(r) < max_rows; ++r) {
      auto& row = out->values.emplace_back();
      for (int c = 0; c < PQnfields(res); ++c) {
        row.push_back(PQgetisnull(res, r, c) ? std::nullopt
                                             : std::optional<std::string>(PQgetvalue(res, r, c)));
      }
    }
  } else if (st == PGRES_COMMAND_OK) {
    const char* n = PQcmdTuples(res);
    out->rows = (n != nullptr && *n != '\0') ? std::atol(n) : -1;
  } else if (st == PGRES_EMPTY_QUERY) {
    out->rows = -1;
  } else if (out->sqlstate.empty()) {
    const char* code = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    const char* primary = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
    out->sqlstate = code != nullptr ? code : kSqlstateConnectionFailure;
    out->message = primary != nullptr ? primary : Trim(PQresultErrorMessage(res));
    const char* detail = PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL);
    if (detail != nullptr) out->detail = detail;
  }
  const char* tag = PQcmdStatus(res);
  if (tag != nullptr && *tag != '\0') out->command_tag = tag;
}

}  // namespace

std::string QuoteIdent(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  return out + "\"";
}

Connection::Connection(PGconn* conn, const StopFlag* stop) : conn_(conn), stop_(stop) {
  backend_pid_ = PQbackendPID(conn_);
}

Connection::~Connection() { Close(); }

void Connection::Close() {
  {
    boost::lock_guard<boost::mutex> lock(cancel_mu_);
    cancel_.reset();  // a helper thread still sending a request keeps its own reference
  }
  if (conn_ != nullptr) PQfinish(conn_);
  conn_ = nullptr;
}

Result<std::unique_ptr<Connection>> Connection::Open(const std::string& conninfo,
                                                     const std::string& application_name,
                                                     SteadyTime deadline, const StopFlag* stop) {
  // Cut and cleaned: a long label would make the start-up packet too large for the server.
  const std::string app = ApplicationName(application_name);
  const char* keys[] = {"dbname", "application_name", nullptr};
  const char* vals[] = {conninfo.c_str(), app.c_str(), nullptr};
  PGconn* conn = PQconnectStartParams(keys, vals, /*expand_dbname=*/1);
  if (conn == nullptr) return Status::Database("cannot allocate a libpq connection");
  std::unique_ptr<Connection> c(new Connection(conn, stop));
  c->backend_pid_ = 0;
  c->server_ = ServerKey(conn);
  deadline = CapIfSilent(c->server_, deadline);
  PostgresPollingStatusType ps = PGRES_POLLING_WRITING;
  while (PQstatus(conn) != CONNECTION_BAD) {
    if (ps == PGRES_POLLING_OK) break;
    if (ps == PGRES_POLLING_FAILED) break;
    if (!c->WaitSocket(ps == PGRES_POLLING_WRITING, deadline, stop)) {
      std::string why = (stop != nullptr && stop->stop_requested()) ? "interrupted" : "timed out";
      return Status::Database("could not connect to " + RedactDsn(conninfo) + ": " + why);
    }
    ps = PQconnectPoll(conn);
  }
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string msg = RedactLibpqMessage(Trim(PQerrorMessage(conn)), conninfo);
    return Status::Database("could not connect to " + RedactDsn(conninfo) + ": " + msg);
  }
  c->backend_pid_ = PQbackendPID(conn);
  c->local_backend_ = IsLocalBackend(PQsocket(conn), c->backend_pid_);
  SilentServers::Get().Clear(c->server_);
  // Server notices (e.g. "drop cascades to …") are not racelab's output: the library never prints.
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  if (PGcancel* cancel = PQgetCancel(conn)) {
    boost::lock_guard<boost::mutex> lock(c->cancel_mu_);
    c->cancel_ = std::shared_ptr<PGcancel>(cancel, PQfreeCancel);
  }
  if (PQsetnonblocking(conn, 1) != 0)
    return Status::Database("cannot make the connection non-blocking");
  return c;
}

// Waits until the socket is ready, the deadline passes (false) or stop is requested (false).
bool Connection::WaitSocket(bool for_write, SteadyTime until, const StopFlag* stop) {
  for (;;) {
    if (stop != nullptr && stop->stop_requested()) return false;
    auto now = std::chrono::steady_clock::now();
    if (now >= until) return false;
    auto slice = std::min<std::chrono::steady_clock::duration>(until - now, kStopPollSlice);
    int ms =
        static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(slice).count()) + 1;
    pollfd pfd{PQsocket(conn_), static_cast<short>(for_write ? POLLOUT : POLLIN), 0};
    if (pfd.fd < 0) return false;
    const int64_t before = ThreadRunDelayUs();
    int r = poll(&pfd, 1, ms);
    if (r > 0) return true;
    const int64_t after = before < 0 ? -1 : ThreadRunDelayUs();
    // The slice ended without data: a stop-flag check, off the answer's path — unless the answer
    // arrived while this thread waited for the CPU to wake from it (then it is ready right now).
    if (r == 0 && poll(&pfd, 1, 0) > 0) return true;
    if (after >= before) idle_poll_delay_us_ += after - before;
  }
}

bool Connection::Cancel(std::chrono::milliseconds wait) {
  std::shared_ptr<CancelCall> call;
  {
    boost::lock_guard<boost::mutex> lock(cancel_mu_);
    if (!cancel_) return false;
    bool busy = false;
    if (in_flight_) {
      std::lock_guard<std::mutex> call_lock(in_flight_->mu);
      busy = !in_flight_->done;
    }
    if (busy) {
      call = in_flight_;
    } else {
      call = std::make_shared<CancelCall>();
      // PQcancel connects, sends the request and reads until the server closes: no timeout in
      // libpq 15 (PQcancelStart came in 17). The thread owns what it touches; detached, it never
      // holds up exit.
      try {
        std::thread([call, handle = cancel_] {
          char err[256];
          bool sent = PQcancel(handle.get(), err, sizeof err) != 0;
          std::lock_guard<std::mutex> call_lock(call->mu);
          call->done = true;
          call->sent = sent;
          call->cv.notify_all();
        }).detach();
      } catch (const std::system_error&) {
        return false;  // no thread to spare: the caller's deadline handles it
      }
      in_flight_ = call;
    }
  }
  std::unique_lock<std::mutex> call_lock(call->mu);
  call->cv.wait_for(call_lock, wait, [&] { return call->done; });
  return call->done && call->sent;
}

std::string Connection::EncryptPassword(const std::string& password, const std::string& user) {
  if (conn_ == nullptr) return "";
  // An explicit algorithm: libpq then computes it locally, without querying password_encryption.
  char* verifier = PQencryptPasswordConn(conn_, password.c_str(), user.c_str(), "scram-sha-256");
  if (verifier == nullptr) return "";
  std::string out = verifier;
  PQfreemem(verifier);
  return out;
}

bool Connection::healthy() const {
  if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK) return false;
  PGTransactionStatusType ts = PQtransactionStatus(conn_);
  return ts == PQTRANS_IDLE;
}

bool Connection::in_transaction() const {
  if (conn_ == nullptr) return false;
  PGTransactionStatusType ts = PQtransactionStatus(conn_);
  return ts == PQTRANS_INTRANS || ts == PQTRANS_INERROR;
}

bool Connection::Flush(SteadyTime until) {
  for (int f = PQflush(conn_); f != 0; f = PQflush(conn_)) {
    if (f < 0 || !WaitSocket(true, until, stop_)) return false;
  }
  return true;
}

bool Connection::RefuseCopyIn(SteadyTime until) {
  for (;;) {
    int r = PQputCopyEnd(conn_, kCopyInRefusal);
    if (r < 0) return false;
    if (r > 0) return Flush(until);
    if (!WaitSocket(true, until, stop_)) return false;  // 0: libpq's buffer is full (non-blocking)
  }
}

QueryResult Connection::Lost(QueryResult out, const std::string& why) {
  if (out.sqlstate.empty() || out.cancelled_by_deadline) {  // keep a server error that came first
    out.sqlstate = kSqlstateConnectionFailure;
    out.message = why;
  }
  out.connection_lost = true;
  Close();
  return out;
}

QueryResult Connection::Exec(const std::string& sql, SteadyTime deadline, size_t max_rows,
                             std::chrono::milliseconds cancel_grace) {
  QueryResult out;
  auto lost = [&](const std::string& why) { return Lost(std::move(out), why); };
  if (conn_ == nullptr) return lost("connection is closed");
  const int64_t run_delay_start = ThreadRunDelayUs();
  idle_poll_delay_us_ = 0;
  if (SilentServers::Get().Has(server_)) {
    deadline = CapIfSilent(server_, deadline);
    cancel_grace = std::min(cancel_grace, kSilentServerWait);
  }
  if (PQsendQuery(conn_, sql.c_str()) == 0) return lost(Trim(PQerrorMessage(conn_)));
  if (!Flush(deadline)) return lost("could not send the statement");
  return Receive(deadline, max_rows, cancel_grace, run_delay_start);
}

bool Connection::Send(const std::string& sql, SteadyTime deadline) {
  if (conn_ == nullptr || PQtransactionStatus(conn_) != PQTRANS_IDLE) return false;
  if (SilentServers::Get().Has(server_)) deadline = CapIfSilent(server_, deadline);
  if (PQsendQuery(conn_, sql.c_str()) == 0 || !Flush(deadline)) {
    Close();  // the next Exec or Finish reports it lost
    return false;
  }
  return true;
}

QueryResult Connection::Finish(SteadyTime deadline, size_t max_rows,
                               std::chrono::milliseconds cancel_grace) {
  if (conn_ == nullptr || PQtransactionStatus(conn_) != PQTRANS_ACTIVE) {
    QueryResult out;
    out.sqlstate = kSqlstateConnectionFailure;
    out.message = conn_ == nullptr ? "connection is closed" : "no statement was sent";
    out.connection_lost = conn_ == nullptr;
    return out;
  }
  if (SilentServers::Get().Has(server_)) {
    deadline = CapIfSilent(server_, deadline);
    cancel_grace = std::min(cancel_grace, kSilentServerWait);
  }
  idle_poll_delay_us_ = 0;
  return Receive(deadline, max_rows, cancel_grace, -1);
}

QueryResult Connection::Receive(SteadyTime deadline, size_t max_rows,
                                std::chrono::milliseconds cancel_grace, int64_t run_delay_start) {
  QueryResult out;
  auto lost = [&](const std::string& why) { return Lost(std::move(out), why); };
  SteadyTime hard_deadline = deadline;
  bool copy_out = false;  // inside a COPY TO STDOUT: rows to drain (and drop) before its result
  for (;;) {
    if (PQconsumeInput(conn_) == 0) return lost(Trim(PQerrorMessage(conn_)));
    bool drained = false;  // nothing more without waiting for the server
    while (!drained) {
      if (copy_out) {
        char* row = nullptr;
        int n = PQgetCopyData(conn_, &row, /*async=*/1);
        if (row != nullptr) PQfreemem(row);
        if (n == 0) {
          drained = true;
        } else if (n < 0) {
          copy_out = false;  // -1: done, -2: failed; either way PQgetResult tells the outcome
        }
        continue;
      }
      if (PQisBusy(conn_) != 0) break;
      PGresult* res = PQgetResult(conn_);
      if (res == nullptr) {
        if (PQstatus(conn_) != CONNECTION_OK) return lost(Trim(PQerrorMessage(conn_)));
        const int64_t run_delay_end = run_delay_start < 0 ? -1 : ThreadRunDelayUs();
        if (run_delay_end >= run_delay_start) {
          out.client_late_us =
              std::max<int64_t>(0, run_delay_end - run_delay_start - idle_poll_delay_us_);
        }
        SilentServers::Get().Clear(server_);  // it answered
        return out;
      }
      ExecStatusType st = PQresultStatus(res);
      if (st == PGRES_COPY_IN) {
        PQclear(res);
        if (out.sqlstate
                .empty()) {  // the server's "COPY from stdin failed" follows; ours is clearer
          out.sqlstate = kSqlstateNotSupported;
          out.message = kCopyInMessage;
          out.refused = true;
        }
        if (!RefuseCopyIn(hard_deadline)) return lost("could not end a COPY FROM STDIN");
        continue;
      }
      if (st == PGRES_COPY_OUT) {
        PQclear(res);
        copy_out = true;
        continue;
      }
      if (st == PGRES_COPY_BOTH) {  // only replication connections start one; racelab never does
        PQclear(res);
        return lost(
            "the server started a COPY BOTH (replication) exchange, which racelab does not speak");
      }
      Absorb(res, max_rows, &out);
      PQclear(res);
      if (PQstatus(conn_) != CONNECTION_OK) {
        out.connection_lost = true;
        Close();
        return out;
      }
    }
    // After a cancel, the grace period is not cut short by a stop request.
    if (WaitSocket(false, hard_deadline, out.cancelled_by_deadline ? nullptr : stop_)) continue;
    if (out.cancelled_by_deadline) return lost("no answer after a cancel request");
    out.cancelled_by_deadline = true;
    // After a stop request racelab is on its way out: a short grace (the connection is closed after
    // it, which ends the backend too).
    if (stop_ != nullptr && stop_->stop_requested())
      cancel_grace = std::min(cancel_grace, kAfterStopGrace);
    hard_deadline = std::chrono::steady_clock::now() + cancel_grace;
    if (!Cancel(cancel_grace)) {
      SilentServers::Get().Mark(server_);
      return lost(fmt::format("the server did not take a cancel request within {} ms",
                              cancel_grace.count()));
    }
  }
}

Status Connection::StartClean(const SessionStart& start, SteadyTime deadline,
                              const std::string& file, bool* connection_lost) {
  bool ignored = false;
  if (connection_lost == nullptr) connection_lost = &ignored;
  return pg::StartClean(this, start, deadline, file, connection_lost, denied_setting_hint_);
}

bool Connection::SendStartClean(const SessionStart& start, SteadyTime deadline) {
  return pg::SendStartClean(this, start, deadline);
}

Status Connection::FinishStartClean(const SessionStart& start, SteadyTime deadline,
                                    const std::string& file, bool* connection_lost) {
  bool ignored = false;
  if (connection_lost == nullptr) connection_lost = &ignored;
  return pg::FinishStartClean(this, start, deadline, file, connection_lost, denied_setting_hint_);
}

}  // namespace racelab::pg
