// ServerLog: the lock waits PostgreSQL itself records, read from its structured log (jsonlog).
//
// With log_lock_waits = on, a backend that has waited deadlock_timeout for a heavyweight lock logs
// "process P still waiting for MODE on OBJECT after X ms" (DETAIL "Process(es) holding the lock: …
// Wait queue: …"), and when the wait ends "process P acquired MODE on OBJECT after Y ms", "…
// detected deadlock while waiting for …" or "… failed to acquire …" (PostgreSQL docs §20.8.3
// log_lock_waits; ProcSleep in src/backend/storage/lmgr/proc.c). X and Y are measured from the
// wait's start in µs; the record's timestamp has ms resolution. A wait that ends in an error
// (lock_timeout, statement_timeout, cancel) logs no end. The embedded cluster writes jsonlog with
// log_timezone = UTC (harness/engines/postgresql/cluster.h); see docs/lock-waits.md for why this
// source.
//
// The PostgreSQL engine's ServerWaitLog (harness/engine/wait_monitor.h).
// Reading is synchronised with a marker: Collect() has the given connection RAISE LOG a unique
// text, then reads the file until that line appears. Every record a backend logged before the
// marker was raised precedes it (one pipe to the logging collector, in order), so a trial's waits
// are complete once its marker is read.
// Thread-safety: one thread uses a ServerLog (the runner's).
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/engine/wait_monitor.h"
#include "harness/engines/postgresql/connection.h"
#include "harness/model/status.h"

namespace racelab::pg {

// One lock wait as the server logged it is a ServerLockWait (harness/engine/wait_monitor.h): its
// session_id is the backend pid; the wait's start lies in [start_lo_us, start_hi_us]: from each
// record, start = logged time − elapsed, where the logged time is truncated to the ms (hard upper
// bound; the lower bound assumes the backend was not descheduled between measuring and logging).
// holders are "Process(es) holding the lock" of the records, unique. What one Collect() found is a
// ServerWaitBatch, whose session_kinds are the backend_type of every record read ("autovacuum
// worker").

// Parses jsonlog lines (one JSON object each) into lock waits. Lines that are not lock-wait
// records are used only for `session_kinds`; malformed lines are skipped. Exposed for tests.
ServerWaitBatch ParseServerLog(const std::vector<std::string>& lines);

class ServerLog : public ServerWaitLog {
 public:
  // Opens the jsonlog file at `path` and skips what it already holds. Errors: kInternal when it
  // cannot be opened.
  static Result<std::unique_ptr<ServerLog>> Open(const std::string& path);

  // Raises a marker on `conn` (DO … RAISE LOG, any role may run it) and returns the records read
  // up to it. Errors: kDatabase when the marker cannot be raised or does not appear by `deadline`.
  Result<ServerWaitBatch> Collect(Session* conn, SteadyTime deadline) override;

 private:
  explicit ServerLog(std::string path) : path_(std::move(path)) {}
  bool ReadLines(
      std::vector<std::string>* lines);  // appends complete new lines; false on I/O error

  std::string path_;
  std::ifstream in_;
  std::string partial_;  // an incomplete last line, kept for the next read
  uint64_t markers_ = 0;
};

}  // namespace racelab::pg
