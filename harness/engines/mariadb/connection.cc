#include "harness/engines/mariadb/connection.h"

#include <errmsg.h>
#include <fmt/format.h>
#include <mysqld_error.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>

namespace racelab::mariadb {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// After the socket is cut, how long the client library may take to notice.
constexpr milliseconds kCutWait(1000);

int PollEvents(int status) {
  int events = 0;
  if (status & MYSQL_WAIT_READ) events |= POLLIN;
  if (status & MYSQL_WAIT_WRITE) events |= POLLOUT;
  if (status & MYSQL_WAIT_EXCEPT) events |= POLLPRI;
  return events;
}

int ReadyStatus(short revents) {
  int ready = 0;
  if (revents & (POLLIN | POLLERR | POLLHUP)) ready |= MYSQL_WAIT_READ;
  if (revents & POLLOUT) ready |= MYSQL_WAIT_WRITE;
  if (revents & POLLPRI) ready |= MYSQL_WAIT_EXCEPT;
  return ready;
}

// The first word of the last statement in `sql`, upper-cased ("COMMIT", "UPDATE").
std::string Verb(const std::string& sql) {
  std::string text = sql;
  while (!text.empty() &&
         (std::isspace(static_cast<unsigned char>(text.back())) || text.back() == ';'))
    text.pop_back();
  size_t start = text.rfind(';');
  start = start == std::string::npos ? 0 : start + 1;
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  std::string verb;
  for (size_t i = start; i < text.size() && std::isalpha(static_cast<unsigned char>(text[i])); ++i)
    verb.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(text[i]))));
  return verb;
}

// True when a statement of `sql` (statements separated by ';') starts with START TRANSACTION or
// BEGIN — e.g. the engine's BeginSql, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED; START
// TRANSACTION".
bool StartsTransaction(const std::string& sql) {
  size_t at = 0;
  while (at < sql.size()) {
    at = sql.find_first_not_of(" \t\r\n", at);
    if (at == std::string::npos) break;
    std::string head;
    for (char c : sql.substr(at, 17))
      head.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    if (head.rfind("START TRANSACTION", 0) == 0 || head.rfind("BEGIN", 0) == 0) return true;
    at = sql.find(';', at);
    if (at == std::string::npos) break;
    ++at;
  }
  return false;
}

bool Silent(const ConnectTarget& target) {
  return target.silence != nullptr && target.silence->silent.load();
}

// `deadline`, or at most kSilentServerWait from now when the server is silent.
SteadyTime CapIfSilent(const ConnectTarget& target, SteadyTime deadline) {
  if (!Silent(target)) return deadline;
  return std::min(deadline, Clock::now() + kSilentServerWait);
}

void MarkSilent(const ConnectTarget& target, bool silent) {
  if (target.silence != nullptr) target.silence->silent.store(silent);
}

constexpr char kXaRefused[] =
    "XA transactions are not allowed in scenario SQL: a prepared XA transaction outlives its "
    "connection and "
    "keeps its locks, and MariaDB does not say which client made it, so racelab could neither roll "
    "it back "
    "nor drop the workspace (docs/mariadb.md \"Scenario SQL is confined\")";

}  // namespace

bool HasXaStatement(const std::string& sql) {
  const size_t n = sql.size();
  auto word_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
           static_cast<unsigned char>(c) >= 0x80;
  };
  size_t i = 0;
  while (i < n) {
    const char c = sql[i];
    if (c == '\'' || c == '"' || c == '`') {  // a literal or quoted identifier: skipped whole
      const char q = c;
      for (++i; i < n; ++i) {
        if (sql[i] == '\\' && q != '`') {
          ++i;
        } else if (sql[i] == q) {
          if (i + 1 < n && sql[i + 1] == q)
            ++i;  // a doubled quote
          else
            break;
        }
      }
      ++i;
    } else if (c == '#' || (c == '-' && sql.compare(i, 2, "--") == 0 &&
                            (i + 2 == n || std::isspace(static_cast<unsigned char>(sql[i + 2]))))) {
      i = sql.find('\n', i);
      if (i == std::string::npos) return false;
    } else if (c == '/' && i + 1 < n && sql[i + 1] == '*') {
      // An executable comment (/*! … */, /*M! … */) is SQL the server runs: only its marker is
      // skipped.
      if (i + 2 < n && sql[i + 2] == '!') {
        i += 3;
      } else if (i + 3 < n && sql[i + 2] == 'M' && sql[i + 3] == '!') {
        i += 4;
      } else {
        i = sql.find("*/", i + 2);
        if (i == std::string::npos) return false;
        i += 2;
      }
    } else if (word_char(c)) {
      size_t end = i;
      while (end < n && word_char(sql[end])) ++end;
      if (end - i == 2 && std::toupper(static_cast<unsigned char>(sql[i])) == 'X' &&
          std::toupper(static_cast<unsigned char>(sql[i + 1])) == 'A')
        return true;
      i = end;
    } else {
      ++i;
    }
  }
  return false;
}

