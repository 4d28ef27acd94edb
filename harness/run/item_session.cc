#include "harness/run/item_session.h"

#include <algorithm>

#include <fmt/format.h>

namespace racelab::internal {
namespace {

constexpr long kDropDeadlineMs = 15000;
// After a stop request only cleanup runs, and a server that cannot answer it within this never will:
// the cap on every control-connection deadline then (connect, statement), in ms.
constexpr long kAfterStopDeadlineMs = 3000;
constexpr const char* kControl = "control";

}  // namespace

ItemSession::ItemSession(const RunOptions& options, const PlanItem& item, std::string schema)
    : options_(options), item_(item), schema_(std::move(schema)), engine_(*options.engine) {
  sessions_.resize(item.sessions.size());
}

ItemSession::~ItemSession() {
  monitor_.reset();
  sessions_.clear();  // closing worker sessions ends them on the server and releases their locks
  DropSchema();
  control_.reset();  // before the engine drops what it made for the run (Engine::Close)
}

SteadyTime ItemSession::Deadline() const { return In(options_.statement_timeout_ms); }

SteadyTime ItemSession::In(long ms) const {
  if (options_.stop != nullptr && options_.stop->stop_requested()) ms = std::min(ms, kAfterStopDeadlineMs);
  return std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
}

Result<std::unique_ptr<Session>> ItemSession::Open(const std::string& label) {
  return engine_.OpenSession(label, In(options_.connect_timeout_ms),
                          // The control connection must finish its cleanup after a stop
                          // request: only its deadlines bound it.
                          label == kControl ? nullptr : options_.stop);
}

Status ItemSession::EnsureConnections() {
  if (!control_ || !control_->healthy()) {
    auto c = Open(kControl);
    if (!c.ok()) return c.status();
    control_ = std::move(c.value());
  }
  if (!monitor_ || !monitor_->healthy()) {
    auto m = engine_.OpenMonitor(options_.monitor_poll, In(options_.connect_timeout_ms), options_.stop);
    if (!m.ok()) return m.status();
    monitor_ = std::move(m.value());
  }
  for (size_t i = 0; i < sessions_.size(); ++i) {
    auto& conn = sessions_[i];
    if (conn && conn->healthy()) continue;
    auto c = Open(item_.sessions[i].label);
    if (!c.ok()) return c.status();
    conn = std::move(c.value());
  }
  return Status::Ok();
}

Status ItemSession::StartSessionsClean() {
  for (size_t i = 0; i < sessions_.size(); ++i) {
    const PlannedSession& s = item_.sessions[i];
    SessionStart start{s.label, schema_, s.settings};
    bool lost = false;
    Status st = engine_.StartClean(sessions_[i].get(), start, Deadline(), item_.file, &lost);
    if (lost) {  // ended while idle (e.g. terminated from outside after its last step): reopen once
      auto c = Open(s.label);
      if (!c.ok()) return c.status();
      sessions_[i] = std::move(c.value());
      st = engine_.StartClean(sessions_[i].get(), start, Deadline(), item_.file, &lost);
    }
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

Status ItemSession::ResetSchema() {
  // The control session runs `setup`, `final` and `teardown`: it starts each trial clean too (a
  // temporary table or session lock of the last trial's setup is gone), in the trial's workspace.
  bool lost = false;
  Status clean = engine_.StartClean(control_.get(), SessionStart{kControl, schema_, {}}, Deadline(),
                                    item_.file, &lost);
  if (!clean.ok()) return clean;
  Status reset = engine_.ResetWorkspace(schema_, Deadline(), options_.stop);
  if (!reset.ok()) return reset;
  schema_created_ = true;
  if (item_.setup.empty()) return Status::Ok();
  QueryResult r = control_->Exec(item_.setup, Deadline());
  if (!r.ok()) {
    std::string msg = fmt::format("{}: setup: {} (SQLSTATE {})", item_.file, r.message, r.sqlstate);
    // A setup that cannot run is a scenario-file error (exit 2), unless the server failed.
    return engine_.IsScenarioError(r) || r.refused ? Status::Usage(msg) : Status::Database(msg);
  }
  return Status::Ok();
}

std::vector<FinalValue> ItemSession::RunFinals() {
  std::vector<FinalValue> out;
  for (const auto& f : item_.expect.final) {
    FinalValue v;
    v.sql = f.sql;
    if (!control_ || !control_->healthy()) {
      v.error = "control connection lost";
    } else {
      QueryResult r = control_->Exec(f.sql, Deadline());
      if (!r.ok()) {
        v.error = r.sqlstate + ": " + r.message;
      } else if (!r.values.empty() && !r.values[0].empty()) {
        v.value = r.values[0][0];
      }
    }
    out.push_back(std::move(v));
  }
  return out;
}

std::string ItemSession::RunTeardown(bool* scenario_error) {
  if (item_.teardown.empty() || !control_ || !control_->healthy()) return "";
  QueryResult r = control_->Exec(item_.teardown, Deadline());
  if (engine_.IsScenarioError(r)) *scenario_error = true;
  return r.ok() ? "" : fmt::format("teardown failed: {} (SQLSTATE {})", r.message, r.sqlstate);
}

Status ItemSession::DropSchema() {
  if (!schema_created_) return Status::Ok();
  // On failure the workspace is not tried again (the destructor would only wait again): it stays
  // until `racelab clean` finds its run gone.
  schema_created_ = false;
  Status dropped = engine_.DropWorkspace(schema_, In(kDropDeadlineMs + 2000));
  if (!dropped.ok()) return dropped;
  return Status::Ok();
}

}  // namespace racelab::internal
