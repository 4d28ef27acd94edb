#include "harness/engines/mariadb/engine.h"

#include <fmt/format.h>
#include <mysqld_error.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "harness/engines/mariadb/connection.h"
#include "harness/engines/mariadb/dsn.h"
#include "harness/engines/mariadb/server.h"
#include "harness/engines/mariadb/sql_errors.h"
#include "harness/engines/mariadb/wait_monitor.h"

namespace racelab::mariadb {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::string LevelSql(IsolationLevel level) {
  switch (level) {
    case IsolationLevel::kReadUncommitted:
      return "READ UNCOMMITTED";
    case IsolationLevel::kReadCommitted:
      return "READ COMMITTED";
    case IsolationLevel::kRepeatableRead:
      return "REPEATABLE READ";
    case IsolationLevel::kSerializable:
      return "SERIALIZABLE";
  }
  return "REPEATABLE READ";
}

std::string Quote(const std::string& name) {  // an identifier in backquotes
  std::string out = "`";
  for (char c : name) out += c == '`' ? std::string("``") : std::string(1, c);
  return out + "`";
}

// A database name as GRANT and REVOKE read it: `_` and `%` are wildcards there (MariaDB docs
// "GRANT", "Database Privileges"), so each is escaped to name this database only.
std::string ExactDbName(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '_' || c == '%' || c == '\\') out += '\\';
    out += c;
  }
  return Quote(out);
}

std::string Literal(const std::string& text) {  // a string literal
  std::string out = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') out += c;
    out += c;
  }
  return out + "'";
}

// A setting's value: a number or a bare word (ON, OFF, READ-COMMITTED) as written, else quoted.
std::string SettingValue(const std::string& value) {
  bool bare = !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  });
  bool number = bare && (std::isdigit(static_cast<unsigned char>(value[0])) || value[0] == '.');
  if (number || (bare && value.find('-') == std::string::npos)) return value;
  return Literal(value);
}

// `word` as one shell word: as it is when it has no character a shell treats specially, else in
// single quotes.
std::string ShellWord(const std::string& word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '.' || c == '_' ||
           c == '-';
  });
  if (plain) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// How long a drop waits for a prepared XA transaction's connection to let it go.
constexpr milliseconds kXaRetry(3000);

class MariaDbEngine : public Engine {
 public:
  MariaDbEngine(ConnectTarget admin, std::unique_ptr<EmbeddedMariaDb> server, std::string dsn_shown,
                bool confine, const StopFlag* stop)
      : admin_target_(std::move(admin)),
        server_(std::move(server)),
        stop_(stop),
        confine_(confine) {
    caps_.levels = {IsolationLevel::kReadUncommitted, IsolationLevel::kReadCommitted,
                    IsolationLevel::kRepeatableRead, IsolationLevel::kSerializable};
    caps_.default_level = IsolationLevel::kRepeatableRead;
    caps_.terminate = true;
    caps_.row_locks = true;
    caps_.server_lock_log = false;
    caps_.returning =
        false;  // MariaDB 10.11: INSERT/DELETE … RETURNING only, no UPDATE … RETURNING
    caps_.multi_statement = true;
    info_.engine = "mariadb";
    info_.embedded = server_ != nullptr;
    info_.dsn_redacted = std::move(dsn_shown);
    std::random_device rd;
    run_id_ = fmt::format("{:06x}", rd() & 0xffffff);
  }
  ~MariaDbEngine() override { Close(); }

