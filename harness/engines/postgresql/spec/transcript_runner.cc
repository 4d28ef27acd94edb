#include "harness/engines/postgresql/spec/transcript_runner.h"

#include <fmt/format.h>
#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include "harness/engines/postgresql/spec/spec_database.h"

namespace racelab {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kNonBlock = 1;  // return as soon as the step is seen waiting on a lock
constexpr int kRetry = 2;     // not the first look at this step: its "step X: SQL" line is printed
constexpr int kPollMs = 10;   // isolationtester looks for lock waits every 10 ms

struct Conn {
  PgConnPtr pg;
  std::string name;  // session name, or "control connection"
  std::string pid;   // backend pid, as text
  int active = -1;   // index in the permutation of the step running here, -1 when idle
  int total_notices = 0;
  FILE* out = nullptr;
  bool* any_new_notice = nullptr;
};

void PrintNotice(void* arg, const char* message) {
  Conn* c = static_cast<Conn*>(arg);
  std::fprintf(c->out, "%s: %s", c->name.c_str(), message);
  ++c->total_notices;
  *c->any_new_notice = true;
}

void HideNotice(void*, const char*) {}

void PrintResult(FILE* out, PGresult* res) {
  PQprintOpt opt;
  std::memset(&opt, 0, sizeof(opt));
  opt.header = 1;
  opt.align = 1;
  opt.fieldSep = const_cast<char*>("|");
  PQprint(out, res, &opt);
}

class TranscriptRun {
 public:
  TranscriptRun(const IsolationSpec& spec, const SpecRunOptions& options, const SpecServer& server,
                const StopFlag* stop, FILE* out)
      : spec_(spec), options_(options), server_(server), stop_(stop), out_(out) {}

  Status Run(const std::vector<StepOrder>& orders) {
    auto db = SpecDatabase::Create(server_, options_.connect_timeout_ms);
    if (!db.ok()) return db.status();
    Status s = Connect(**db);
    if (s.ok()) {
      for (const StepOrder& order : orders) {
        s = Stopped() ? Status::Database("interrupted") : RunPermutation(order);
        if (!s.ok()) break;
      }
    }
    conns_.clear();  // close every connection before the database goes
    Status dropped = (*db)->Drop();
    return s.ok() ? dropped : s;
  }

 private:
  Status Connect(const SpecDatabase& db) {
    for (size_t i = 0; i <= spec_.sessions.size(); ++i) {
      auto c = std::make_unique<Conn>();
      c->name = i == 0 ? "control connection" : spec_.sessions[i - 1].name;
      // pg_regress names its sessions "isolation/TEST" and isolationtester appends "/SESSION";
      // specs that show pg_stat_activity print it.
      auto pg = db.Connect("isolation/" + TestName() + "/" + c->name);
      if (!pg.ok()) return pg.status();
      c->pg = std::move(*pg);
      c->pid = std::to_string(PQbackendPID(c->pg.get()));
      c->out = out_;
      c->any_new_notice = &any_new_notice_;
      PQsetNoticeProcessor(c->pg.get(), i == 0 ? HideNotice : PrintNotice, c.get());
      conns_.push_back(std::move(c));
    }
    // The server's own test of "waits on another session of the spec" (PostgreSQL 10+): heavyweight
    // locks held or awaited by these sessions, and a safe-snapshot wait of a DEFERRABLE
    // transaction.
    std::string pids;
    for (size_t i = 1; i < conns_.size(); ++i) pids += (i > 1 ? "," : "") + conns_[i]->pid;
    PGresult* r = PQprepare(
        control(), "racelab_waiting",
        fmt::format("SELECT pg_catalog.pg_isolation_test_session_is_blocked($1, '{{{}}}')", pids)
            .c_str(),
        0, nullptr);
    bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    if (!ok) return Status::Database("cannot prepare the lock-wait query: " + Message(control()));
    return Status::Ok();
  }

