#include "tests/unit/fake/fake_engine.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>

namespace racelab::fake {

using Clock = std::chrono::steady_clock;

FakeRule& FakeRule::Returns(std::vector<std::string> columns,
                            std::vector<std::vector<std::optional<std::string>>> values) {
  result.columns = std::move(columns);
  result.rows = static_cast<long>(values.size());
  result.values = std::move(values);
  return *this;
}

FakeRule& FakeRule::Fails(const std::string& sqlstate, const std::string& message) {
  result.sqlstate = sqlstate;
  result.message = message;
  return *this;
}

FakeRule& FakeRule::Blocks(const std::string& session, const std::string& sql) {
  until_session = session;
  until_sql = sql;
  return *this;
}

FakeRule& FakeScript::On(const std::string& session, const std::string& sql_contains) {
  rules_.push_back(std::make_unique<FakeRule>());
  rules_.back()->session = session;
  rules_.back()->sql_contains = sql_contains;
  return *rules_.back();
}

const FakeRule* FakeScript::Match(const std::string& label, const std::string& sql) const {
  for (const auto& r : rules_) {
    if ((r->session.empty() || r->session == label) &&
        sql.find(r->sql_contains) != std::string::npos)
      return r.get();
  }
  return nullptr;
}

struct FakeEngine::State {
  explicit State(FakeScript s) : script(std::move(s)) {}
  const FakeScript script;
  mutable std::mutex mu;
  std::condition_variable cv;
  std::vector<FakeExec> log;              // guarded by mu
  int64_t next_id = 100;                  // guarded by mu
  std::map<int64_t, std::string> labels;  // session id -> label; guarded by mu
  std::map<int64_t, int64_t> blocked;     // waiter -> holder (0: unknown); guarded by mu
  std::set<int64_t> cancel;               // cancels asked for a blocked statement; guarded by mu
  // What each open monitor watches (monitors are independent, as a server's are): guarded by mu.
  struct Watch {
    bool watching = false;  // between the monitor's Begin and End
    std::set<int64_t> sessions;
    SteadyTime origin{};
    std::vector<WaitObservation> observations;
    std::function<void(const WaitObservation&)> listener;  // set between trials
  };
  std::map<const void*, Watch> watches;  // by monitor

  int64_t IdOf(const std::string& label) const {  // REQUIRES: mu is held
    for (const auto& [id, l] : labels) {
      if (l == label) return id;
    }
    return 0;
  }
};

namespace {

int64_t UsSince(SteadyTime origin) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - origin).count();
}

std::string FirstWord(const std::string& sql) {
  std::string w;
  for (char c : sql) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (w.empty()) continue;
      break;
    }
    w += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return w;
}

class FakeSession final : public Session {
 public:
  FakeSession(std::shared_ptr<FakeEngine::State> state, std::string label, int64_t id)
      : state_(std::move(state)), label_(std::move(label)), id_(id) {}

  QueryResult Exec(const std::string& sql, SteadyTime deadline, size_t max_rows,
                   std::chrono::milliseconds) override {
    std::unique_lock<std::mutex> lock(state_->mu);
    state_->cancel.erase(id_);
    state_->log.push_back({label_, sql, Clock::now()});
    state_->cv.notify_all();
    const FakeRule* rule = state_->script.Match(label_, sql);
    QueryResult r;
    if (rule != nullptr) r = rule->result;
    if (r.command_tag.empty()) r.command_tag = FirstWord(sql);
    if (r.rows < 0 && r.ok()) r.rows = 0;
    if (r.values.size() > max_rows) r.values.resize(max_rows);
    if (rule != nullptr && !rule->until_session.empty()) {
      const size_t from = state_->log.size();
      const int64_t holder = state_->IdOf(rule->until_session);
      std::vector<std::pair<std::function<void(const WaitObservation&)>, WaitObservation>> seen;
      for (auto& [monitor, watch] : state_->watches) {
        if (!watch.watching || watch.sessions.count(id_) == 0) continue;
        WaitObservation o;
        o.poll_sent_us = o.poll_received_us = UsSince(watch.origin);
        o.node = kServerNode;
        o.session_id = id_;
        o.wait_event = "fake";
        if (holder != 0) o.blocking = {holder};
        o.query = sql;
        watch.observations.push_back(o);
        if (watch.listener) seen.emplace_back(watch.listener, o);
      }
      if (!seen.empty()) {
        lock.unlock();
        for (const auto& [listener, o] : seen) listener(o);
        lock.lock();
      }
      // Seen as blocked (AwaitBlocked) only once the wait is published, as the polled monitor
      // does: nobody acts on a wait the trial's event stream does not hold yet.
      state_->blocked[id_] = holder;
      state_->cv.notify_all();
      auto released = [&] {
        for (size_t i = from; i < state_->log.size(); ++i) {
          const FakeExec& e = state_->log[i];
          if (e.session == rule->until_session && e.sql.find(rule->until_sql) != std::string::npos)
            return true;
        }
        return false;
      };
      const bool go = state_->cv.wait_until(
          lock, deadline, [&] { return released() || state_->cancel.count(id_) > 0; });
      const bool cancelled = !go || !released();
      state_->blocked.erase(id_);
      state_->cancel.erase(id_);
      if (cancelled) {
        r = QueryResult{};
        r.sqlstate = "57014";
        r.message = go ? "canceling statement due to user request"
                       : "canceling statement due to statement timeout";
        r.cancelled_by_deadline = !go;
      }
    }
    const std::string verb = FirstWord(sql);
    if (verb == "BEGIN") in_txn_ = r.ok();
    if (verb == "COMMIT" || verb == "ROLLBACK") in_txn_ = false;
    return r;
  }