  Status Init(SteadyTime deadline) {
    // racelab's own connections do not stop at a stop request: cleanup (DROP DATABASE, DROP USER)
    // must still run after SIGINT/SIGTERM; their deadlines bound them.
    Result<std::unique_ptr<MariaConnection>> admin =
        MariaConnection::Open(admin_target_, "racelab admin", deadline, nullptr);
    if (!admin.ok()) return admin.status();
    admin_ = std::move(*admin);
    QueryResult r = admin_->Exec(
        "SELECT VERSION(), @@innodb_snapshot_isolation, @@innodb_lock_wait_timeout, "
        "@@innodb_deadlock_detect, @@tx_isolation, @@innodb_flush_log_at_trx_commit, "
        "@@innodb_rollback_on_timeout, @@innodb_buffer_pool_size, @@sync_binlog",
        deadline, 1);
    if (!r.ok() || r.values.empty())
      return Status::Database(fmt::format("cannot read the MariaDB server's version: {} (error {})",
                                          r.message, r.error_code));
    const auto& row = r.values[0];
    info_.server_version = row[0].value_or("");
    const char* names[] = {"",
                           "innodb_snapshot_isolation",
                           "innodb_lock_wait_timeout",
                           "innodb_deadlock_detect",
                           "tx_isolation",
                           "innodb_flush_log_at_trx_commit",
                           "innodb_rollback_on_timeout",
                           "innodb_buffer_pool_size",
                           "sync_binlog"};
    for (size_t i = 1; i < row.size(); ++i)
      info_.settings.emplace_back(names[i], row[i].value_or(""));
    session_target_ = admin_target_;
    return confine_ ? CreateConfinedUser(deadline) : Status::Ok();
  }

  std::string name() const override { return "mariadb"; }
  const Capabilities& capabilities() const override { return caps_; }
  const TargetInfo& info() const override { return info_; }
  double ready_ms() const override { return server_ ? server_->ready_time().count() / 1000.0 : -1; }

  Result<std::unique_ptr<Session>> OpenSession(const std::string& node, const std::string& label,
                                               SteadyTime deadline, const StopFlag* stop) override {
    if (Status s = CheckNode(*this, node); !s.ok()) return s;
    Result<std::unique_ptr<MariaConnection>> c =
        MariaConnection::Open(session_target_, label, deadline, stop);
    if (!c.ok()) return c.status();
    (*c)->set_refuse_xa(true);  // scenario SQL runs here
    // The engine outlives its sessions (Close: after every Session is closed).
    (*c)->set_start_clean([this](MariaConnection* conn, const SessionStart& start, SteadyTime until,
                                 const std::string& file, bool* lost) {
      return StartCleanOn(conn, start, until, file, lost);
    });
    return std::unique_ptr<Session>(std::move(*c));
  }

  Result<std::unique_ptr<WaitMonitor>> OpenMonitor(std::chrono::microseconds poll,
                                                   SteadyTime deadline,
                                                   const StopFlag* stop) override {
    Result<std::unique_ptr<MariaWaitMonitor>> m =
        MariaWaitMonitor::Open(admin_target_, poll, deadline, stop);
    if (!m.ok()) return m.status();
    return std::unique_ptr<WaitMonitor>(std::move(*m));
  }

  Status ResetWorkspace(const std::string& name, SteadyTime deadline,
                        const StopFlag* stop) override {
    // Its sessions may be starting clean at this moment (sent ahead): only prepared XA transactions
    // go.
    if (Status s = EndWorkspaceSessions(name, deadline, false); !s.ok()) return s;
    if (Status s = Admin(
            fmt::format("DROP DATABASE IF EXISTS {}; CREATE DATABASE {}", Quote(name), Quote(name)),
            deadline, "cannot create database " + name);
        !s.ok())
      return s;
    return GrantWorkspace(name, deadline);
  }
  Status DropWorkspace(const std::string& name, SteadyTime deadline) override {
    if (Status s = EndWorkspaceSessions(name, deadline, true); !s.ok()) return s;
    if (Status s = Admin("DROP DATABASE IF EXISTS " + Quote(name), deadline,
                         "cannot drop database " + name);
        !s.ok())
      return s;
    return RevokeWorkspace(name, deadline);
  }
  std::string WorkspaceName(int n) const override {
    return fmt::format("racelab_{}_{}_{}", getpid(), run_id_, n);
  }

