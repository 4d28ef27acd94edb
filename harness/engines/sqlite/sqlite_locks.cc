#include "harness/engines/sqlite/sqlite_locks.h"

#include <sqlite3.h>
#include <sys/stat.h>

namespace racelab::sqlite {

Journal JournalOf(const std::string& file) {
  struct stat st {};
  return ::stat((file + "-wal").c_str(), &st) == 0 ? Journal::kWal : Journal::kRollback;
}

const char* JournalName(Journal j) { return j == Journal::kWal ? "WAL" : "rollback journal"; }

std::vector<SessionLock> LocksOf(const SessionLockState& state, Journal journal) {
  std::vector<SessionLock> out;
  auto add = [&](const char* mode, bool granted) {
    out.push_back(SessionLock{.session_id = state.session_id,
                              .lock_type = journal == Journal::kWal ? "wal-index" : "database file",
                              .mode = mode,
                              .object = "main",
                              .granted = granted});
  };
  const bool commit = state.awaiting == "commit";
  if (journal == Journal::kRollback) {
    if (state.txn_state == SQLITE_TXN_WRITE) {
      add(commit ? "PENDING" : "RESERVED", true);
    } else if (state.txn_state == SQLITE_TXN_READ) {
      add("SHARED", true);
    }
    if (commit) add("EXCLUSIVE", false);
    if (state.awaiting == "write") add("RESERVED", false);
    if (state.awaiting == "read") add("SHARED", false);
    return out;
  }
  if (state.txn_state >= SQLITE_TXN_READ) add("WAL_READ_LOCK", true);
  if (state.txn_state == SQLITE_TXN_WRITE) add("WAL_WRITE_LOCK", true);
  // A WAL writer does not wait for readers at its commit; a busy "commit" there is SQLite's own
  // (e.g. a checkpoint's lock): named by what the statement was doing.
  if (commit) add("commit", false);
  if (state.awaiting == "write") add("WAL_WRITE_LOCK", false);
  if (state.awaiting == "read") add("WAL_READ_LOCK", false);
  return out;
}

}  // namespace racelab::sqlite