  PGconn* control() { return conns_[0]->pg.get(); }
  // The spec file's name without folder and ".spec", as pg_regress names the test.
  std::string TestName() const {
    std::string f = spec_.loc.file;
    size_t slash = f.find_last_of('/');
    if (slash != std::string::npos) f = f.substr(slash + 1);
    if (f.size() > 5 && f.compare(f.size() - 5, 5, ".spec") == 0) f.resize(f.size() - 5);
    return f;
  }
  Conn& SessionConn(int session) { return *conns_[session + 1]; }
  const SpecStep& StepOf(const OrderedStep& s) const {
    return spec_.sessions[s.session].steps[s.step];
  }
  static std::string Message(PGconn* c) {
    std::string m = PQerrorMessage(c);
    while (!m.empty() && m.back() == '\n') m.pop_back();
    return m;
  }
  bool Stopped() const { return stop_ && stop_->stop_requested(); }

  // Sends `sql` and waits for its last result (PQexec's answer), cancelling at the step deadline.
  PGresult* ExecBounded(PGconn* c, const std::string& sql, Status* fatal) {
    if (!PQsendQuery(c, sql.c_str())) {
      *fatal = Status::Database("cannot send: " + Message(c));
      return nullptr;
    }
    auto start = Clock::now();
    bool cancelled = false;
    while (PQisBusy(c)) {
      pollfd p{PQsocket(c), POLLIN, 0};
      int ret = poll(&p, 1, kPollMs);
      if (ret < 0 && errno != EINTR) {
        *fatal = Status::Internal(std::string("poll failed: ") + std::strerror(errno));
        return nullptr;
      }
      if (ret > 0 && !PQconsumeInput(c)) break;
      auto waited =
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
      if ((waited > options_.step_timeout_ms || Stopped()) && !cancelled) {
        Cancel(c);
        cancelled = true;
      }
      if (waited > 2 * options_.step_timeout_ms) {
        *fatal = Status::Database(fmt::format("a setup or teardown block did not end within {} ms",
                                              2 * options_.step_timeout_ms));
        return nullptr;
      }
    }
    PGresult* last = nullptr;
    while (PGresult* r = PQgetResult(c)) {
      PQclear(last);
      last = r;
    }
    return last;
  }

  static void Cancel(PGconn* c) {
    if (PGcancel* cancel = PQgetCancel(c)) {
      char buf[256];
      PQcancel(cancel, buf, sizeof(buf));
      PQfreeCancel(cancel);
    }
  }

  // Runs a setup or teardown block; prints its rows. False (with `what` printed) when it failed.
  bool RunBlock(PGconn* c, const std::string& sql, const std::string& what, Status* fatal) {
    PGresult* r = ExecBounded(c, sql, fatal);
    if (!fatal->ok()) return false;
    ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    bool ok = true;
    if (st == PGRES_TUPLES_OK) {
      PrintResult(out_, r);
    } else if (st != PGRES_COMMAND_OK) {
      // isolationtester writes these to stderr, which pg_isolation_regress sends to the same .out
      // file.
      std::fprintf(out_, "%s failed: %s", what.c_str(), PQerrorMessage(c));
      ok = false;
    }
    PQclear(r);
    return ok;
  }

  bool IsBlocked(const Conn& c, Status* fatal) {
    const char* param = c.pid.c_str();
    PGresult* r = PQexecPrepared(control(), "racelab_waiting", 1, &param, nullptr, nullptr, 0);
    bool ok = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
    bool waiting = ok && PQgetvalue(r, 0, 0)[0] == 't';
    PQclear(r);
    if (!ok) *fatal = Status::Database("lock wait query failed: " + Message(control()));
    return waiting;
  }