  // MariaConnection::StartClean of the sessions OpenSession made.
  Status StartCleanOn(MariaConnection* c, const SessionStart& start, SteadyTime deadline,
                      const std::string& file, bool* connection_lost) {
    bool ignored = false;
    if (connection_lost == nullptr) connection_lost = &ignored;
    QueryResult r = c->Reset(deadline);
    if (r.ok() && !confined_user_.empty()) {  // the confined user may not create it: racelab does
      if (Status s = GrantWorkspace(start.workspace, deadline); !s.ok()) return s;
    }
    if (r.ok()) r = c->Exec("USE " + Quote(start.workspace), deadline);
    // The runner may start a session clean before the workspace exists (the control session, before
    // ResetWorkspace): create it then. A session keeps its current database by name, so it stays in
    // the workspace when ResetWorkspace drops and creates it again (MariaDB docs "USE").
    if (r.error_code == std::to_string(ER_BAD_DB_ERROR)) {
      r = c->Exec(fmt::format("CREATE DATABASE IF NOT EXISTS {}; USE {}", Quote(start.workspace),
                              Quote(start.workspace)),
                  deadline);
    }
    if (!r.ok()) {
      *connection_lost = r.connection_lost;
      return Status::Database(fmt::format("{}: cannot start a clean trial: {} (error {})",
                                          start.label, r.message, r.error_code));
    }
    for (const auto& [name, value] : start.settings) {
      r = c->Exec(fmt::format("SET SESSION {} = {}", name, SettingValue(value)), deadline);
      if (r.ok()) continue;
      *connection_lost = r.connection_lost;
      std::string what =
          fmt::format("{}: session {}: setting {} = {}: {} (error {}, SQLSTATE {})", file,
                      start.label, name, value, r.message, r.error_code, r.sqlstate);
      int code = std::atoi(r.error_code.c_str());
      if (code == ER_UNKNOWN_SYSTEM_VARIABLE || code == ER_WRONG_VALUE_FOR_VAR ||
          code == ER_WRONG_TYPE_FOR_VAR || code == ER_GLOBAL_VARIABLE ||
          code == ER_INCORRECT_GLOBAL_LOCAL_VAR || code == ER_PARSE_ERROR ||
          IsScenarioSqlError(r.sqlstate,
                             static_cast<unsigned>(code))) {  // 1227: a privilege it lacks
        return Status::Usage(what);
      }
      return Status::Database(what);
    }
    return Status::Ok();
  }

  std::string BeginSql(IsolationLevel level) const override {
    return "SET TRANSACTION ISOLATION LEVEL " + LevelSql(level) + "; START TRANSACTION";
  }
  // SET TRANSACTION without SESSION sets the level of the next transaction only, and START
  // TRANSACTION READ ONLY makes a write fail with 1792 (SQLSTATE 25006) (MariaDB 10.11 docs, SET
  // TRANSACTION and START TRANSACTION; checked by hand with the mariadb client). MariaDB has no
  // DEFERRABLE: "".
  std::string BeginSqlWith(IsolationLevel level, const TransactionModes& modes) const override {
    if (modes.deferrable) return "";
    return BeginSql(level) + (modes.read_only ? " READ ONLY" : "");
  }
  bool Committed(const QueryResult& commit) const override {
    return commit.ok() && commit.command_tag != "ROLLBACK";
  }
  bool IsScenarioError(const QueryResult& r) const override {
    return IsScenarioSqlError(r.sqlstate, static_cast<unsigned>(std::atoi(r.error_code.c_str())));
  }
  std::string ScenarioErrorHint(const std::set<std::string>& sqlstates) const override {
    if (confined_user_.empty() || sqlstates.count("42000") == 0) return "";
    return "42000 (syntax error or access rule violation): scenario SQL runs as a MariaDB user "
           "racelab creates "
           "for the run, with rights on the run's own databases only (docs/mariadb.md \"Scenario "
           "SQL is "
           "confined\"); if it is an access error (1142, 1044, 1227), --no-confine runs it as the "
           "--dsn user";
  }
  bool IsSessionLost(const QueryResult& r) const override {
    if (r.connection_lost) return true;
    // Class 08: racelab records every lost connection as 08006 (a step event keeps only the
    // SQLSTATE).
    if (r.sqlstate.rfind("08", 0) == 0) return true;
    int code = std::atoi(r.error_code.c_str());
    return code == ER_CONNECTION_KILLED || code == 4031 || code == 2006 || code == 2013;
  }

