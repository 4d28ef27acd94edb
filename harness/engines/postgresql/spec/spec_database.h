// SpecDatabase: the throwaway database a spec run works in, and the libpq connections into it
// (harness/engines/postgresql/spec/transcript_runner.h). PostgreSQL only: a spec file is
// PostgreSQL's own test format.
//
// The database is created like pg_regress creates isolationtester's (PostgreSQL's
// src/test/regress/pg_regress.c): from template0, with lc_messages, lc_monetary, lc_numeric and
// lc_time 'C', bytea_output 'hex', timezone_abbreviations 'Default', and — pg_regress's PGTZ and
// PGDATESTYLE — timezone 'PST8PDT' and datestyle 'Postgres, MDY' as the database's defaults, and
// deadlock_timeout at its server default of 1s (the embedded cluster's is 1ms). A setting the role
// may not set (lc_messages needs a superuser) is left at the server's value. Thread-safety: one
// thread uses a SpecDatabase and its connections.
#pragma once

#include <libpq-fe.h>

#include <memory>
#include <string>

#include "harness/model/status.h"

namespace racelab {

struct PgConnCloser {
  void operator()(PGconn* c) const { PQfinish(c); }
};
using PgConnPtr = std::unique_ptr<PGconn, PgConnCloser>;

// Where a spec run works: the admin creates and drops the database; the run's own connections log
// in as `session_conninfo`'s role, which owns the database (under confinement: racelab's generated
// role, harness/engines/postgresql/scenario_role.h).
struct SpecServer {
  std::string admin_conninfo;    // URI or key=value; needs CREATEDB (and membership of `owner`)
  std::string session_conninfo;  // "" = admin_conninfo
  std::string owner;             // the database's owner; "" = the admin role
};

class SpecDatabase {
 public:
  // Creates racelab_spec_<pid>_<run id>_<n> (run_lock.h: `racelab clean` drops it once its run is
  // gone). Errors: kDatabase, never with a connection string in the message.
  static Result<std::unique_ptr<SpecDatabase>> Create(const SpecServer& server,
                                                      long connect_timeout_ms);
  static Result<std::unique_ptr<SpecDatabase>> Create(const std::string& conninfo,
                                                      long connect_timeout_ms) {
    return Create(SpecServer{conninfo, "", ""}, connect_timeout_ms);
  }
  ~SpecDatabase();  // Drop()
  SpecDatabase(const SpecDatabase&) = delete;
  SpecDatabase& operator=(const SpecDatabase&) = delete;

  // A new connection into the database as the session role, `application_name` shown in
  // pg_stat_activity.
  Result<PgConnPtr> Connect(const std::string& application_name) const;
  // Drops the database (WITH (FORCE): sessions still in it are ended). Idempotent. Call after the
  // run's own connections are closed.
  Status Drop();
  const std::string& name() const { return name_; }

 private:
  SpecDatabase(SpecServer server, long connect_timeout_ms, std::string name)
      : server_(std::move(server)),
        connect_timeout_ms_(connect_timeout_ms),
        name_(std::move(name)) {}
  Result<PgConnPtr> ConnectTo(const std::string& conninfo, const std::string& dbname,
                              const std::string& application_name) const;

  SpecServer server_;
  long connect_timeout_ms_;
  std::string name_;
  bool dropped_ = false;
};

}  // namespace racelab
