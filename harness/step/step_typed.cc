// Typed SQL in step mode (step_session.h RunTyped; docs/step.md ":"): a statement the teacher
// types, on the teacher's connection or inside a held session's transaction, with its result, its
// lock wait and its deadline.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "harness/model/error_key.h"
#include "harness/model/error_names.h"
#include "harness/step/step_session.h"
#include "harness/step/step_walk.h"

namespace racelab::step {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kTypedRows = 5;                            // rows of a result shown
constexpr auto kTeacherConnect = std::chrono::seconds(10);  // open / start clean / roll back
constexpr auto kCancelEvery = std::chrono::milliseconds(50);

std::string Trimmed(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// The statement begins or ends a transaction (its first word): on a session's connection that
// would take its transaction from under its own steps.
bool TransactionControl(const std::string& sql) {
  std::string word;
  for (char c : sql) {
    if (!std::isalpha(static_cast<unsigned char>(c))) break;
    word += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  for (const char* w : {"BEGIN", "START", "COMMIT", "END", "ROLLBACK", "ABORT", "PREPARE"}) {
    if (word == w) return true;
  }
  return false;
}

}  // namespace

// What a typed statement gave: its rows (with the column names), its command tag, or the error
// with its SQLSTATE (or the engine's code) and name.
std::string TypedResultText(const std::string& engine, const QueryResult& r, long timeout_ms) {
  if (r.refused) return r.message;
  const std::string key = ErrorKey(r.sqlstate, r.error_code);
  if (!key.empty()) {
    return fmt::format(
        "ERROR {}: {}{}", ErrorKeyWithName(engine, key), OneLine(r.message, 200),
        r.cancelled_by_deadline
            ? fmt::format(" (cancelled at the typed statement's deadline, {})",
                          timeout_ms % 1000 == 0 ? fmt::format("{} s", timeout_ms / 1000)
                                                 : fmt::format("{} ms", timeout_ms))
            : "");
  }
  if (!r.columns.empty()) {
    std::vector<std::string> rows;
    for (const auto& row : r.values) {
      std::string line;
      for (size_t k = 0; k < row.size(); ++k) line += (k > 0 ? "|" : "") + row[k].value_or("NULL");
      rows.push_back(std::move(line));
    }
    const long n = std::max<long>(r.rows, static_cast<long>(rows.size()));
    return fmt::format("{} row{} ({}){}{}{}", n, n == 1 ? "" : "s", fmt::join(r.columns, "|"),
                       rows.empty() ? "" : ": ", fmt::join(rows, "; "),
                       static_cast<size_t>(n) > rows.size() ? "; …" : "");
  }
  if (!r.command_tag.empty()) {
    const bool counted = std::any_of(r.command_tag.begin(), r.command_tag.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c));
    });
    return counted || r.rows < 0 ? r.command_tag : fmt::format("{} {}", r.command_tag, r.rows);
  }
  return "done";
}

void StepSession::OpenTeacher() {
  const SteadyTime by = Clock::now() + kTeacherConnect;
  auto conn = options_.engine->OpenSession(kServerNode, "teacher", by, nullptr);
  if (!conn.ok()) {
    teacher_error_ = conn.status().message();
    return;
  }
  teacher_ = std::move(conn.value());
  // Without a monitor the teacher's lock wait shows as running (the statement still ends by its
  // deadline).
  auto monitor = options_.engine->OpenMonitor(options_.run.monitor_poll, by, nullptr);
  if (monitor.ok()) teacher_monitor_ = std::move(monitor.value());
}