  // "  (s2 waits: Lock/transactionid, held by s1)": pg_stat_activity and pg_blocking_pids() of the
  // waiting backend, holders named by session where they are sessions of the spec.
  void PrintWaitDetail(const Conn& c) {
    const char* param = c.pid.c_str();
    PGresult* r = PQexecParams(
        control(),
        "SELECT coalesce(wait_event_type, '?') || '/' || coalesce(wait_event, '?'), "
        "array_to_string(pg_blocking_pids(pid), ' ') FROM pg_stat_activity WHERE pid = $1",
        1, nullptr, &param, nullptr, nullptr, 0);
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) {
      std::string holders;
      std::string pids = PQgetvalue(r, 0, 1);
      size_t pos = 0;
      while (pos < pids.size()) {
        size_t end = pids.find(' ', pos);
        std::string pid =
            pids.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
        std::string name = "pid " + pid;
        for (size_t k = 1; k < conns_.size(); ++k) {
          if (conns_[k]->pid == pid) name = conns_[k]->name;
        }
        holders += (holders.empty() ? "" : ", ") + name;
        if (end == std::string::npos) break;
        pos = end + 1;
      }
      std::fprintf(out_, "  (%s waits: %s, held by %s)\n", c.name.c_str(), PQgetvalue(r, 0, 0),
                   holders.empty() ? "nobody now" : holders.c_str());
    }
    PQclear(r);
  }

  // A marker still holds back the report that step `i` is done.
  bool HeldByMarker(int i) {
    const OrderedStep& s = (*order_).steps[i];
    for (size_t k = 0; k < s.blockers.size(); ++k) {
      const OrderedBlocker& b = s.blockers[k];
      if (b.kind == SpecBlocker::Kind::kStep) {
        const Conn& other = SessionConn(b.session);
        if (other.active >= 0) {
          const OrderedStep& running = (*order_).steps[other.active];
          if (running.session == b.session && running.step == b.step) return true;
        }
      } else if (b.kind == SpecBlocker::Kind::kNotices) {
        if (SessionConn(b.session).total_notices < notice_targets_[i][k]) return true;
      }
    }
    return false;
  }

  // The step launched at position `i`: waits until it is done (printing its results), or — with
  // kNonBlock — seen waiting on a lock, or held back by a marker. True while it is not done.
  bool TryComplete(int i, int flags, Status* fatal) {
    const OrderedStep& s = (*order_).steps[i];
    const SpecStep& step = StepOf(s);
    Conn& c = SessionConn(s.session);
    PGconn* pg = c.pg.get();
    if (!(flags & kRetry)) {
      for (const OrderedBlocker& b : s.blockers) {
        if (b.kind == SpecBlocker::Kind::kOnce) {
          std::fprintf(out_, "step %s: %s <waiting ...>\n", step.name.c_str(),
                       step.sql.text.c_str());
          return true;
        }
      }
    }
    auto start = Clock::now();
    bool cancelled = false;
    while (PQisBusy(pg)) {
      pollfd p{PQsocket(pg), POLLIN, 0};
      int ret = poll(&p, 1, kPollMs);
      if (ret < 0) {
        if (errno == EINTR) continue;
        *fatal = Status::Internal(std::string("poll failed: ") + std::strerror(errno));
        return true;
      }
      if (ret > 0) {
        if (!PQconsumeInput(pg)) break;  // connection lost: PQgetResult reports it
        continue;
      }
      if (flags & kNonBlock) {
        bool waiting = IsBlocked(c, fatal);
        if (!fatal->ok()) return true;
        if (waiting) {
          // Notices may have come while we asked; collect them, and the result if it came too.
          if (!PQconsumeInput(pg)) break;
          if (!PQisBusy(pg)) break;
          if (!(flags & kRetry)) {
            std::fprintf(out_, "step %s: %s <waiting ...>\n", step.name.c_str(),
                         step.sql.text.c_str());
            if (options_.wait_detail) PrintWaitDetail(c);
          }
          return true;
        }
      }
      auto waited =
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
      if ((waited > options_.step_timeout_ms || Stopped()) && !cancelled) {
        Cancel(pg);
        cancelled = true;
        if (!Stopped())
          std::fprintf(out_, "racelab: canceling step %s after %ld ms\n", step.name.c_str(),
                       static_cast<long>(waited));
      }
      if (waited > 2 * options_.step_timeout_ms ||
          (Stopped() && waited > options_.step_timeout_ms)) {
        *fatal = Status::Database(
            fmt::format("step {} did not end within {} ms (twice the step timeout)", step.name,
                        2 * options_.step_timeout_ms));
        return true;
      }
    }
    if (HeldByMarker(i)) {
      if (!(flags & kRetry)) {
        std::fprintf(out_, "step %s: %s <waiting ...>\n", step.name.c_str(), step.sql.text.c_str());
      }
      return true;
    }
    if (flags & kRetry) {
      std::fprintf(out_, "step %s: <... completed>\n", step.name.c_str());
    } else {
      std::fprintf(out_, "step %s: %s\n", step.name.c_str(), step.sql.text.c_str());
    }
    while (PGresult* r = PQgetResult(pg)) {
      switch (PQresultStatus(r)) {
        case PGRES_COMMAND_OK:
        case PGRES_EMPTY_QUERY:
          break;
        case PGRES_TUPLES_OK:
          PrintResult(out_, r);
          break;
        case PGRES_FATAL_ERROR: {
          // The primary message only: a DETAIL may name transaction ids.
          const char* severity = PQresultErrorField(r, PG_DIAG_SEVERITY);
          const char* primary = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
          if (severity && primary) {
            std::fprintf(out_, "%s:  %s\n", severity, primary);
          } else {
            std::fprintf(out_, "%s\n", PQresultErrorMessage(r));
          }
          break;
        }
        default:
          std::fprintf(out_, "unexpected result status: %s\n", PQresStatus(PQresultStatus(r)));
      }
      PQclear(r);
    }
    PQconsumeInput(pg);
    while (PGnotify* n = PQnotifies(pg)) {
      std::string sender = fmt::format("PID {}", n->be_pid);
      for (size_t k = 1; k < conns_.size(); ++k) {
        if (conns_[k]->pid == std::to_string(n->be_pid)) {
          sender = conns_[k]->name;
          break;
        }
      }
      std::fprintf(out_, "%s: NOTIFY \"%s\" with payload \"%s\" from %s\n", c.name.c_str(),
                   n->relname, n->extra, sender.c_str());
      PQfreemem(n);
      PQconsumeInput(pg);
    }
    c.active = -1;
    return false;
  }

