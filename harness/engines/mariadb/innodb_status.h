// The locks in `SHOW ENGINE INNODB STATUS`: a parser of its TRANSACTIONS section, and the words a
// class reads for each lock (harness/engines/mariadb/innodb_locks.h uses both; docs/mariadb.md
// "Locks in step mode").
//
// With innodb_status_output_locks=ON, InnoDB lists under each transaction ("---TRANSACTION 23,
// ACTIVE 1 sec", then "MariaDB thread id 4, OS thread handle …" — the thread id is the connection's
// CONNECTION_ID()) every lock it holds or awaits (MariaDB 10.11 storage/innobase/lock/lock0lock.cc
// lock_trx_print_locks, lock_rec_print, lock_table_print):
//   TABLE LOCK table `db`.`runs` trx id 23 lock mode IX
//   RECORD LOCKS space id 5 page no 3 n bits 320 index PRIMARY of table `db`.`runs` trx id 23
//     lock_mode X locks rec but not gap        (then " waiting" when it is awaited)
//   Record lock, heap no 2 PHYSICAL RECORD: n_fields 6; compact format; info bits 0
//    0: len 4; hex 80000001; asc     ;;       (one line per field of the index record)
// A RECORD LOCKS line covers every record after it ("Record lock, heap no N"); a record's fields
// are printed only when its page is in the buffer pool. At most 10 lock structs are printed per
// transaction ("10 LOCKS PRINTED FOR THIS TRX: SUPPRESSING FURTHER PRINTS"). A waiting
// transaction's awaited lock is printed twice: in "------- TRX HAS BEEN WAITING …" and in its list
// (with " waiting"); the parser keeps the second. Without innodb_status_output_locks only the first
// is printed. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace racelab::mariadb {

// One field of a locked index record as the status prints it.
struct InnodbField {
  bool null = false;       // " 3: SQL NULL;"
  std::string bytes;       // the field's bytes (from its hex), at most the 30 InnoDB prints
  bool truncated = false;  // "(total N bytes)": longer than what was printed
};

// One lock of one transaction: a table lock, or one record of a RECORD LOCKS struct.
struct InnodbLock {
  int64_t thread_id = 0;          // "MariaDB thread id N" of its transaction: the connection's id
  bool record = false;            // RECORD LOCKS (else TABLE LOCK)
  std::string mode;               // "X", "S", "IX", "IS", "AUTO-INC"
  bool gap = false;               // "locks gap before rec"
  bool rec_not_gap = false;       // "locks rec but not gap"
  bool insert_intention = false;  // "insert intention"
  bool waiting = false;           // awaited, not granted
  std::string schema;             // `db`.`runs` -> "db", "runs"
  std::string table;
  std::string index;                // record locks: "PRIMARY", "k_idx", "GEN_CLUST_INDEX"
  int64_t heap_no = -1;             // record locks: the record's heap number on its page
  bool supremum = false;            // the page's supremum pseudo-record (the gap after the last)
  std::vector<InnodbField> fields;  // the record's fields, when printed
};

struct InnodbStatusLocks {
  std::vector<InnodbLock> locks;  // in the status's order
  // Thread ids of the transactions whose locks were cut at 10 ("SUPPRESSING FURTHER PRINTS").
  std::vector<int64_t> suppressed;
  bool locks_listed = false;  // some transaction listed its locks (innodb_status_output_locks ON)
};

// The locks in the TRANSACTIONS section of `status` (SHOW ENGINE INNODB STATUS's Status column).
// Lines that do not parse are skipped; a lock line counts only with its transaction's own trx id.
InnodbStatusLocks ParseInnodbStatusLocks(const std::string& status);

// The column of a table, as information_schema.COLUMNS says.
struct ColumnType {
  std::string data_type;  // DATA_TYPE: "int", "varchar", …
  bool is_unsigned = false;
};
// What is known of one table: its index's key columns in order (information_schema.STATISTICS) and
// its column types. Keyed by index name.
struct TableColumns {
  std::map<std::string, std::vector<std::string>> indexes;
  std::map<std::string, ColumnType> columns;
};

// A field's value as SQL would write it: an integer type decoded (InnoDB stores a signed integer
// big-endian with its sign bit flipped), a string type quoted ('bob'), NULL; other types and
// unprintable bytes as 0x…; a truncated field ends in "…".
std::string FieldValue(const InnodbField& field, const ColumnType& type);

// The words for one lock: `mode` "X record lock (not gap)", "X gap lock", "X next-key lock",
// "X insert intention lock", "IX table lock"; `object` "on db.runs PRIMARY id=1", "on db.runs k_idx
// k=30 id=-3", "on db.runs k_idx supremum" (the gap after the last record), "on db.runs" —
// the record's key when `table` knows the index's columns (a secondary index's record carries the
// primary key after its own columns), else "heap no N".
struct LockWords {
  std::string mode;
  std::string object;
  std::string lock_type;  // "RECORD" or "TABLE" (INNODB_LOCKS.lock_type's words)
};
LockWords DescribeInnodbLock(const InnodbLock& lock, const TableColumns* table);

}  // namespace racelab::mariadb