template <class Cont>
int MariaConnection::Drive(int status, Cont cont, SteadyTime deadline, milliseconds grace,
                           bool* cancelled) {
  SteadyTime limit = deadline;
  bool cut = false;
  while (status != 0) {
    SteadyTime now = Clock::now();
    bool stop = stop_ != nullptr && stop_->stop_requested() && !cut &&
                (cancelled == nullptr || !*cancelled);
    if (now >= limit || stop) {
      if (cancelled != nullptr && !*cancelled && grace.count() > 0) {
        *cancelled = true;
        // A silent server takes no cancel (it would need a new connection): cut at once. A server
        // that does not take this one within the grace is silent from now on.
        if (!Silent(target_) && Cancel(std::min<milliseconds>(grace, kControlTimeout))) {
          limit = std::max(Clock::now(), deadline) + grace;
          continue;
        }
        MarkSilent(target_, true);
      }
      if (!cut) {  // nothing more to wait for: cut the socket, the library then fails the call
        cut = true;
        lost_ = true;
        shutdown(mysql_get_socket(mysql_), SHUT_RDWR);
        limit = Clock::now() + kCutWait;
        continue;
      }
      break;  // the library did not notice within kCutWait: give the handle up
    }
    int slice = static_cast<int>(std::min<int64_t>(
        kStopPollSlice.count(), std::chrono::duration_cast<milliseconds>(limit - now).count() + 1));
    if (status & MYSQL_WAIT_TIMEOUT)
      slice = std::min<int>(slice, static_cast<int>(mysql_get_timeout_value_ms(mysql_)));
    pollfd p{mysql_get_socket(mysql_), static_cast<short>(PollEvents(status)), 0};
    int n = poll(&p, 1, std::max(slice, 0));
    if (n > 0) {
      status = cont(ReadyStatus(p.revents));
    } else if (n == 0 && (status & MYSQL_WAIT_TIMEOUT) &&
               mysql_get_timeout_value_ms(mysql_) <= static_cast<unsigned>(slice)) {
      status = cont(MYSQL_WAIT_TIMEOUT);
    }
  }
  if (status != 0) {  // abandoned mid-call: the handle cannot be used again
    lost_ = true;
    open_ = false;
  }
  return status;
}

Result<std::unique_ptr<MariaConnection>> MariaConnection::Open(const ConnectTarget& target,
                                                               const std::string& label,
                                                               SteadyTime deadline,
                                                               const StopFlag* stop) {
  std::unique_ptr<MariaConnection> c(new MariaConnection(target, stop));
  deadline = CapIfSilent(target, deadline);
  c->mysql_ = mysql_init(nullptr);
  if (c->mysql_ == nullptr) return Status::Internal("mysql_init failed (out of memory)");
  mysql_options(c->mysql_, MYSQL_OPT_NONBLOCK, nullptr);
  const unsigned int no_local_infile = 0;  // LOAD DATA LOCAL INFILE would read racelab's own files
  mysql_options(c->mysql_, MYSQL_OPT_LOCAL_INFILE, &no_local_infile);
  mysql_options(c->mysql_, MYSQL_SET_CHARSET_NAME, "utf8mb4");
  mysql_options4(c->mysql_, MYSQL_OPT_CONNECT_ATTR_ADD, "program_name", label.c_str());
  unsigned protocol = target.socket.empty() ? MYSQL_PROTOCOL_TCP : MYSQL_PROTOCOL_SOCKET;
  mysql_options(c->mysql_, MYSQL_OPT_PROTOCOL, &protocol);
  MYSQL* ret = nullptr;
  const char* host = target.socket.empty() ? target.host.c_str() : "localhost";
  int status =
      mysql_real_connect_start(&ret, c->mysql_, host, target.user.c_str(), target.password.c_str(),
                               target.database.empty() ? nullptr : target.database.c_str(),
                               target.port, target.socket.empty() ? nullptr : target.socket.c_str(),
                               CLIENT_MULTI_STATEMENTS | CLIENT_FOUND_ROWS);
  c->Drive(
      status, [&](int ready) { return mysql_real_connect_cont(&ret, c->mysql_, ready); }, deadline,
      milliseconds(0), nullptr);
  std::string where =
      target.socket.empty() ? fmt::format("{}:{}", target.host, target.port) : target.socket;
  if (ret == nullptr) {
    if (c->lost_ || Clock::now() >= deadline)
      return Status::Database(
          fmt::format("cannot connect to MariaDB at {} as {}: no answer by the "
                      "connect deadline",
                      where, target.user));
    return Status::Database(fmt::format("cannot connect to MariaDB at {} as {}: {} (error {})",
                                        where, target.user, mysql_error(c->mysql_),
                                        mysql_errno(c->mysql_)));
  }
  c->id_ = static_cast<int64_t>(mysql_thread_id(c->mysql_));
  c->open_ = true;
  MarkSilent(target, false);  // it answered
  return c;
}

