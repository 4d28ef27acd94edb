#include "harness/run/item_session.h"

#include <algorithm>

#include <fmt/format.h>

#include "harness/run/session_reset.h"

namespace racelab::internal {
namespace {

constexpr long kDropDeadlineMs = 15000;
// After a stop request only cleanup runs, and a server that cannot answer it within this never will:
// the cap on every control-connection deadline then (connect, statement), in ms.
constexpr long kAfterStopDeadlineMs = 3000;
constexpr const char* kControl = "control";

}  // namespace

ItemSession::ItemSession(const RunOptions& options, const PlanItem& item, std::string schema)
    : options_(options), item_(item), schema_(std::move(schema)) {
  sessions_.resize(item.sessions.size());
}

ItemSession::~ItemSession() {
  monitor_.reset();
  sessions_.clear();  // closing worker connections ends their backends and releases their locks
  DropSchema();
  control_.reset();  // before the generated role is dropped (harness/run/scenario_role.h)
}

SteadyTime ItemSession::Deadline() const { return In(options_.statement_timeout_ms); }

SteadyTime ItemSession::In(long ms) const {
  if (options_.stop != nullptr && options_.stop->stop_requested()) ms = std::min(ms, kAfterStopDeadlineMs);
  return std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
}

Result<std::unique_ptr<Connection>> ItemSession::Open(const std::string& label) {
  return Connection::Open(options_.conninfo, "racelab:" + label,
                          In(options_.connect_timeout_ms),
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
    auto c = Open("monitor");
    if (!c.ok()) return c.status();
    monitor_ = std::make_unique<Monitor>(std::move(c.value()), options_.monitor_poll);
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

Result<Connection*> ItemSession::SchemaConnection() {
  if (options_.admin_conninfo.empty()) {
    if (!control_ || !control_->healthy()) {
      auto c = Open(kControl);
      if (!c.ok()) return c.status();
      control_ = std::move(c.value());
    }
    return control_.get();
  }
  if (!admin_ || !admin_->healthy()) {
    auto c = Connection::Open(options_.admin_conninfo, "racelab:admin", In(options_.connect_timeout_ms),
                              nullptr);  // like control: must finish its cleanup after a stop request
    if (!c.ok()) return c.status();
    admin_ = std::move(c.value());
  }
  return admin_.get();
}

Status ItemSession::StartSessionsClean() {
  for (size_t i = 0; i < sessions_.size(); ++i) {
    const PlannedSession& s = item_.sessions[i];
    SessionStart start{s.label, schema_, s.settings, ""};
    if (!options_.scenario_role.empty()) {  // a superuser-only setting the generated role may not SET
      start.denied_hint =
          "scenario SQL runs as a generated non-superuser role: racelab grants it SET on "
          "deadlock_timeout and log_lock_waits on PostgreSQL 15+ when the --dsn role is a "
          "superuser or holds SET on them WITH GRANT OPTION; else only a superuser --dsn with "
          "--allow-superuser --no-confine can set them";
    }
    bool lost = false;
    Status st = StartClean(sessions_[i].get(), start, Deadline(), item_.file, &lost);
    if (lost) {  // ended while idle (e.g. terminated from outside after its last step): reopen once
      auto c = Open(s.label);
      if (!c.ok()) return c.status();
      sessions_[i] = std::move(c.value());
      st = StartClean(sessions_[i].get(), start, Deadline(), item_.file, &lost);
    }
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

Status ItemSession::ResetSchema() {
  std::string q = QuoteIdent(schema_);
  // The control connection runs `setup`, `final` and `teardown`: it starts each trial clean too (a
  // temporary table or session lock of the last trial's setup is gone), with the trial's search_path.
  bool lost = false;
  Status clean = StartClean(control_.get(), SessionStart{kControl, schema_, {}, ""}, Deadline(),
                            item_.file, &lost);
  if (!clean.ok()) return clean;
  auto owner = SchemaConnection();
  if (!owner.ok()) return owner.status();
  // Under confinement the schema belongs to the generated role, which can create nothing else.
  const std::string authorization =
      options_.scenario_role.empty() ? "" : " AUTHORIZATION " + QuoteIdent(options_.scenario_role);
  QueryResult r = (*owner)->Exec(fmt::format("DROP SCHEMA IF EXISTS {0} CASCADE; CREATE SCHEMA {0}{1};", q, authorization),
                                 Deadline());
  if (!r.ok()) return Status::Database(fmt::format("cannot create schema {}: {} ({})", q, r.message, r.sqlstate));
  schema_created_ = true;
  if (item_.setup.empty()) return Status::Ok();
  r = control_->Exec(item_.setup, Deadline());
  if (!r.ok()) {
    std::string msg = fmt::format("{}: setup: {} (SQLSTATE {})", item_.file, r.message, r.sqlstate);
    // A setup that cannot run is a scenario-file error (exit 2), unless the server failed.
    return IsScenarioSqlError(r.sqlstate) || r.refused ? Status::Usage(msg) : Status::Database(msg);
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
  if (IsScenarioSqlError(r.sqlstate)) *scenario_error = true;
  return r.ok() ? "" : fmt::format("teardown failed: {} (SQLSTATE {})", r.message, r.sqlstate);
}

Status ItemSession::DropSchema() {
  if (!schema_created_) return Status::Ok();
  auto owner = SchemaConnection();
  if (!owner.ok()) {
    // The server cannot be reached: trying again (the destructor) would only wait again. The
    // schema stays until `racelab clean` finds its run gone.
    schema_created_ = false;
    return owner.status();
  }
  QueryResult r = (*owner)->Exec(
      fmt::format("SET lock_timeout = '{}ms'; DROP SCHEMA IF EXISTS {} CASCADE", kDropDeadlineMs,
                  QuoteIdent(schema_)),
      In(kDropDeadlineMs + 2000));
  if (!r.ok()) return Status::Database(fmt::format("cannot drop schema {}: {}", schema_, r.message));
  schema_created_ = false;
  return Status::Ok();
}

}  // namespace racelab::internal
