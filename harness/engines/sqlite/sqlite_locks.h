// SQLite's locks per connection, for the lock view (WaitMonitor::SnapshotLocks, docs/sqlite.md
// "Locks"): what each session's connection says of itself — sqlite3_txn_state(db, "main")
// (c3ref/txn_state.html), as its own thread published it in the BusyLog — and whether it is in its
// busy handler, mapped to the locks that state means in the database file's journal mode
// (JournalOf).
//
// Rollback journal (lockingv3.html): a connection is in one lock state on the database file at a
// time. A read transaction (SQLITE_TXN_READ) holds SHARED; a write transaction (SQLITE_TXN_WRITE)
// holds RESERVED — or, while it waits to commit ("commit"), PENDING with EXCLUSIVE awaited
// (SQLite's unix VFS keeps PENDING when EXCLUSIVE is busy). A session waiting to write awaits
// RESERVED, one waiting to read awaits SHARED. sqlite3_txn_state does not tell PENDING or EXCLUSIVE
// from RESERVED otherwise (a commit or a cache spill that did not wait): a write transaction is
// shown as RESERVED.
// WAL (wal.html, walformat.html "2.3.1 How the various locks are used"): the locks are in the
// wal-index (the -shm file). A read transaction holds one WAL_READ_LOCK(N) (a read mark; N is not
// shown), a write transaction that and the one WAL_WRITE_LOCK; a session waiting to write awaits
// WAL_WRITE_LOCK, one waiting to read awaits a WAL_READ_LOCK. (Every connection in WAL mode also
// keeps a SHARED lock on the database file while it is open, so that nobody leaves WAL mode under
// it; that lock says nothing about the race and is not listed.)
// Lines: lock_type "database file" or "wal-index", object "main" (the schema name of the database),
// mode as above, granted = held.
// Thread-safety: free functions with no state; JournalOf asks the file system (stat), from any
// thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/engine/wait_monitor.h"
#include "harness/engines/sqlite/busy_log.h"

namespace racelab::sqlite {

enum class Journal { kRollback, kWal };

// The journal mode the database file is in now, without opening it: WAL when its -wal file exists
// (SQLite keeps it while any connection has the database open in WAL mode, wal.html), else the
// rollback journal. A database in WAL mode that nobody has read yet has no -wal file and answers
// kRollback — then no connection holds a lock on it either. The file itself is never opened: a
// descriptor of it closed by this process would drop every POSIX lock SQLite holds on it
// (howtocorrupt.html 2.2), so a header read is no way to ask.
Journal JournalOf(const std::string& file);
const char* JournalName(Journal j);  // "rollback journal", "WAL"

// The locks `state` means in journal mode `journal`, held ones first.
std::vector<SessionLock> LocksOf(const SessionLockState& state, Journal journal);

}  // namespace racelab::sqlite