  Status HoldRunLock(SteadyTime connect_deadline, SteadyTime statement_deadline,
                     const StopFlag* stop) override {
    if (lock_held_ && admin_ && admin_->healthy()) return Status::Ok();
    if (!admin_ || !admin_->healthy()) {
      Result<std::unique_ptr<MariaConnection>> admin =
          MariaConnection::Open(admin_target_, "racelab admin", connect_deadline, nullptr);
      if (!admin.ok()) return admin.status();
      admin_ = std::move(*admin);
    }
    QueryResult r =
        admin_->Exec(fmt::format("SELECT GET_LOCK({}, 0)", Literal(LockName(getpid(), run_id_))),
                     statement_deadline);
    if (!r.ok() || r.values.empty() || r.values[0][0] != std::optional<std::string>("1"))
      return Status::Database(
          fmt::format("cannot take the run lock: {} (error {})", r.message, r.error_code));
    lock_held_ = true;
    return Status::Ok();
  }

  bool ServerAnswers(SteadyTime deadline) override {
    if (!admin_ || !admin_->healthy()) {
      Result<std::unique_ptr<MariaConnection>> admin =
          MariaConnection::Open(admin_target_, "racelab admin", deadline, nullptr);
      if (!admin.ok()) return false;
      admin_ = std::move(*admin);
      lock_held_ = false;
    }
    return admin_->Exec("SELECT 1", deadline).ok();
  }

  Result<std::vector<Leftover>> ListLeftovers(SteadyTime deadline) override {
    if (!ServerAnswers(deadline)) return Status::Database("the MariaDB server does not answer");
    QueryResult r = admin_->Exec(
        "SELECT SCHEMA_NAME, IS_USED_LOCK(CONCAT('racelab_run_', "
        "SUBSTRING_INDEX(SUBSTRING_INDEX(SCHEMA_NAME, '_', 3), '_', -2))) IS NOT NULL "
        "FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'racelab\\_%\\_%\\_%' "
        "ORDER BY SCHEMA_NAME",
        deadline, 100000);
    if (!r.ok()) return Status::Database("cannot list leftover databases: " + r.message);
    std::vector<Leftover> out;
    // Prepared XA transactions, first: one holding locks in a database makes its drop wait. Listed,
    // never ended: XA RECOVER shows every one to every user with no user, connection or database
    // (docs/mariadb.md "Scenario SQL is confined"), so nothing says it is a dead run's.
    QueryResult xa = admin_->Exec("XA RECOVER FORMAT='SQL'", deadline, 100000);
    for (const auto& row : xa.values) {
      if (row.size() < 4 || !row[3]) continue;
      Leftover l;
      l.kind = "xa transaction";
      l.name = *row[3];
      l.kept_because =
          "MariaDB does not say which client prepared it; if it is a dead run's, end it with "
          "XA ROLLBACK " +
          *row[3] + " (a database it holds locks in cannot be dropped until then)";
      out.push_back(std::move(l));
    }
    for (const auto& row : r.values) {
      Leftover l;
      l.kind = "database";
      l.name = row[0].value_or("");
      l.live = row[1] == std::optional<std::string>("1");
      out.push_back(std::move(l));
    }
    // The confined users of runs (racelab_u_<pid>_<run id>), after the databases. Listing them
    // needs SELECT on mysql.user; without it they are not listed (a user left behind can log in
    // nowhere but the dropped databases' names).
    QueryResult users = admin_->Exec(
        "SELECT CONCAT(User, '@', Host), IS_USED_LOCK(CONCAT('racelab_run_', SUBSTRING(User, 11))) "
        "IS NOT NULL "
        "FROM mysql.user WHERE User LIKE 'racelab\\_u\\_%' ORDER BY User",
        deadline, 100000);
    for (const auto& row : users.values) {
      Leftover l;
      l.kind = "user";
      l.name = row[0].value_or("");
      l.live = row[1] == std::optional<std::string>("1");
      out.push_back(std::move(l));
    }
    return out;
  }

