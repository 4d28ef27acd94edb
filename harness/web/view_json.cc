// The step view as JSON (view_json.h).
#include "harness/web/view_json.h"

#include <nlohmann/json.hpp>

namespace racelab::web {
namespace {

const char* PhaseName(step::StepView::Phase p) {
  switch (p) {
    case step::StepView::Phase::kStarting:
      return "starting";
    case step::StepView::Phase::kRunning:
      return "running";
    case step::StepView::Phase::kFinished:
      return "finished";
    case step::StepView::Phase::kFailed:
      return "failed";
  }
  return "running";
}

nlohmann::json SessionJson(const step::SessionView& s) {
  return {{"label", s.label},
          {"next_step", s.next_step},
          {"next_label", s.next_label},
          {"next_sql", s.next_sql},
          {"next_ask", s.next_ask},
          {"at_gate", s.at_gate},
          {"state", step::SessionStateName(s.state)},
          {"waiting", s.state == step::SessionState::kWaiting},
          {"in_transaction", s.in_transaction},
          {"running_step", s.running_step},
          {"running_label", s.running_label},
          {"running_what", s.running_what},
          {"waiting_for", s.waiting_for},
          {"wait_type", s.wait_type},
          {"last_step", s.last_step},
          {"last_label", s.last_label},
          {"last_result", s.last_result}};
}

nlohmann::json AskJson(const step::AskView& a) {
  if (a.session.empty()) return nullptr;
  return {{"session", a.session},
          {"step", a.step},
          {"step_label", a.step_label},
          {"question", a.question},
          {"answer", a.answer}};
}

}  // namespace

std::string ViewJson(const step::StepView& v, size_t transcript_lines) {
  nlohmann::json j;
  j["walk"] = v.walk;
  j["phase"] = PhaseName(v.phase);
  j["message"] = v.message;
  j["engine"] = v.engine;
  j["scenario"] = v.scenario;
  j["isolation"] = v.isolation;
  j["next_session"] = v.next_session;
  j["version"] = v.version;
  j["reset_ms"] = v.reset_ms;
  j["sessions"] = nlohmann::json::array();
  for (const step::SessionView& s : v.sessions) j["sessions"].push_back(SessionJson(s));
  j["locks"] = nlohmann::json::array();
  for (const step::LockLine& l : v.locks) {
    j["locks"].push_back({{"session", l.session},
                          {"lock_type", l.lock_type},
                          {"mode", l.mode},
                          {"object", l.object},
                          {"granted", l.granted},
                          {"change", std::string(1, l.change)}});
  }
  j["locks_after"] = v.locks_after;
  j["locks_note"] = v.locks_note;
  j["ask_next"] = AskJson(v.ask_next);
  j["asked"] = AskJson(v.asked);
  j["waits"] = nlohmann::json::array();
  for (const step::WaitEdge& w : v.waits)
    j["waits"].push_back({{"waiter", w.waiter}, {"holder", w.holder}, {"lock_type", w.lock_type}});
  const size_t from =
      v.transcript.size() > transcript_lines ? v.transcript.size() - transcript_lines : 0;
  j["transcript"] = nlohmann::json::array();
  for (size_t i = from; i < v.transcript.size(); ++i) j["transcript"].push_back(v.transcript[i]);
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace racelab::web