  bool Cancel(std::chrono::milliseconds) override {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (state_->blocked.count(id_) == 0) return false;
    state_->cancel.insert(id_);
    state_->cv.notify_all();
    return true;
  }
  void Close() override {}
  int64_t session_id() const override { return id_; }
  Status StartClean(const SessionStart&, SteadyTime, const std::string&,
                    bool* connection_lost) override {
    if (connection_lost != nullptr) *connection_lost = false;
    return Status::Ok();
  }
  bool healthy() const override { return true; }
  bool in_transaction() const override { return in_txn_; }

 private:
  std::shared_ptr<FakeEngine::State> state_;
  const std::string label_;
  const int64_t id_;
  bool in_txn_ = false;  // owning thread
};

class FakeMonitor final : public WaitMonitor {
 public:
  explicit FakeMonitor(std::shared_ptr<FakeEngine::State> state) : state_(std::move(state)) {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->watches[this];
  }
  ~FakeMonitor() override {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->watches.erase(this);
  }

  void Begin(std::vector<ConnectionId> sessions, SteadyTime origin) override {
    std::lock_guard<std::mutex> lock(state_->mu);
    FakeEngine::State::Watch& w = state_->watches[this];
    w.watching = true;
    w.sessions.clear();
    for (const ConnectionId& c : sessions) w.sessions.insert(c.id);
    w.origin = origin;
    w.observations.clear();
  }
  std::vector<WaitObservation> End() override {
    std::lock_guard<std::mutex> lock(state_->mu);
    FakeEngine::State::Watch& w = state_->watches[this];
    w.watching = false;
    return std::move(w.observations);
  }
  bool AwaitBlocked(const std::vector<ConnectionId>& sessions, SteadyTime deadline,
                    const StopFlag* stop) override {
    std::unique_lock<std::mutex> lock(state_->mu);
    for (;;) {
      const bool all = std::all_of(sessions.begin(), sessions.end(), [&](const ConnectionId& c) {
        return c.node == kServerNode && state_->blocked.count(c.id) > 0;
      });
      if (all) return true;
      if (stop != nullptr && stop->stop_requested()) return false;
      if (Clock::now() >= deadline) return false;
      state_->cv.wait_until(lock, std::min(deadline, Clock::now() + kStopPollSlice));
    }
  }
  EndWait AwaitEnded(const std::vector<ConnectionId>&, SteadyTime, const StopFlag*) override {
    EndWait w;
    w.error = "the fake engine ends no session";
    return w;
  }
  std::string Terminate(const std::vector<ConnectionId>&, SteadyTime) override {
    return "the fake engine ends no session";
  }
  std::string error() override { return ""; }
  bool healthy() override { return true; }
  ConnectionId connection_id() override { return {kServerNode, 0}; }
  void SetWaitListener(std::function<void(const WaitObservation&)> listener) override {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->watches[this].listener = std::move(listener);
  }

 private:
  std::shared_ptr<FakeEngine::State> state_;
};

}  // namespace

FakeEngine::FakeEngine(FakeScript script) : state_(std::make_shared<State>(std::move(script))) {
  caps_.levels = {IsolationLevel::kReadCommitted, IsolationLevel::kRepeatableRead,
                  IsolationLevel::kSerializable};
  caps_.terminate = false;
  info_.engine = "fake";
  info_.server_version = "fake";
}

FakeEngine::~FakeEngine() = default;

std::vector<FakeExec> FakeEngine::log() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->log;
}

std::vector<std::string> FakeEngine::blocked() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  std::vector<std::string> out;
  for (const auto& [id, holder] : state_->blocked) out.push_back(state_->labels.at(id));
  return out;
}

Result<std::unique_ptr<Session>> FakeEngine::OpenSession(const std::string& node,
                                                         const std::string& label, SteadyTime,
                                                         const StopFlag*) {
  if (node != kServerNode) return Status::Usage("the fake engine has no node '" + node + "'");
  std::lock_guard<std::mutex> lock(state_->mu);
  const int64_t id = ++state_->next_id;
  state_->labels[id] = label;
  return std::unique_ptr<Session>(std::make_unique<FakeSession>(state_, label, id));
}

Result<std::unique_ptr<WaitMonitor>> FakeEngine::OpenMonitor(std::chrono::microseconds, SteadyTime,
                                                             const StopFlag*) {
  return std::unique_ptr<WaitMonitor>(std::make_unique<FakeMonitor>(state_));
}

}  // namespace racelab::fake