  Status DropLeftovers(const std::vector<Leftover>& which, SteadyTime deadline) override {
    for (const Leftover& l : which) {
      if (l.live) continue;
      if (l.kind == "database") {
        if (Status s = DropWorkspace(l.name, deadline); !s.ok()) return s;
      } else if (l.kind == "user") {
        const size_t at = l.name.rfind('@');
        if (at == std::string::npos) continue;
        if (Status s = Admin(fmt::format("DROP USER IF EXISTS {}@{}", Literal(l.name.substr(0, at)),
                                         Literal(l.name.substr(at + 1))),
                             deadline, "cannot drop user " + l.name);
            !s.ok())
          return s;
      }
    }
    return Status::Ok();
  }

  Status Close() override {
    if (!confined_user_.empty() && ServerAnswers(Clock::now() + kControlTimeout)) {
      admin_->Exec("DROP USER IF EXISTS " + confined_user_, Clock::now() + kControlTimeout);
    }
    confined_user_.clear();
    if (grant_) {
      grant_->Close();
      grant_.reset();
    }
    if (admin_) {
      admin_->Close();  // releases the run lock
      admin_.reset();
    }
    lock_held_ = false;
    if (server_) {
      Status s = server_->Stop();
      server_.reset();
      return s;
    }
    return Status::Ok();
  }

  EmbeddedMariaDb* server() { return server_.get(); }

  // The embedded server's root over its Unix socket: it has no password (mariadb-install-db
  // --auth-root-authentication-method=normal), so none is printed. A --dsn server: "" (its user has
  // their own way in).
  std::string ClientConnectionString(const std::string& workspace) const override {
    if (!server_) return "";
    return fmt::format("mariadb://root@localhost/{}?socket={}", workspace, server_->socket_path());
  }
  // --no-defaults: a my.cnf of the machine or the user (a [client] password, another socket)
  // cannot change where it connects.
  std::string ClientCommand(const std::string& workspace) const override {
    if (!server_) return "";
    return fmt::format("mariadb --no-defaults --socket={} --user=root {}",
                       ShellWord(server_->socket_path()), ShellWord(workspace));
  }

 private:
  // Scenario SQL's own user (docs/mariadb.md "Scenario SQL is confined"): racelab_u_<pid>_<run id>,
  // a random password, ALL PRIVILEGES on this run's databases (racelab_<pid>_<run id>_*) and
  // nothing else, at the host part of the --dsn user's account (CURRENT_USER()), so it logs in from
  // where that user does. Sessions connect as it; the admin and monitor connections stay the --dsn
  // user's.
  Status CreateConfinedUser(SteadyTime deadline) {
    QueryResult who = admin_->Exec("SELECT CURRENT_USER()", deadline, 1);
    const std::string account =
        who.ok() && !who.values.empty() ? who.values[0][0].value_or("") : "";
    const size_t at = account.rfind('@');
    if (at == std::string::npos) {
      return Status::Database("cannot read the --dsn user's account (SELECT CURRENT_USER()): " +
                              who.message);
    }
    const std::string user = fmt::format("racelab_u_{}_{}", getpid(), run_id_);
    static constexpr char kAlphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    std::random_device rd;
    std::string password;
    for (int i = 0; i < 24; ++i) password += kAlphabet[rd() % (sizeof(kAlphabet) - 1)];
    const std::string name = Literal(user) + "@" + Literal(account.substr(at + 1));
    QueryResult r = admin_->Exec(
        fmt::format("CREATE USER {} IDENTIFIED BY {}", name, Literal(password)), deadline);
    if (r.ok()) {
      confined_user_ = name;
      // The GRANT OPTION the workspaces' grants need, checked now (on a database name no run uses)
      // rather than at the first workspace.
      const std::string probe = ExactDbName(WorkspaceName(0));
      r = admin_->Exec(fmt::format("GRANT SELECT ON {}.* TO {}", probe, name), deadline);
      if (r.ok())
        r = admin_->Exec(fmt::format("REVOKE SELECT ON {}.* FROM {}", probe, name), deadline);
    }
    if (!r.ok()) {
      // The statements are not in the message: CREATE USER holds the password.
      return Status::Database(
          fmt::format("cannot create the MariaDB user that runs scenario SQL: {} (error {}): the "
                      "--dsn user needs CREATE USER "
                      "and the GRANT OPTION on `racelab\\_%`.* (docs/mariadb.md \"Scenario SQL is "
                      "confined\"), or "
                      "--no-confine runs scenario SQL as the --dsn user itself",
                      r.message, r.error_code));
    }
    session_target_.user = user;
    session_target_.password = password;
    return Status::Ok();
  }