  // Looks at every waiting step; removes those done. Repeats while a marker may have been released.
  void TryCompleteAll(std::vector<int>* waiting, int flags, Status* fatal) {
    bool marked = false;
    size_t before = 0;
    do {
      any_new_notice_ = false;
      before = waiting->size();
      marked = false;
      for (size_t w = 0; w < waiting->size();) {
        bool still = TryComplete((*waiting)[w], flags, fatal);
        if (!fatal->ok()) return;
        if (still) {
          if (!(*order_).steps[(*waiting)[w]].blockers.empty()) marked = true;
          ++w;
        } else {
          waiting->erase(waiting->begin() + static_cast<long>(w));
        }
      }
    } while (marked && (waiting->size() < before || any_new_notice_));
  }

  void Remove(std::vector<int>* waiting, int i) {
    waiting->erase(std::remove(waiting->begin(), waiting->end(), i), waiting->end());
  }

  Status RunPermutation(const StepOrder& order) {
    order_ = &order;
    notice_targets_.assign(order.steps.size(), {});
    std::string names;
    for (const OrderedStep& s : order.steps) names += " " + StepOf(s).name;
    std::fprintf(out_, "\nstarting permutation:%s\n", names.c_str());
    Status fatal;
    for (const SpecSql& setup : spec_.setup) {
      if (!RunBlock(control(), setup.text, "setup", &fatal)) {
        return fatal.ok() ? Status::Database("setup failed: " + Message(control())) : fatal;
      }
    }
    for (size_t i = 0; i < spec_.sessions.size(); ++i) {
      if (!spec_.sessions[i].setup) continue;
      Conn& c = SessionConn(static_cast<int>(i));
      if (!RunBlock(c.pg.get(), spec_.sessions[i].setup->text, "setup of session " + c.name,
                    &fatal)) {
        return fatal.ok() ? Status::Database("setup of session " + c.name +
                                             " failed: " + Message(c.pg.get()))
                          : fatal;
      }
    }
    std::vector<int> waiting;
    for (size_t i = 0; i < order.steps.size(); ++i) {
      if (Stopped()) return Status::Database("interrupted");
      const OrderedStep& s = order.steps[i];
      Conn& c = SessionConn(s.session);
      // (A) an earlier step of this session still runs: wait for it, looking at the others
      // meanwhile.
      auto start = Clock::now();
      while (c.active >= 0) {
        int old = c.active;
        if (!TryComplete(old, kRetry, &fatal)) Remove(&waiting, old);
        if (!fatal.ok()) return fatal;
        TryCompleteAll(&waiting, kNonBlock | kRetry, &fatal);
        if (!fatal.ok()) return fatal;
        auto waited =
            std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
        if (c.active >= 0 && (waited > 2 * options_.step_timeout_ms || Stopped())) {
          return Status::Database(fmt::format(
              "step {} could not start: step {} of its session did not end within "
              "{} ms (a marker that never releases?)",
              StepOf(s).name, StepOf(order.steps[c.active]).name, 2 * options_.step_timeout_ms));
        }
      }
      const SpecStep& step = StepOf(s);
      if (!PQsendQuery(c.pg.get(), step.sql.text.c_str())) {
        return Status::Database(
            fmt::format("failed to send query for step {}: {}", step.name, Message(c.pg.get())));
      }
      c.active = static_cast<int>(i);
      for (const OrderedBlocker& b : s.blockers) {
        notice_targets_[i].push_back(b.kind == SpecBlocker::Kind::kNotices
                                         ? b.notices + SessionConn(b.session).total_notices
                                         : 0);
      }
      // (B) the next step starts once this one is done or deemed blocked.
      bool must_wait = TryComplete(static_cast<int>(i), kNonBlock, &fatal);
      if (!fatal.ok()) return fatal;
      TryCompleteAll(&waiting, kNonBlock | kRetry, &fatal);
      if (!fatal.ok()) return fatal;
      if (must_wait) waiting.push_back(static_cast<int>(i));
    }
    TryCompleteAll(&waiting, kRetry, &fatal);
    if (!fatal.ok()) return fatal;
    if (!waiting.empty()) {
      std::fprintf(out_, "failed to complete permutation due to mutually-blocking steps\n");
      return Status::Database("permutation '" + order.name + "': steps block each other");
    }
    for (size_t i = 0; i < spec_.sessions.size(); ++i) {
      if (!spec_.sessions[i].teardown) continue;
      Conn& c = SessionConn(static_cast<int>(i));
      RunBlock(c.pg.get(), spec_.sessions[i].teardown->text, "teardown of session " + c.name,
               &fatal);
      if (!fatal.ok()) return fatal;
    }
    if (spec_.teardown) {
      RunBlock(control(), spec_.teardown->text, "teardown", &fatal);
      if (!fatal.ok()) return fatal;
    }
    return Status::Ok();
  }

