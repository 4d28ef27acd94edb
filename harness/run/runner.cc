#include "harness/run/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/thread/thread.hpp>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "harness/run/item_session.h"
#include "harness/run/lock_waits.h"
#include "harness/run/release_check.h"
#include "harness/run/trial_context.h"
#include "harness/run/worker.h"

namespace racelab {

namespace {

// Barrier releases with the skew of the participants' next sends.
std::vector<BarrierRelease> Releases(const std::vector<WorkerOutput>& outs) {
  std::map<std::pair<std::string, int>, BarrierRelease> by_key;
  std::map<std::pair<std::string, int>, std::pair<int64_t, int64_t>> sends;  // min, max
  for (const auto& o : outs) {
    for (const auto& m : o.meetings) {
      auto key = std::make_pair(m.barrier, m.occurrence);
      auto& r = by_key[key];
      r.barrier = m.barrier;
      r.occurrence = m.occurrence;
      r.released_us = m.released_us;
      if (m.next_sent_us < 0) continue;
      auto it = sends.find(key);
      if (it == sends.end()) {
        sends[key] = {m.next_sent_us, m.next_sent_us};
      } else {
        it->second.first = std::min(it->second.first, m.next_sent_us);
        it->second.second = std::max(it->second.second, m.next_sent_us);
      }
    }
  }
  std::vector<BarrierRelease> out;
  for (auto& [key, r] : by_key) {
    auto s = sends.find(key);
    r.skew_us = s == sends.end() ? 0 : s->second.second - s->second.first;
    out.push_back(r);
  }
  std::sort(out.begin(), out.end(), [](const BarrierRelease& a, const BarrierRelease& b) {
    return a.released_us < b.released_us;
  });
  return out;
}

// An error already recorded (an event's or a final check's SQLSTATE, and the engine's own code when
// there is one), to ask the engine about it.
QueryResult RecordedError(const std::string& sqlstate, const std::string& error_code = "") {
  QueryResult r;
  r.sqlstate = sqlstate;
  r.error_code = error_code;
  return r;
}

// The deadline for reading a trial's lock waits from the server log.
constexpr std::chrono::seconds kServerLogDeadline{5};

TrialResult RunTrial(const RunOptions& options, const PlanItem& item, internal::ItemSession& conns,
                     ServerWaitLog* server_log, int index) {
  const Engine& engine = *options.engine;
  TrialContext ctx;
  ctx.item = &item;
  ctx.trial = index;
  ctx.statement_timeout_ms = options.statement_timeout_ms;
  ctx.trial_timeout_ms = options.trial_timeout_ms;
  ctx.stop = options.stop;
  ctx.monitor = conns.monitor();
  ctx.control = conns.control();  // for probe steps (TrialContext::control_mutex)
  ctx.engine = options.engine;
  std::map<std::string, int> parties;
  std::map<ConnectionId, std::string> pid_labels;
  std::map<std::string, ConnectionId> label_pids;
  std::vector<ConnectionId> pids;
  for (size_t i = 0; i < item.sessions.size(); ++i) {
    const auto& s = item.sessions[i];
    const ConnectionId pid = conns.session_conn(i)->connection_id();
    ctx.role_pids[s.role].push_back(pid);
    ctx.sessions.push_back(conns.session_conn(i));
    pid_labels[pid] = s.label;
    label_pids[s.label] = pid;
    pids.push_back(pid);
    std::set<std::string> listed;
    for (const auto& st : s.steps) {
      // A barrier step, or an exec session's pause point met by every instance that lists it.
      if (st.kind == StepKind::kBarrier || (st.kind == StepKind::kProgram && !st.barrier.empty()))
        listed.insert(st.barrier);
    }
    for (const auto& b : listed) ++parties[b];
    if (!s.exec.empty()) {  // RACELAB_DSN: the trial's workspace, as the confined role
      ctx.program_dsns.resize(item.sessions.size());
      ctx.program_dsn_errors.resize(item.sessions.size());
      Result<std::string> dsn =
          engine.ProgramDsn(conns.schema(), s.label, item.isolation, s.settings);
      if (dsn.ok()) {
        ctx.program_dsns[i] = std::move(dsn.value());
      } else {
        ctx.program_dsn_errors[i] = dsn.status().message();
      }
    }
  }
  for (const auto& [name, n] : parties) ctx.barriers[name] = std::make_unique<Barrier>(n);
  TrialEvents events;
  if (options.subscriber) events.Subscribe(options.subscriber);
  ctx.events = &events;
  ctx.lock_snapshots = options.lock_snapshots;
  ctx.gate_hold_timeout_ms = options.gate_hold_timeout_ms;
  const GateSetup gate_setup{&item,   index,      &ctx.role_pids, ctx.monitor,
                             &events, &ctx.clock, conns.schema()};
  ctx.gate = options.gate ? options.gate(gate_setup) : MakeDefaultGate(gate_setup);
  // Live waits: every observation of the monitor, as it makes it.
  ctx.monitor->SetWaitListener([&ctx, &events, index](const WaitObservation& o) {
    TrialEvent e;
    e.kind = TrialEvent::Kind::kWaiting;
    e.at_us = ctx.NowUs();
    e.trial = index;
    e.wait = o;
    events.Publish(std::move(e));
  });
  // However the trial ends (a broken invariant may throw), the monitor stops and forgets the
  // listener before this trial's stream is gone. Both are idempotent: the normal path ends it
  // below.
  struct ListenerGuard {
    WaitMonitor* monitor;
    ~ListenerGuard() {
      monitor->End();
      monitor->SetWaitListener({});
    }
  } listener_guard{ctx.monitor};

  ctx.origin = std::chrono::steady_clock::now();
  const int64_t origin_wall_us = std::chrono::duration_cast<std::chrono::microseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count();
  ctx.clock.Start(ctx.origin, std::chrono::milliseconds(options.trial_timeout_ms));
  {
    TrialEvent e;
    e.kind = TrialEvent::Kind::kTrialStarted;
    e.trial = index;
    events.Publish(std::move(e));
  }
  ctx.monitor->Begin(pids, ctx.origin);

  std::vector<WorkerOutput> outs(item.sessions.size());
  std::vector<size_t> order(item.sessions.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937_64 rng(options.seed * 1000003u + static_cast<uint64_t>(index));
  std::shuffle(order.begin(), order.end(), rng);
  boost::thread_group threads;
  std::vector<boost::thread*> handles(order.size());
  for (size_t i : order) {
    handles[i] = threads.create_thread([&ctx, &item, &conns, &outs, i] {
      try {
        Worker w(&ctx, static_cast<int>(i), &item.sessions[i], conns.session_conn(i));
        outs[i] = w.Run();
      } catch (const std::exception& e) {  // a broken invariant: report it, never strand the others
        outs[i].session.label = item.sessions[i].label;
        outs[i].session.role = item.sessions[i].role;
        outs[i].error = fmt::format("{}: internal error: {}", item.sessions[i].label, e.what());
        ctx.Abandon();
      }
    });
  }
  TrialResult result;
  result.index = index;
  // Join with the trial deadline (plus the cancel grace); past it, abandon the trial: wake the
  // barriers, cancel every statement, and wait for the workers to notice. The deadline is read
  // again after each slice: a gate's pause moves it (trial_clock.h).
  auto join_by = [&ctx] { return ctx.deadline() + std::chrono::seconds(6); };
  bool joined = std::all_of(handles.begin(), handles.end(), [&](boost::thread* h) {
    for (;;) {
      const auto left = join_by() - std::chrono::steady_clock::now();
      if (left <= std::chrono::steady_clock::duration::zero())
        return h->try_join_for(boost::chrono::milliseconds(0));
      const auto slice =
          std::min<std::chrono::steady_clock::duration>(left, std::chrono::seconds(1));
      if (h->try_join_for(boost::chrono::microseconds(
              std::chrono::duration_cast<std::chrono::microseconds>(slice).count())))
        return true;
    }
  });
  if (!joined) {
    ctx.Abandon();
    for (size_t i = 0; i < item.sessions.size(); ++i) conns.session_conn(i)->Cancel();
    conns.control()->Cancel();  // a probe that still runs
    result.deadline_exceeded = true;
    result.error = fmt::format("trial passed its deadline ({} ms) and was abandoned",
                               options.trial_timeout_ms);
  }
  threads.join_all();
  result.duration_us = ctx.NowUs();
  // The race is over: the next trial's workspace may be prepared while this one's is read.
  if (!result.deadline_exceeded) conns.PrepareAhead(index + 1);
  auto observations = ctx.monitor->End();
  ctx.monitor->SetWaitListener({});  // it refers to this trial's stream
  std::string monitor_error = ctx.monitor->error();
  {
    TrialEvent e;
    e.kind = TrialEvent::Kind::kTrialEnded;
    e.at_us = result.duration_us;
    e.trial = index;
    events.Publish(std::move(e));
  }

  // A worker that ended the trial early (an order that could not go on) names its cause first; the
  // others' cancelled statements are its consequences.
  for (const auto& o : outs) {
    if (o.ended_trial && result.error.empty()) result.error = o.error;
  }
  // The trial's record of steps is its event stream folded (trial_events.h).
  result.events = FoldSteps(events.events());
  for (auto& o : outs) {
    result.sessions.push_back(o.session);
    if (o.deadline_exceeded) result.deadline_exceeded = true;
    if (o.scenario_error) result.scenario_error = true;
    if (result.error.empty() && !o.error.empty()) result.error = o.error;
  }
  if (result.error.empty() && !monitor_error.empty()) result.error = monitor_error;
  std::vector<internal::OwnTermination> own;
  for (const auto& o : outs) own.insert(own.end(), o.terminated.begin(), o.terminated.end());
  // A session lost to something outside the scenario: the root cause, named before its
  // consequences.
  auto lost = [&engine](const StepEvent& ev) {
    return engine.IsSessionLost(RecordedError(ev.sqlstate, ev.error_code));
  };
  if (std::string fault = internal::OutsideFault(result.events, label_pids, own, lost);
      !fault.empty()) {
    result.error = result.error.empty() ? fault : fault + "; then: " + result.error;
  }
  // A disk that filled, an I/O error: the machine's fault, not the race's
  // (Engine::IsInfrastructureFault).
  auto machine = [&engine](const StepEvent& ev) {
    return engine.IsInfrastructureFault(RecordedError(ev.sqlstate, ev.error_code));
  };
  if (std::string fault = internal::MachineFault(result.events, machine); !fault.empty()) {
    result.error = result.error.empty() ? fault : fault + "; then: " + result.error;
  }
  internal::BackendNames names{pid_labels, label_pids, {}};
  names.pid_labels[conns.control()->connection_id()] = "racelab:control";
  names.pid_labels[ctx.monitor->connection_id()] = "racelab:monitor";
  if (server_log != nullptr) {
    auto batch =
        server_log->Collect(conns.control(), std::chrono::steady_clock::now() + kServerLogDeadline);
    if (batch.ok()) {
      for (const auto& [id, kind] : batch->session_kinds)
        names.backend_types[{batch->node, id}] = kind;
      internal::AttributeServerLockWaits(batch->waits, batch->node, origin_wall_us, names,
                                         &result.events);
    } else if (result.error.empty()) {
      result.error = batch.status().message();
    }
  }
  internal::AttributeLockWaits(observations, names, &result.events);
  result.barriers = Releases(outs);
  JudgeReleases(&result.barriers, parties,
                Barrier::OnlineCpus());  // says when it could not be simultaneous
  // A trial cut short by a stop request is not evaluated: its final checks would only wait.
  if (options.stop == nullptr || !options.stop->stop_requested()) result.finals = conns.RunFinals();
  for (const auto& f : result.finals) {
    // A final check that cannot run says nothing about the race: the trial is an error, not a fail.
    if (!f.error.empty() && result.error.empty())
      result.error = "final check '" + f.sql + "' failed: " + f.error;
    if (engine.IsScenarioError(RecordedError(f.error.substr(0, 5)))) result.scenario_error = true;
  }
  std::string teardown = conns.RunTeardown(&result.scenario_error);
  if (!teardown.empty() && result.error.empty()) result.error = teardown;
  return result;
}

}  // namespace

Runner::Runner(RunOptions options) : options_(std::move(options)) {}
Runner::~Runner() = default;

Status Runner::RunItem(const PlanItem& item, std::vector<TrialResult>* trials,
                       const TrialCallback& on_trial) {
  if (server_lost_)
    return Status::Database("not run: the server stopped answering during an earlier scenario");
  Status s = RunItemOnce(item, trials, on_trial);
  const bool stopped = options_.stop != nullptr && options_.stop->stop_requested();
  if (s.code() == StatusCode::kDatabase && !stopped &&
      !options_.engine->ServerAnswers(std::chrono::steady_clock::now() +
                                      std::chrono::milliseconds(options_.connect_timeout_ms))) {
    server_lost_ = true;
  }
  return s;
}

bool Runner::stopped() const { return options_.stop != nullptr && options_.stop->stop_requested(); }

Status Runner::Interrupted(int trial, const PlanItem& item) {
  return Status::Database(fmt::format("interrupted before trial {} of {}", trial + 1, item.trials));
}

Status Runner::RunItemOnce(const PlanItem& item, std::vector<TrialResult>* trials,
                           const TrialCallback& on_trial) {
  if (!wait_log_opened_) {
    auto log = options_.engine->OpenWaitLog();
    if (!log.ok()) return log.status();
    wait_log_ = std::move(log.value());
    wait_log_opened_ = true;
  }
  const auto now = std::chrono::steady_clock::now();
  Status locked = options_.engine->HoldRunLock(
      now + std::chrono::milliseconds(options_.connect_timeout_ms),
      now + std::chrono::milliseconds(options_.statement_timeout_ms), options_.stop);
  if (!locked.ok()) return stopped() ? Interrupted(0, item) : locked;
  std::vector<std::string> workspaces;
  for (int i = internal::ItemSession::WorkspaceSlots(*options_.engine); i > 0; --i) {
    workspaces.push_back(options_.engine->WorkspaceName(++item_counter_));
  }
  internal::ItemSession conns(options_, item, std::move(workspaces));
  for (int t = 0; t < item.trials; ++t) {
    if (stopped()) return Interrupted(t, item);
    Status s = conns.EnsureConnections();
    if (s.ok()) s = conns.StartSessionsClean(t);   // nothing of the last trial is seen in this one
    if (s.ok()) s = conns.AwaitWorkspace(t);       // emptied and set up since a trial last used it
    if (s.ok()) s = conns.FinishSessionsClean(t);  // the clean starts sent ahead have all answered
    if (!s.ok()) {
      conns.DropSchema();
      // A connection or setup the stop request cancelled: the interrupt, not a fault.
      if (s.code() == StatusCode::kDatabase && stopped()) return Interrupted(t, item);
      // A server that went away between trials: which trial it stopped, as a failure in a trial
      // says.
      if (s.code() == StatusCode::kDatabase) {
        return Status::Database(
            fmt::format("before trial {} of {}: {}", t + 1, item.trials, s.message()));
      }
      return s;
    }
    TrialResult trial = RunTrial(options_, item, conns, wait_log_.get(), t);
    // What the trial left outside its sessions (prepared transactions) goes before the next one
    // starts. Cleanup, so it runs after a stop request too, then within 3 s (a server that cannot
    // answer it by then never will).
    const long end_ms =
        stopped() ? std::min(3000L, options_.statement_timeout_ms) : options_.statement_timeout_ms;
    if (Status ended = options_.engine->EndTrial(std::chrono::steady_clock::now() +
                                                 std::chrono::milliseconds(end_ms));
        !ended.ok() && trial.error.empty()) {
      trial.error = ended.message();
    }
    // Trial t is over on every session, final checks and teardown included: the next trial's clean
    // starts go out now and are collected after its workspace is ready
    // (ItemSession::SendSessionsClean).
    const bool last =
        t + 1 >= item.trials || stopped() || (options_.more_trials && !options_.more_trials(t + 1));
    if (!last) conns.SendSessionsClean(t + 1);
    conns.TrialEnded(
        t, trial.error.empty() && !trial.deadline_exceeded);  // an error: set up fresh after it
    if (options_.stop != nullptr && options_.stop->stop_requested()) {
      // Cut short by the stop request: its events say nothing about the race; not evaluated.
      conns.DropSchema();
      return Status::Database(fmt::format(
          "interrupted during trial {} of {}; that trial is not evaluated", t + 1, item.trials));
    }
    if (trials == nullptr) {
      if (on_trial) on_trial(item, trial);
    } else {
      trials->push_back(std::move(trial));
      if (on_trial) on_trial(item, trials->back());
    }
    if (last && !stopped()) break;  // RunOptions::more_trials said so (or it was the last)
  }
  Status dropped = conns.DropSchema();
  return dropped;
}

}  // namespace racelab
