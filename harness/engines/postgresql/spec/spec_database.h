// SpecDatabase: the throwaway database a spec run works in, and the libpq connections into it
// (harness/engines/postgresql/spec/transcript_runner.h). PostgreSQL only: a spec file is PostgreSQL's own test format.
//
// The database is created like pg_regress creates isolationtester's (PostgreSQL's
// src/test/regress/pg_regress.c): from template0, with lc_messages, lc_monetary, lc_numeric and lc_time
// 'C', bytea_output 'hex', timezone_abbreviations 'Default', and — pg_regress's PGTZ and PGDATESTYLE —
// timezone 'PST8PDT' and datestyle 'Postgres, MDY' as the database's defaults, and deadlock_timeout at
// its server default of 1s (the embedded cluster's is 1ms). A setting the role may
// not set (lc_messages needs a superuser) is left at the server's value.
// Thread-safety: one thread uses a SpecDatabase and its connections.
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

class SpecDatabase {
 public:
  // Creates the database on the server `conninfo` names (a URI or key=value string). Errors:
  // kDatabase, never with the connection string in the message.
  static Result<std::unique_ptr<SpecDatabase>> Create(const std::string& conninfo, long connect_timeout_ms);
  ~SpecDatabase();  // Drop()
  SpecDatabase(const SpecDatabase&) = delete;
  SpecDatabase& operator=(const SpecDatabase&) = delete;

  // A new connection into the database, `application_name` shown in pg_stat_activity.
  Result<PgConnPtr> Connect(const std::string& application_name) const;
  // Drops the database (WITH (FORCE): sessions still in it are ended). Idempotent. Call after the
  // run's own connections are closed.
  Status Drop();
  const std::string& name() const { return name_; }

 private:
  SpecDatabase(std::string conninfo, long connect_timeout_ms, std::string name)
      : conninfo_(std::move(conninfo)), connect_timeout_ms_(connect_timeout_ms), name_(std::move(name)) {}
  Result<PgConnPtr> ConnectTo(const std::string& dbname, const std::string& application_name) const;

  std::string conninfo_;
  long connect_timeout_ms_;
  std::string name_;
  bool dropped_ = false;
};

}  // namespace racelab