MariaConnection::~MariaConnection() { Close(); }

void MariaConnection::Close() {
  open_ = false;
  if (mysql_ == nullptr) return;
  if (!lost_) {  // COM_QUIT, bounded: a server that does not read it is cut off
    int status = mysql_close_start(mysql_);
    status = Drive(
        status, [&](int ready) { return mysql_close_cont(mysql_, ready); },
        Clock::now() + milliseconds(1000), milliseconds(0), nullptr);
    if (status == 0) {
      mysql_ = nullptr;
      return;
    }
  }
  // Lost or abandoned: free the handle without talking to the server.
  shutdown(mysql_get_socket(mysql_), SHUT_RDWR);
  mysql_close(mysql_);
  mysql_ = nullptr;
}

bool MariaConnection::healthy() const { return open_ && !lost_ && mysql_ != nullptr; }

bool MariaConnection::in_transaction() const {
  return healthy() && !rolled_back_ && (mysql_->server_status & SERVER_STATUS_IN_TRANS) != 0;
}

void MariaConnection::FillError(QueryResult* r) {
  unsigned code = mysql_errno(mysql_);
  r->error_code = std::to_string(code);
  r->message = mysql_error(mysql_);
  r->sqlstate = mysql_sqlstate(mysql_);
  // Client errors (2000-2999: 2006 server gone, 2013 lost during query), a killed connection
  // (1927) and an idle timeout (MySQL 8.0.24+ sends 4031 before it closes the connection; MariaDB
  // 10.11 sends nothing, so the client's next call fails with 2006): gone.
  if ((code >= 2000 && code < 3000) || code == ER_CONNECTION_KILLED || code == 4031 || lost_) {
    r->connection_lost = true;
    r->sqlstate = kSqlstateConnectionFailure;
    lost_ = true;
  }
  if (r->sqlstate.empty() || r->sqlstate == "00000") r->sqlstate = "HY000";
  // LOAD DATA LOCAL INFILE: racelab's client has local infile off (see connection.h).
  if (code == 4166) r->refused = true;  // ER_LOAD_INFILE_CAPABILITY_DISABLED
  // InnoDB rolls back the whole transaction of a deadlock victim (MariaDB docs "InnoDB Lock
  // Modes"/"Deadlocks"); a lock wait timeout (1205) rolls back the statement only, unless
  // innodb_rollback_on_timeout. "Record has changed since last read" (1020,
  // innodb_snapshot_isolation) rolls back the whole transaction too (checked by hand with the
  // mariadb client: @@in_transaction is 0 after it and the transaction's earlier writes are gone).
  if (code == ER_LOCK_DEADLOCK || code == ER_CHECKREAD) rolled_back_ = true;
}

