// ScenarioRole: confinement of scenario SQL to a generated role that owns only its schemas.
//
// Scenario files are code. racelab runs their SQL — setup, steps, final checks, teardown, and its
// own monitor and terminate steps — as a role it creates for the run, never as the role of --dsn
// (or the embedded cluster's superuser):
//   CREATE ROLE racelab_role_<16 hex> LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION
//     NOBYPASSRLS PASSWORD '<SCRAM verifier of 32 random hex digits>'
// and connects AS that role directly (same host, port, database and options as the DSN, user and
// password replaced). SET ROLE was not used: scenario SQL could undo it with RESET ROLE. Each
// PlanItem's schema is created over the admin connection with AUTHORIZATION of this role
// (harness/run/item_session.cc), so the role owns its schemas and nothing else: writes to public.*,
// DROP SCHEMA public, COPY … TO PROGRAM (superuser or pg_execute_server_program) are refused by the
// server with SQLSTATE 42501. The role may do what PUBLIC may (e.g. read tables granted to PUBLIC;
// on PostgreSQL ≤ 14, create in schema public — DROP OWNED removes that at the end).
//
// Requirements on the admin role (DSN's user): superuser, or CREATEROLE (it grants itself
// membership of the generated role, PostgreSQL docs §22.2/§22.3, to drop its schemas); and
// pg_hba.conf must let the generated role log in with a password (scram-sha-256, md5 or password
// method) from where racelab connects. The embedded cluster uses trust on its private socket.
// Superuser-only settings a scenario may set (deadlock_timeout, log_lock_waits) are granted with
// GRANT SET ON PARAMETER on PostgreSQL 15+ when the admin may (a superuser, or one holding SET …
// WITH GRANT OPTION). Dropped (DROP OWNED BY, DROP ROLE) by Drop() and the destructor; `racelab
// clean` drops the role of a run killed with SIGKILL: the owner of that dead run's schemas or spec
// database, after ending its backends; or a role nothing is logged in as or names any more
// (pg_leftovers.cc). Thread-safety: one thread.
#pragma once

#include <memory>
#include <string>

#include "harness/engines/postgresql/connection.h"
#include "harness/model/status.h"
#include "harness/model/stop_flag.h"

namespace racelab::pg {

// Prefix of generated role names; the admin connection's application_name is kRoleAdminApp + name.
inline constexpr const char* kScenarioRolePrefix = "racelab_role_";
inline constexpr const char* kRoleAdminApp = "racelab:role:";

class ScenarioRole {
 public:
  // Creates the role over a connection to `admin_conninfo` (kept open until Drop()) and checks that
  // it can log in. Errors: kDatabase — the admin may not create roles, or the server refuses the
  // role's login (the message says what to change, or to pass --no-confine).
  static Result<std::unique_ptr<ScenarioRole>> Create(const std::string& admin_conninfo,
                                                      long connect_timeout_ms,
                                                      const StopFlag* stop);
  ~ScenarioRole();  // Drop(), errors ignored
  ScenarioRole(const ScenarioRole&) = delete;
  ScenarioRole& operator=(const ScenarioRole&) = delete;

  const std::string& name() const { return name_; }
  // libpq key=value conninfo that logs in as the role (contains its password: never print it raw).
  const std::string& conninfo() const { return conninfo_; }
  // DROP OWNED BY role; DROP ROLE role (after every connection of the role is closed). Idempotent.
  Status Drop();

 private:
  ScenarioRole() = default;
  std::unique_ptr<Connection> admin_;
  std::string name_;
  std::string conninfo_;
};

}  // namespace racelab::pg