  // Under confinement: the workspace `name` exists and the confined user has ALL PRIVILEGES on it —
  // on that exact name, never a pattern, so scenario SQL can create no database of its own
  // (docs/mariadb.md "Scenario SQL is confined"). Once per name until RevokeWorkspace.
  // Thread-safety: any thread (the runner starts sessions clean in parallel); its own connection,
  // under grant_mu_.
  Status GrantWorkspace(const std::string& name, SteadyTime deadline) {
    if (confined_user_.empty()) return Status::Ok();
    std::lock_guard<std::mutex> lock(grant_mu_);
    if (granted_.count(name) != 0) return Status::Ok();
    if (!grant_ || !grant_->healthy()) {
      Result<std::unique_ptr<MariaConnection>> c =
          MariaConnection::Open(admin_target_, "racelab admin", deadline, nullptr);
      if (!c.ok()) return c.status();
      grant_ = std::move(*c);
    }
    QueryResult r = grant_->Exec(
        fmt::format("CREATE DATABASE IF NOT EXISTS {}; GRANT ALL PRIVILEGES ON {}.* TO {}",
                    Quote(name), ExactDbName(name), confined_user_),
        deadline);
    if (!r.ok()) {
      return Status::Database(
          fmt::format("cannot grant the run's user database {}: {} (error {}, SQLSTATE {})", name,
                      r.message, r.error_code, r.sqlstate));
    }
    granted_.insert(name);
    return Status::Ok();
  }
  // After DROP DATABASE: the grant goes too, so the name cannot be created again by scenario SQL.
  Status RevokeWorkspace(const std::string& name, SteadyTime deadline) {
    if (confined_user_.empty()) return Status::Ok();
    {
      std::lock_guard<std::mutex> lock(grant_mu_);
      if (granted_.erase(name) == 0) return Status::Ok();
    }
    QueryResult r = admin_->Exec(
        fmt::format("REVOKE ALL PRIVILEGES ON {}.* FROM {}", ExactDbName(name), confined_user_),
        deadline);
    if (r.ok() || r.error_code == std::to_string(ER_NONEXISTING_GRANT)) return Status::Ok();
    return Status::Database(
        fmt::format("cannot revoke the run's user's grant on database {}: {} (error {})", name,
                    r.message, r.error_code));
  }
  // Before DROP DATABASE: what would make it wait. (1) With `kill_busy`, the sessions still in
  // `name` that run a statement or hold a transaction (a trial cut short by a stop request or its
  // deadline: a session waiting on a lock, its blocker idle in its transaction) are ended (KILL, as
  // the sessions' own user, who may kill its own connections), so their metadata locks go. (2) On
  // the embedded server every prepared XA transaction is this run's (nobody else connects to it):
  // rolled back (XA RECOVER, XA ROLLBACK). REQUIRES: the runner's thread (admin_).
  Status EndWorkspaceSessions(const std::string& name, SteadyTime deadline, bool kill_busy) {
    if (!ServerAnswers(deadline))
      return Status::Database("cannot drop database " + name + ": the server does not answer");
    if (kill_busy) {
      QueryResult busy = admin_->Exec(
          fmt::format("SELECT ID FROM information_schema.PROCESSLIST WHERE DB = {} AND "
                      "ID <> CONNECTION_ID() AND "
                      "(COMMAND <> 'Sleep' OR ID IN (SELECT trx_mysql_thread_id FROM "
                      "information_schema.INNODB_TRX))",
                      Literal(name)),
          deadline, 10000);
      for (const auto& row : busy.values) {
        if (!row[0]) continue;
        MariaConnection::Kill(session_target_, std::atoll(row[0]->c_str()), false, deadline);
      }
    }
    if (!server_) return Status::Ok();
    // A prepared XA transaction is XAER_NOTA (1397) to everyone else while a connection still holds
    // it (checked by hand); one whose connection is closing or killed is free in milliseconds: with
    // kill_busy, tried again for up to kXaRetry.
    const SteadyTime xa_end = std::min(deadline, Clock::now() + kXaRetry);
    for (;;) {
      QueryResult xa = admin_->Exec("XA RECOVER FORMAT='SQL'", deadline, 10000);
      bool held = false;
      for (const auto& row : xa.values) {
        if (row.size() < 4 || !row[3]) continue;
        QueryResult r = admin_->Exec("XA ROLLBACK " + *row[3], deadline);  // 'gtrid','bqual',fmt
        if (r.error_code == std::to_string(ER_XAER_NOTA)) held = true;
      }
      if (!held || !kill_busy || Clock::now() >= xa_end) break;
      std::this_thread::sleep_for(milliseconds(50));
    }
    return Status::Ok();
  }

