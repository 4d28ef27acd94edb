// InnodbLockReader: the locks that given connections hold and await in InnoDB, at one look — the
// MariaDB wait monitor's SnapshotLocks (harness/engine/wait_monitor.h; docs/mariadb.md "Locks in
// step mode").
//
// information_schema.INNODB_LOCKS lists only locks that block someone or wait (MariaDB docs
// "Information Schema INNODB_LOCKS"), so a lone holder's row lock is not there. The full list is in
// `SHOW ENGINE INNODB STATUS` when innodb_status_output_locks is ON (innodb_status.h): the reader
// checks @@GLOBAL.innodb_status_output_locks at every look (another client may switch it), and when
// it is OFF tries `SET GLOBAL innodb_status_output_locks = ON` once (the embedded server starts
// with it ON; a --dsn server's user may lack the privilege) and then puts it back OFF when the
// reader is destroyed. When that is refused, a look lists what INNODB_LOCKS has — awaited locks and
// the ones they wait for — and says so in LockSnapshot::method and ::note. Both need the PROCESS
// privilege. A record is named by its key (the index's columns from information_schema.STATISTICS,
// read for the tables that have record locks). Thread-safety: one thread at a time
// (MariaWaitMonitor calls it under a mutex).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/engine/wait_monitor.h"
#include "harness/engines/mariadb/connection.h"

namespace racelab::mariadb {

class InnodbLockReader {
 public:
  explicit InnodbLockReader(ConnectTarget target) : target_(std::move(target)) {}
  ~InnodbLockReader();  // SET GLOBAL innodb_status_output_locks back OFF if it set it ON

  // Every lock that the connections `threads` (CONNECTION_ID()s) hold or await now, ordered by
  // thread, held before awaited; times are µs since `origin`. Opens its own connection the first
  // time (by `deadline`). Errors: kDatabase (cannot connect, a query failed or missed `deadline`).
  Result<LockSnapshot> Look(const std::vector<int64_t>& threads, SteadyTime origin,
                            SteadyTime deadline);
  // Its connection's id (0 before the first look).
  int64_t connection_id() const { return conn_ ? conn_->session_id() : 0; }

 private:
  // True: the status lists locks (ON, or switched ON now); false: the fallback (*why says why).
  Result<bool> StatusListsLocks(SteadyTime deadline, std::string* why);
  Status FromStatus(const std::vector<int64_t>& threads, SteadyTime deadline, LockSnapshot* out);
  Status FromInnodbLocks(const std::vector<int64_t>& threads, SteadyTime deadline,
                         LockSnapshot* out);

  ConnectTarget target_;
  std::unique_ptr<MariaConnection> conn_;
  bool switched_on_ = false;  // this reader's SET GLOBAL turned innodb_status_output_locks ON
  std::string refused_;       // SET GLOBAL's error, once refused (not tried again)
};

}  // namespace racelab::mariadb