QueryResult MariaConnection::Exec(const std::string& sql, SteadyTime deadline, size_t max_rows,
                                  milliseconds cancel_grace) {
  QueryResult r;
  if (!healthy()) {
    r.sqlstate = kSqlstateConnectionFailure;
    r.error_code = std::to_string(CR_SERVER_LOST);
    r.message = "the connection is closed";
    r.connection_lost = true;
    return r;
  }
  if (refuse_xa_ && HasXaStatement(sql)) {
    r.sqlstate = kSqlstateNotSupported;
    r.message = kXaRefused;
    r.refused = true;
    return r;
  }
  if (Silent(target_)) {
    deadline = CapIfSilent(target_, deadline);
    cancel_grace = std::min(cancel_grace, kSilentServerWait);
  }
  if (StartsTransaction(sql)) rolled_back_ = false;
  bool cancelled = false;
  int err = 0;
  int status = mysql_real_query_start(&err, mysql_, sql.data(), sql.size());
  Drive(
      status, [&](int ready) { return mysql_real_query_cont(&err, mysql_, ready); }, deadline,
      cancel_grace, &cancelled);
  r.cancelled_by_deadline = cancelled;
  if (!open_) {
    r.sqlstate = kSqlstateConnectionFailure;
    r.error_code = std::to_string(CR_SERVER_LOST);
    r.message = "no answer from the server after the statement deadline and the cancel grace";
    r.connection_lost = true;
    return r;
  }
  if (!lost_) MarkSilent(target_, false);  // it answered
  if (err != 0) {
    FillError(&r);
    return r;
  }
  r.command_tag = Verb(sql);
  while (true) {
    MYSQL_RES* res = nullptr;
    status = mysql_store_result_start(&res, mysql_);
    Drive(
        status, [&](int ready) { return mysql_store_result_cont(&res, mysql_, ready); }, deadline,
        cancel_grace, &cancelled);
    r.cancelled_by_deadline = cancelled;
    if (!open_) {
      r.sqlstate = kSqlstateConnectionFailure;
      r.connection_lost = true;
      r.message = "no answer from the server after the statement deadline and the cancel grace";
      return r;
    }
    if (res != nullptr) {
      r.rows = static_cast<long>(mysql_num_rows(res));
      r.columns.clear();
      r.values.clear();
      unsigned n = mysql_num_fields(res);
      MYSQL_FIELD* fields = mysql_fetch_fields(res);
      for (unsigned i = 0; i < n; ++i) r.columns.emplace_back(fields[i].name);
      MYSQL_ROW row;
      while (r.values.size() < max_rows && (row = mysql_fetch_row(res)) != nullptr) {
        unsigned long* lengths = mysql_fetch_lengths(res);
        std::vector<std::optional<std::string>> values;
        for (unsigned i = 0; i < n; ++i) {
          if (row[i] == nullptr)
            values.emplace_back(std::nullopt);
          else
            values.emplace_back(std::string(row[i], lengths[i]));
        }
        r.values.push_back(std::move(values));
      }
      mysql_free_result(res);  // a stored result: no I/O
    } else if (mysql_field_count(mysql_) == 0) {
      my_ulonglong affected = mysql_affected_rows(mysql_);
      r.rows = affected == static_cast<my_ulonglong>(-1) ? -1 : static_cast<long>(affected);
    } else {
      FillError(&r);
      return r;
    }
    if (!mysql_more_results(mysql_)) break;
    int next = 0;
    status = mysql_next_result_start(&next, mysql_);
    Drive(
        status, [&](int ready) { return mysql_next_result_cont(&next, mysql_, ready); }, deadline,
        cancel_grace, &cancelled);
    r.cancelled_by_deadline = cancelled;
    if (!open_ || next > 0) {
      FillError(&r);
      return r;
    }
    if (next < 0) break;
  }
  if (r.command_tag == "COMMIT" && rolled_back_) r.command_tag = "ROLLBACK";
  return r;
}

QueryResult MariaConnection::Reset(SteadyTime deadline) {
  QueryResult r;
  if (!healthy()) {
    r.sqlstate = kSqlstateConnectionFailure;
    r.connection_lost = true;
    r.message = "the connection is closed";
    return r;
  }
  deadline = CapIfSilent(target_, deadline);
  int err = 0;
  int status = mysql_reset_connection_start(&err, mysql_);
  Drive(
      status, [&](int ready) { return mysql_reset_connection_cont(&err, mysql_, ready); }, deadline,
      milliseconds(0), nullptr);
  if (!open_ || err != 0) {
    FillError(&r);
    return r;
  }
  rolled_back_ = false;
  r.command_tag = "RESET";
  return r;
}

bool MariaConnection::Cancel(milliseconds wait) {
  if (!open_ || id_ == 0) return false;
  return Kill(target_, id_, true, Clock::now() + (wait.count() > 0 ? wait : kControlTimeout))
      .empty();
}

std::string MariaConnection::Kill(const ConnectTarget& target, int64_t id, bool query_only,
                                  SteadyTime deadline) {
  Result<std::unique_ptr<MariaConnection>> control =
      Open(target, "racelab control", deadline, nullptr);
  if (!control.ok()) return control.status().message();
  QueryResult r = (*control)->Exec(fmt::format("KILL {}{}", query_only ? "QUERY " : "", id),
                                   deadline, 0, milliseconds(0));
  (*control)->Close();
  if (r.ok() || r.error_code == std::to_string(ER_NO_SUCH_THREAD)) return "";
  return fmt::format("KILL {}{}: {} (error {}, SQLSTATE {})", query_only ? "QUERY " : "", id,
                     r.message, r.error_code, r.sqlstate);
}

}  // namespace racelab::mariadb