  static std::string LockName(pid_t pid, const std::string& run_id) {
    return fmt::format("racelab_run_{}_{}", pid, run_id);
  }
  Status Admin(const std::string& sql, SteadyTime deadline, const std::string& what) {
    if (!ServerAnswers(deadline)) return Status::Database(what + ": the server does not answer");
    QueryResult r = admin_->Exec(sql, deadline);
    if (!r.ok())
      return Status::Database(
          fmt::format("{}: {} (error {}, SQLSTATE {})", what, r.message, r.error_code, r.sqlstate));
    return Status::Ok();
  }

  ConnectTarget admin_target_;
  ConnectTarget
      session_target_;  // the sessions': the confined user's when confine_, else admin_target_
  std::unique_ptr<EmbeddedMariaDb> server_;
  const StopFlag* stop_;
  bool confine_ = true;
  std::string confined_user_;  // 'user'@'host' once created, "" after DROP USER
  std::unique_ptr<MariaConnection> admin_;
  std::mutex grant_mu_;
  std::unique_ptr<MariaConnection> grant_;  // guarded by grant_mu_: GrantWorkspace's connection
  std::set<std::string> granted_;  // guarded by grant_mu_: workspaces the confined user may use
  bool lock_held_ = false;
  std::string run_id_;
  Capabilities caps_;
  TargetInfo info_;
};

}  // namespace

Result<std::unique_ptr<Engine>> OpenMariaDbEngine(const EngineOptions& options) {
  SteadyTime deadline = Clock::now() + milliseconds(options.connect_timeout_ms);
  std::unique_ptr<EmbeddedMariaDb> server;
  ConnectTarget target;
  std::string shown;
  if (options.dsn.empty()) {
    ServerOptions so;
    so.bindir = options.server_bindir;
    Result<std::unique_ptr<EmbeddedMariaDb>> started = EmbeddedMariaDb::Start(so);
    if (!started.ok()) return started.status();
    server = std::move(*started);
    target.socket = server->socket_path();
    target.user = "root";
    shown = "mariadb://root@localhost/?socket=" + server->socket_path();
    deadline = Clock::now() + milliseconds(options.connect_timeout_ms);
  } else {
    Result<ConnectTarget> parsed = ParseMariaDbDsn(options.dsn);
    if (!parsed.ok()) return parsed.status();
    target = *parsed;
    target.database.clear();  // racelab works only in the databases it creates
    shown = RedactMariaDbDsn(options.dsn);
  }
  target.silence = std::make_shared<ServerSilence>();  // shared by every connection to this server
  auto engine = std::make_unique<MariaDbEngine>(target, std::move(server), shown, options.confine,
                                                options.stop);
  if (Status s = engine->Init(deadline); !s.ok()) {
    engine->Close();  // drops a confined user created before the error
    return s;
  }
  return std::unique_ptr<Engine>(std::move(engine));
}

}  // namespace racelab::mariadb