Status StepSession::RunTyped(const std::string& target, const std::string& typed) {
  const std::string sql = Trimmed(typed);
  if (sql.empty()) return Status::Usage("type a statement after ':' (e.g. :SELECT * FROM runs)");
  std::unique_lock<std::mutex> lock(mu_);
  Walk* w = walk_.get();
  if (w == nullptr) return Status::Usage("step mode has ended");
  if (w->typed.running)
    return Status::Usage("a typed statement runs already (Esc in the terminal cancels it)");
  const StepView::Phase phase = w->model->view().phase;
  if (phase == StepView::Phase::kFinished || phase == StepView::Phase::kFailed)
    return Status::Usage("the walk is over, its workspace gone: b starts it again");
  if (target.empty()) {
    if (!teacher_) return Status::Usage("the teacher's connection did not open: " + teacher_error_);
    {
      std::lock_guard<std::mutex> g(w->gate_mu);  // lock order: mu_, then gate_mu
      if (w->workspace.empty()) return Status::Usage("the walk is starting: type it again");
    }
    if (w->typed_thread.joinable()) w->typed_thread.join();  // the last one has ended
    TypedStarted(w, "teacher", sql);
    w->typed_session = -1;
    w->typed_thread = std::thread([this, w, sql] { RunTeacher(w, sql); });
    lock.unlock();
    Notify();
    return Status::Ok();
  }
  int index = -1;
  for (size_t s = 0; s < items_[0].sessions.size(); ++s) {
    if (items_[0].sessions[s].label == target) index = static_cast<int>(s);
  }
  if (index < 0) return Status::Usage(fmt::format("no session '{}' in this scenario", target));
  if (TransactionControl(sql)) {
    return Status::Usage(fmt::format(
        ":{0} runs a statement inside {0}'s transaction, which {0}'s own steps begin and end: "
        "type it without '{0} ' to run it on the teacher's connection",
        target));
  }
  // Lock order: mu_, then gate_mu (the gate calls `done` outside its own lock, on a worker).
  std::lock_guard<std::mutex> g(w->gate_mu);
  if (w->gate == nullptr) return Status::Usage("the walk is over: b starts it again");
  TypedStatement t;
  t.sql = sql;
  t.deadline = Clock::now() + std::chrono::milliseconds(options_.typed_timeout_ms);
  t.max_rows = kTypedRows;
  t.done = [this, w](const QueryResult& r) {
    {
      std::lock_guard<std::mutex> done_lock(mu_);
      TypedEnded(w, r);
    }
    Notify();
  };
  const TypedView before = w->typed;
  const size_t lines = w->model->view().transcript.size();
  TypedStarted(w, target + ".typed", sql);
  w->typed_session = index;
  if (Status st = w->gate->RunOnHeld(index, std::move(t)); !st.ok()) {
    w->typed = before;
    w->model->mutable_view().transcript.resize(lines);
    return Status::Usage(
        fmt::format(":{}: {} — typed SQL runs on a session only while its next "
                    "step waits for a key",
                    target, st.message()));
  }
  lock.unlock();
  Notify();
  return Status::Ok();
}