  const IsolationSpec& spec_;
  const SpecRunOptions& options_;
  const SpecServer& server_;
  const StopFlag* stop_;
  FILE* out_;
  std::vector<std::unique_ptr<Conn>> conns_;  // [0] control, [1 + i] session i
  bool any_new_notice_ = false;
  const StepOrder* order_ = nullptr;
  std::vector<std::vector<int>> notice_targets_;  // per permutation step, per marker
};

}  // namespace

Status RunSpecTranscript(const IsolationSpec& spec, const std::vector<StepOrder>& orders,
                         const SpecRunOptions& options, const SpecServer& server,
                         const StopFlag* stop, FILE* out) {
  // isolationtester's warnings come first, sorted by name: steps no permutation line uses.
  if (!spec.permutations.empty()) {
    std::set<std::string> used, all;
    for (const SpecPermutation& p : spec.permutations) {
      for (const SpecPermutationStep& s : p.steps) used.insert(s.name);
    }
    for (const SpecSession& s : spec.sessions) {
      for (const SpecStep& st : s.steps) all.insert(st.name);
    }
    for (const std::string& name : all) {
      if (!used.count(name)) std::fprintf(out, "unused step name: %s\n", name.c_str());
    }
  }
  std::fprintf(out, "Parsed test spec with %zu sessions\n", spec.sessions.size());
  TranscriptRun run(spec, options, server, stop, out);
  Status s = run.Run(orders);
  std::fflush(out);
  return s;
}

}  // namespace racelab
