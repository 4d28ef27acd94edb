// Worker::RunProgram: an exec session (docs/race-your-own-code.md). Its steps are the program's
// stretches: `start` runs from the spawn to its first pause point, each pause point's step from its
// release to the next point or the exit. A pause point is a gate wait: every instance that lists it
// meets it as a barrier (free runs), or the order releases it (`order:`, OrderedGate). Whatever
// happens, the program's process group is gone when this returns (Program's destructor).
#include <fmt/format.h>

#include <string>

#include "harness/run/program.h"
#include "harness/run/worker.h"

namespace racelab {

namespace {

constexpr size_t kErrorOutputBytes = 600;  // of the program's last output, in a trial's error

}  // namespace

void Worker::ProgramFailed(StepEvent* ev, const std::string& why, bool scenario_error) {
  ev->completed_us = ctx_->NowUs();
  ev->message = why;
  if (out_.error.empty()) out_.error = fmt::format("{}: program: {}", session_->label, why);
  if (scenario_error) out_.scenario_error = true;
  Fail(*ev);
  out_.ended_trial = true;  // its cause is the trial's error; the others' ends are consequences
  ctx_->Abandon();
  for (Session* s : ctx_->sessions) {
    if (s != conn_) s->Cancel();
  }
}

WorkerOutput Worker::RunProgram() {
  const auto& steps = session_->steps;
  const size_t i_session = static_cast<size_t>(session_index_);
  std::unique_ptr<internal::Program> program;
  auto publish = [this](TrialEvent::Kind kind, const std::string& point, std::string message) {
    TrialEvent e;
    e.kind = kind;
    e.at_us = ctx_->NowUs();
    e.trial = ctx_->trial;
    e.session_index = session_index_;
    e.session = session_->label;
    e.step = point;
    e.message = std::move(message);
    ctx_->events->Publish(std::move(e));
  };
  auto with_output = [&program](std::string why) {
    if (program == nullptr) return why;
    std::string last = program->LastOutput(kErrorOutputBytes);
    return last.empty() ? why + "; it wrote nothing" : why + "; its last output, " + last;
  };
  for (size_t i = 0; i < steps.size(); ++i) {
    const PlannedStep& step = steps[i];
    const GateTurn turn{session_index_, session_, i, &step, attempt_, failed_};
    AwaitGate(turn);
    const bool stopping =
        ctx_->abort.load() || (ctx_->stop != nullptr && ctx_->stop->stop_requested());
    // A pause point listed by several instances: all arrive, all are released together.
    if (i > 0 && !step.barrier.empty() && !failed_ && !stopping) {
      SteadyTime released;
      BarrierMeeting meeting{step.barrier, ++barrier_counts_[step.barrier], 0, -1};
      auto r = ctx_->barriers.at(step.barrier)->ArriveAndWait(ctx_->deadline(), &released);
      if (r == Barrier::WaitResult::kReleased) {
        meeting.released_us = ctx_->ToUs(released);
        meeting.next_sent_us = ctx_->NowUs();  // the go is sent right after
        out_.meetings.push_back(meeting);
      } else if (r == Barrier::WaitResult::kTimedOut) {
        StepEvent ev = StartEvent(step);
        out_.deadline_exceeded = true;
        ProgramFailed(&ev,
                      with_output(fmt::format("pause point '{}': the other sessions that list it "
                                              "did not reach it before the trial deadline ({} ms)",
                                              step.name, ctx_->trial_timeout_ms)),
                      false);
        Record(std::move(ev));
        continue;
      }
    }
    ctx_->gate->Started(turn);
    StepEvent ev = StartEvent(step);
    const bool go =
        !failed_ && !ctx_->abort.load() && (ctx_->stop == nullptr || !ctx_->stop->stop_requested());
    if (!go) {
      ev.skipped = true;
      ev.completed_us = ev.sent_us;
      Record(std::move(ev));
      ctx_->gate->Ended(turn);
      continue;
    }
    if (i == 0) {
      const std::string& dsn =
          i_session < ctx_->program_dsns.size() ? ctx_->program_dsns[i_session] : std::string();
      if (dsn.empty()) {
        const std::string why = i_session < ctx_->program_dsn_errors.size()
                                    ? ctx_->program_dsn_errors[i_session]
                                    : "no connection string for programs";
        ProgramFailed(&ev, why, true);
      } else {
        internal::ProgramSpec spec{
            session_->program,
            session_->exec,
            session_->exec_dir,
            {{"RACELAB_DSN", dsn},
             {"RACELAB_ENGINE", ctx_->engine->name()},
             {"RACELAB_ISOLATION", std::string(IsolationName(ctx_->item->isolation))},
             {"RACELAB_SESSION", session_->label},
             {"RACELAB_TRIAL", std::to_string(ctx_->trial + 1)}}};
        auto started = internal::Program::Start(std::move(spec));
        if (!started.ok()) {
          ProgramFailed(&ev, started.status().message(),
                        started.status().code() == StatusCode::kUsage);
        } else {
          program = std::move(started.value());
        }
      }
    } else {
      publish(TrialEvent::Kind::kPauseReleased, step.name, "");
      program->Release();  // a program that hung up shows at its exit
    }
    if (failed_) {
      Record(std::move(ev));
      ctx_->gate->Ended(turn);
      continue;
    }
    const std::string next = i + 1 < steps.size() ? steps[i + 1].name : "";
    const long ms = StepMs(step);
    const internal::Program::Event e =
        program->Await(ctx_->DeadlineIn(ms), &ctx_->abort, ctx_->stop);
    ev.completed_us = ctx_->NowUs();
    using Kind = internal::Program::Event::Kind;
    const std::string reach = next.empty() ? "exit" : fmt::format("reach pause point '{}'", next);
    switch (e.kind) {
      case Kind::kPause:
        if (e.pause != next) {
          ProgramFailed(
              &ev,
              with_output(next.empty() ? fmt::format("reached pause point '{}' after its last "
                                                     "listed one (list it in pauses:)",
                                                     e.pause)
                                       : fmt::format("reached pause point '{}', expected '{}' "
                                                     "(pauses are reached in the listed order)",
                                                     e.pause, next)),
              true);
          program->Kill("an unexpected pause point");
        } else {
          ev.message = "reached " + next;
          publish(TrialEvent::Kind::kPauseReached, next, "");
        }
        break;
      case Kind::kExited: {
        const SessionResult::Program o = program->Outcome();
        publish(TrialEvent::Kind::kProgramEnded, step.name, o.ended);
        ev.message = o.ended;
        if (!next.empty()) {
          ProgramFailed(
              &ev, with_output(fmt::format("{} before it reached pause point '{}'", o.ended, next)),
              false);
        } else if (o.exit_code != 0) {
          ProgramFailed(&ev, with_output(o.ended), false);
        }
        break;
      }
      case Kind::kTimedOut: {
        const bool trial = std::chrono::steady_clock::now() >= ctx_->deadline();
        out_.deadline_exceeded = true;
        const std::string within =
            trial ? fmt::format("before the trial deadline ({} ms)", ctx_->trial_timeout_ms)
                  : fmt::format("within {} ms", ms);
        program->Kill(fmt::format("it did not {} {}", reach, within));
        ProgramFailed(&ev, with_output(fmt::format("did not {} {}; killed", reach, within)), false);
        break;
      }
      case Kind::kStopped:
        program->Kill(ctx_->stop != nullptr && ctx_->stop->stop_requested()
                          ? "racelab was interrupted"
                          : "the trial was abandoned");
        ev.message = program->Outcome().ended;
        failed_ = true;   // its remaining stretches are skipped
        ctx_->Abandon();  // and nobody waits for it at a pause point
        break;
      case Kind::kOverflow:
        ProgramFailed(&ev, with_output(program->Outcome().ended), false);
        break;
      case Kind::kProtocol:
        program->Kill("a line that is no pause point");
        ProgramFailed(&ev,
                      with_output(fmt::format("wrote {} on RACELAB_PAUSE, not a pause point name "
                                              "(NAME\\n, then it reads go\\n)",
                                              e.pause)),
                      true);
        break;
    }
    Record(std::move(ev));
    ctx_->gate->Ended(turn);
  }
  if (program != nullptr) {
    program->Kill(ctx_->abort.load() ? "the trial was abandoned" : "the trial is over");
    out_.session.program = program->Outcome();
    out_.session.committed = out_.session.program->exit_code == 0;
  } else {
    out_.session.program = SessionResult::Program{};
    out_.session.program->ended = failed_ ? "not started: " + out_.session.message : "not started";
  }
  return std::move(out_);
}

}  // namespace racelab