void StepSession::RunTeacher(Walk* w, std::string sql) {  // the typed statement's thread
  std::string workspace;
  {
    std::lock_guard<std::mutex> g(w->gate_mu);
    workspace = w->workspace;
  }
  QueryResult r;
  if (!w->teacher_started) {
    bool lost = false;
    Status st = teacher_->StartClean({"teacher", workspace, {}}, Clock::now() + kTeacherConnect,
                                     items_[w->level].file, &lost);
    if (st.ok()) {
      w->teacher_started = true;
    } else {
      r.refused = true;
      r.message = "the teacher's connection: " + st.message();
    }
  }
  if (w->teacher_started) {
    if (teacher_monitor_) {
      teacher_monitor_->SetWaitListener([this, w](const WaitObservation& o) {
        {
          std::lock_guard<std::mutex> lock(mu_);
          TypedWaiting(w, o);
        }
        Notify();
      });
      teacher_monitor_->Begin({teacher_->connection_id()}, Clock::now());
    }
    r = teacher_->Exec(sql, Clock::now() + std::chrono::milliseconds(options_.typed_timeout_ms),
                       kTypedRows);
    if (teacher_monitor_) {
      teacher_monitor_->End();
      teacher_monitor_->SetWaitListener({});
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    TypedEnded(w, r);
  }
  Notify();
}

bool StepSession::CancelTyped() {
  Walk* w = nullptr;
  int session = -1;
  {
    std::lock_guard<std::mutex> lock(mu_);
    w = walk_.get();
    if (w == nullptr || !w->typed.running) return false;
    session = w->typed_session;
  }
  if (session < 0) {
    teacher_->Cancel();
  } else {
    std::lock_guard<std::mutex> g(w->gate_mu);
    if (w->gate != nullptr) w->gate->CancelTyped(session);
  }
  return true;
}

void StepSession::StopTyped(Walk* w) {
  // Cancel until it has ended: a cancel that comes before the statement reached the server is
  // lost (each Exec still ends by its deadline).
  std::unique_lock<std::mutex> lock(mu_);
  while (w->typed.running) {
    const int session = w->typed_session;
    lock.unlock();
    if (session < 0) {
      teacher_->Cancel();
    } else {
      std::lock_guard<std::mutex> g(w->gate_mu);
      // Not yet taken by its worker: the walk's Abandon() ends it (refused, not run).
      if (w->gate == nullptr || !w->gate->CancelTyped(session)) break;
    }
    lock.lock();
    changed_.wait_for(lock, kCancelEvery, [w] { return !w->typed.running; });
  }
  if (lock.owns_lock()) lock.unlock();
  if (w->typed_thread.joinable()) w->typed_thread.join();
  // A transaction the teacher typed open would hold its locks into the next walk's reset.
  if (teacher_ && teacher_->in_transaction())
    teacher_->Exec("ROLLBACK", Clock::now() + kTeacherConnect);
}

void StepSession::TypedStarted(Walk* w, const std::string& who, const std::string& sql) {
  w->typed = TypedView{.who = who, .sql = OneLine(sql, 200), .running = true};
  w->typed_waited = false;
  StepView& v = w->model->mutable_view();
  v.transcript.push_back(fmt::format("step {}: {}", who, w->typed.sql));
  ++v.version;
}

void StepSession::TypedWaiting(Walk* w, const WaitObservation& o) {
  if (!w->typed.running) return;
  auto label_of = [w](int64_t id) -> std::string {
    for (const auto& [conn, label] : w->labels) {
      if (conn.id == id) return label;
    }
    return "(other backend)";
  };
  if (w->typed_session >= 0 &&
      label_of(o.session_id) != items_[0].sessions[static_cast<size_t>(w->typed_session)].label)
    return;
  std::vector<std::string> holders;
  for (int64_t id : o.blocking) holders.push_back(label_of(id));
  std::string joined = fmt::format("{}", fmt::join(holders, ", "));
  if (joined.empty()) joined = "?";
  if (w->typed.waiting_for == joined && w->typed.wait_type == o.wait_event) return;
  w->typed.waiting_for = joined;
  w->typed.wait_type = o.wait_event;
  StepView& v = w->model->mutable_view();
  if (!w->typed_waited) {
    w->typed_waited = true;
    v.transcript.push_back(
        fmt::format("step {}: <waiting for {} ({})>", w->typed.who, joined, o.wait_event));
  }
  ++v.version;
}

void StepSession::TypedEnded(Walk* w, const QueryResult& r) {
  w->typed.running = false;
  w->typed.waiting_for.clear();
  w->typed.wait_type.clear();
  w->typed.result = TypedResultText(options_.engine->name(), r, options_.typed_timeout_ms);
  StepView& v = w->model->mutable_view();
  if (w->typed_waited)
    v.transcript.push_back(fmt::format("step {}: <... completed>", w->typed.who));
  v.transcript.push_back("  " + w->typed.result);
  ++v.version;
  changed_.notify_all();
}

bool StepSession::TypedQuietLocked() const {
  return !walk_ || !walk_->typed.running || !walk_->typed.waiting_for.empty();
}

bool StepSession::TypedQuiet() const {
  std::lock_guard<std::mutex> lock(mu_);
  return TypedQuietLocked();
}

}  // namespace racelab::step
