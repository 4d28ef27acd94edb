#include "harness/step/step_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <tuple>

#include "harness/model/condition.h"
#include "harness/model/error_key.h"
#include "harness/model/error_names.h"
#include "harness/model/step_kind.h"
#include "harness/model/step_label.h"

namespace racelab::step {
namespace {

bool WaitsOnOthers(StepKind k) {
  return k == StepKind::kBarrier || k == StepKind::kAwaitBlocked || k == StepKind::kAwaitEnded;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "claim → 0 rows"; a result that only repeats the label ("COMMIT" of a commit) once.
std::string Outcome(const std::string& label, const std::string& result) {
  return Lower(label) == Lower(result) ? label : label + " → " + result;
}

}  // namespace

const char* SessionStateName(SessionState s) {
  switch (s) {
    case SessionState::kIdle:
      return "idle";
    case SessionState::kInTransaction:
      return "in transaction";
    case SessionState::kRunning:
      return "running";
    case SessionState::kWaiting:
      return "waiting";
    case SessionState::kDone:
      return "done";
  }
  return "?";
}

std::string OneLine(const std::string& sql, size_t max) {
  std::string out;
  bool space = false;
  for (char c : sql) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  size_t points = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if ((static_cast<unsigned char>(out[i]) & 0xC0) == 0x80) continue;
    if (++points > max) return out.substr(0, i) + "…";
  }
  return out;
}

StepViewModel::StepViewModel(const PlanItem& item, std::string engine,
                             std::vector<std::vector<std::string>> describe, int walk)
    : item_(item), describe_(std::move(describe)), tracks_(item.sessions.size()) {
  view_.walk = walk;
  view_.engine = std::move(engine);
  view_.scenario = item.scenario;
  view_.isolation = std::string(IsolationName(item.isolation));
  for (const PlannedSession& s : item.sessions) view_.sessions.push_back({.label = s.label});
  for (size_t s = 0; s < tracks_.size(); ++s) Refresh(s);
}

void StepViewModel::SetConnections(std::map<ConnectionId, std::string> labels, ConnectionId monitor,
                                   const std::string& locks_note) {
  labels_ = std::move(labels);
  monitor_ = monitor;
  view_.locks_note = locks_note;
  Changed();
}

std::string StepViewModel::LabelOf(int64_t id) const {
  for (const auto& [conn, label] : labels_) {
    if (conn.id == id) return label;
  }
  return id == monitor_.id ? "racelab:monitor" : "(other backend)";
}

std::string StepViewModel::Label(size_t s, size_t k) const {
  const PlannedStep& st = item_.sessions[s].steps[k];
  return internal::StepLabel(st.name, st.kind, st.sql);
}

std::string StepViewModel::Sends(size_t s, size_t k) const {
  const std::string& what = describe_[s][k];
  const StepKind kind = item_.sessions[s].steps[k].kind;
  const auto& captured = tracks_[s].captured;
  if ((kind != StepKind::kSql && kind != StepKind::kProbe) || captured.empty() ||
      what.find("${") == std::string::npos)
    return what;
  // A value not captured yet keeps its placeholder (SubstituteRefs then never fails).
  std::string out, missing;
  SubstituteRefs(
      what,
      [&](const std::string& name) -> std::optional<std::string> {
        const auto it = captured.find(name);
        return it != captured.end() ? it->second : "${" + name + "}";
      },
      &out, &missing);
  return OneLine(out);
}

void StepViewModel::Refresh(size_t s) {
  const Track& t = tracks_[s];
  SessionView& v = view_.sessions[s];
  const auto& steps = item_.sessions[s].steps;
  size_t next = t.running >= 0 ? static_cast<size_t>(t.running) + 1 : t.next;
  v.next_step = next < steps.size() ? steps[next].name : "";
  v.next_label = next < steps.size() ? Label(s, next) : "";
  v.next_sql = next < steps.size() ? Sends(s, next) : "";
  v.next_ask = next < steps.size() ? OneLine(steps[next].ask, 300) : "";
  if (t.running >= 0) {
    v.running_step = steps[static_cast<size_t>(t.running)].name;
    v.running_label = Label(s, static_cast<size_t>(t.running));
    v.running_what = Sends(s, static_cast<size_t>(t.running));
    v.state = !v.waiting_for.empty() ? SessionState::kWaiting : SessionState::kRunning;
  } else {
    v.running_step.clear();
    v.running_label.clear();
    v.running_what.clear();
    v.state = t.next >= steps.size() ? SessionState::kDone
              : v.in_transaction     ? SessionState::kInTransaction
                                     : SessionState::kIdle;
  }
}

int StepViewModel::Releases(int s) const {
  if (s >= 0) return tracks_.at(static_cast<size_t>(s)).releases;
  int n = 0;
  for (const Track& t : tracks_) n += t.releases;
  return n;
}

bool StepViewModel::Fold(const TrialEvent& e) {
  using Kind = TrialEvent::Kind;
  if (e.kind == Kind::kTrialStarted) {
    view_.phase = StepView::Phase::kRunning;
    Changed();
    return true;
  }
  if (e.kind == Kind::kLockSnapshot) {
    if (e.locks) {
      FoldLocks(*e.locks, "after " + e.session + "." + e.step);
    } else if (!e.message.empty()) {
      view_.locks_note = "locks: " + e.message;
      Changed();
    }
    return true;
  }
  if (e.kind == Kind::kWaiting) {
    if (!e.wait) return false;
    const std::string waiter = LabelOf(e.wait->session_id);
    for (size_t s = 0; s < tracks_.size(); ++s) {
      Track& t = tracks_[s];
      SessionView& v = view_.sessions[s];
      if (v.label != waiter || t.running < 0 || e.wait->poll_sent_us < t.started_us) continue;
      std::vector<std::string> holders;
      for (int64_t id : e.wait->blocking) holders.push_back(LabelOf(id));
      // A poll between the holder's COMMIT and the waiter's wake-up still sees the wait, with no
      // blocker left (PostgreSQL's pg_blocking_pids is already empty): keep the holders known.
      if (holders.empty() && !v.waiting_for.empty()) return false;
      std::string joined = fmt::format("{}", fmt::join(holders, ", "));
      if (joined.empty()) joined = "?";
      if (v.waiting_for == joined && v.wait_type == e.wait->wait_event) return false;
      v.waiting_for = joined;
      v.wait_type = e.wait->wait_event;
      if (v.waiting_since_us < 0) {
        v.waiting_since_us = e.at_us;
        v.waiting_seen_wall_us = std::chrono::duration_cast<std::chrono::microseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count();
      }
      view_.waits.erase(std::remove_if(view_.waits.begin(), view_.waits.end(),
                                       [&](const WaitEdge& w) { return w.waiter == waiter; }),
                        view_.waits.end());
      for (const std::string& h : holders) view_.waits.push_back({waiter, h, v.wait_type});
      std::stable_sort(view_.waits.begin(), view_.waits.end(),
                       [](const WaitEdge& a, const WaitEdge& b) { return a.waiter < b.waiter; });
      if (!t.announced_wait) {
        t.announced_wait = true;
        view_.transcript.push_back(fmt::format("step {}.{}: <waiting for {} ({})>", waiter,
                                               v.running_step, v.waiting_for, v.wait_type));
      }
      Refresh(s);
      Changed();
      return true;
    }
    return false;
  }
  if (e.session_index < 0 || static_cast<size_t>(e.session_index) >= tracks_.size()) {
    if (e.kind == Kind::kTrialEnded) {
      view_.waits.clear();
      Changed();
      return true;
    }
    return false;
  }
  const size_t s = static_cast<size_t>(e.session_index);
  Track& t = tracks_[s];
  SessionView& v = view_.sessions[s];
  const auto& steps = item_.sessions[s].steps;
  auto index_of = [&](const std::string& name) {
    for (size_t k = t.next; k < steps.size(); ++k) {
      if (steps[k].name == name) return k;
    }
    for (size_t k = 0; k < steps.size(); ++k) {  // a retry runs its steps again
      if (steps[k].name == name) return k;
    }
    return steps.size();
  };
  switch (e.kind) {
    case Kind::kGateHeld:
      v.at_gate = true;
      t.next = index_of(e.step);
      break;
    case Kind::kGateReleased:
      v.at_gate = false;
      ++t.releases;
      if (asked_.open) {  // the next key: the question asked before is answered
        asked_.open = false;
        view_.asked = AskView();
      }
      break;
    case Kind::kStepStarted: {
      const size_t k = index_of(e.step);
      if (k >= steps.size()) return false;
      t.running = static_cast<int>(k);
      t.started_us = e.at_us;
      t.announced_wait = false;
      if (!steps[k].ask.empty() && e.attempt == 1) {
        OpenAsk(s, k);
        view_.transcript.push_back(
            fmt::format("ask {}.{}: {}", v.label, steps[k].name, OneLine(steps[k].ask, 300)));
      }
      if (!WaitsOnOthers(steps[k].kind) && steps[k].kind != StepKind::kSleep)
        view_.transcript.push_back(
            fmt::format("step {}.{}: {}", v.label, steps[k].name, OneLine(Sends(s, k), 200)));
      break;
    }
    case Kind::kStepEnded:
      if (!e.ended) return false;
      OnEnded(s, *e.ended);
      break;
    default:
      return false;
  }
  Refresh(s);
  Changed();
  return true;
}

std::string StepViewModel::ResultText(const StepEvent& ev) const {
  if (ev.skipped) return "skipped";
  const std::string key = ErrorKey(ev.sqlstate, ev.error_code);
  if (!key.empty()) {
    return fmt::format("ERROR {}: {}", ErrorKeyWithName(view_.engine, key),
                       OneLine(ev.message, 120));
  }
  if (!ev.message.empty()) return OneLine(ev.message, 120);  // a harness wait that failed
  switch (ev.kind) {
    case StepKind::kBegin:
      return "BEGIN";
    case StepKind::kCommit:
      return "COMMIT";
    case StepKind::kRollback:
      return "ROLLBACK";
    default:
      break;
  }
  if (ev.rows < 0) return "done";
  std::string text = fmt::format("{} row{}", ev.rows, ev.rows == 1 ? "" : "s");
  if (ev.read && !ev.read->empty()) text += ": " + fmt::format("{}", fmt::join(*ev.read, "; "));
  return text;
}

void StepViewModel::OnEnded(size_t s, const StepEvent& ev) {
  Track& t = tracks_[s];
  SessionView& v = view_.sessions[s];
  const auto& steps = item_.sessions[s].steps;
  const size_t k = t.running >= 0 ? static_cast<size_t>(t.running) : t.next;
  t.running = -1;
  t.next = k + 1;
  for (const auto& [name, value] : ev.captured) t.captured[name] = value;
  const bool waited = !v.waiting_for.empty();
  const std::string waited_for = v.waiting_for;
  v.waiting_for.clear();
  v.wait_type.clear();
  v.waiting_since_us = -1;
  v.waiting_seen_wall_us = 0;
  view_.waits.erase(std::remove_if(view_.waits.begin(), view_.waits.end(),
                                   [&](const WaitEdge& w) { return w.waiter == v.label; }),
                    view_.waits.end());
  const bool ok = ev.sqlstate.empty() && ev.message.empty() && !ev.skipped;
  if (ev.kind == StepKind::kBegin && ok) v.in_transaction = true;
  if (ev.kind == StepKind::kCommit || ev.kind == StepKind::kRollback) v.in_transaction = false;
  const StepKind kind = k < steps.size() ? steps[k].kind : ev.kind;
  if (WaitsOnOthers(kind) || kind == StepKind::kSleep) {
    if (!ok)
      view_.transcript.push_back(fmt::format("({}.{}: {})", v.label, ev.step, ResultText(ev)));
    return;
  }
  v.last_step = ev.step;
  v.last_label = k < steps.size() ? Label(s, k) : ev.step;
  v.last_result = ResultText(ev);
  ++t.results;
  t.last_waited_for = waited_for;
  if (waited)
    view_.transcript.push_back(fmt::format("step {}.{}: <... completed>", v.label, ev.step));
  view_.transcript.push_back("  " + v.last_result);
}

void StepViewModel::OpenAsk(size_t s, size_t k) {
  asked_.session = s;
  asked_.open = true;
  asked_.results_before.clear();
  asked_.waiting_before.clear();
  for (size_t i = 0; i < tracks_.size(); ++i) {
    asked_.results_before.push_back(tracks_[i].results);
    asked_.waiting_before.push_back(view_.sessions[i].waiting_for);
  }
  const PlannedStep& st = item_.sessions[s].steps[k];
  view_.asked = {.session = view_.sessions[s].label,
                 .step = st.name,
                 .step_label = Label(s, k),
                 .question = OneLine(st.ask, 300),
                 .answer = {}};
}

void StepViewModel::AnswerAsk() {
  std::vector<std::string> lines;
  auto line_of = [&](size_t i) -> std::string {
    const SessionView& v = view_.sessions[i];
    const Track& t = tracks_[i];
    const bool asked = i == asked_.session;
    if (v.state == SessionState::kWaiting && (asked || v.waiting_for != asked_.waiting_before[i]))
      return fmt::format("{} is waiting for {} ({})", v.label, v.waiting_for, v.wait_type);
    if (t.results > asked_.results_before[i]) {
      std::string line = fmt::format("{}: {}", v.label, Outcome(v.last_label, v.last_result));
      if (!t.last_waited_for.empty()) line += " (after waiting for " + t.last_waited_for + ")";
      return line;
    }
    if (asked && v.state == SessionState::kRunning)
      return fmt::format("{} is running {}", v.label, v.running_label);
    return "";
  };
  if (std::string l = line_of(asked_.session); !l.empty()) lines.push_back(std::move(l));
  for (size_t i = 0; i < tracks_.size(); ++i) {
    if (i == asked_.session) continue;
    if (std::string l = line_of(i); !l.empty()) lines.push_back(std::move(l));
  }
  view_.asked.answer = std::move(lines);
}

void StepViewModel::Changed() {
  if (asked_.open) AnswerAsk();
  ++view_.version;
}

void StepViewModel::Finish(StepView::Phase phase, const std::string& message) {
  asked_.open = false;  // the answer stays as the walk left it
  view_.phase = phase;
  view_.message = message;
  for (SessionView& v : view_.sessions) {
    v.at_gate = false;
    v.waiting_for.clear();
  }
  view_.waits.clear();
  for (size_t s = 0; s < tracks_.size(); ++s) {
    tracks_[s].running = -1;
    Refresh(s);
  }
  Changed();
}

}  // namespace racelab::step
