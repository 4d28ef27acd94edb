// StepSession::Walk (step_session.h): one walk — one trial of the item at one level on a thread of
// its own — shared by step_session.cc and step_typed.cc. Internal to harness/step.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "harness/model/stop_flag.h"
#include "harness/run/instructor_gate.h"
#include "harness/step/step_session.h"
#include "harness/step/step_view.h"

namespace racelab::step {

struct StepSession::Walk {
  Walk(int n, size_t lv) : number(n), level(lv) {}
  const int number;
  const size_t level;  // index in StepSession::items_
  StopFlag stop;       // the walk's own: Reset() and Quit() request it
  std::thread thread;
  std::thread snapshotter;
  std::unique_ptr<StepViewModel> model;  // guarded by StepSession::mu_
  bool snap_wanted = false;              // guarded by StepSession::mu_
  std::string snap_for;                  // guarded by StepSession::mu_
  bool snap_quit = false;                // guarded by StepSession::mu_
  bool first_held = false;               // guarded by StepSession::mu_
  // The trial's connections by label (from its gate's setup); guarded by StepSession::mu_.
  std::map<ConnectionId, std::string> labels;
  // Typed SQL (step_typed.cc). `typed` is guarded by StepSession::mu_, as is typed_session (the
  // session it runs on, -1: the teacher's connection) and typed_waited (a wait was announced).
  TypedView typed;
  int typed_session = -1;
  bool typed_waited = false;
  std::thread typed_thread;  // the teacher's statement; started and joined by the controller
  bool teacher_started =
      false;  // the teacher's connection is in this walk's workspace (its thread)
  // The trial's gate and monitor, valid from the gate's making to kTrialEnded.
  std::mutex gate_mu;
  InstructorGate* gate = nullptr;  // guarded by gate_mu
  WaitMonitor* monitor = nullptr;  // guarded by gate_mu
  std::string workspace;           // the trial's; guarded by gate_mu
};

}  // namespace racelab::step
