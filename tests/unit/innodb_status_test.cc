// The parser of SHOW ENGINE INNODB STATUS's lock list (harness/engines/mariadb/innodb_status.h) on
// text captured from a real MariaDB 10.11.19 server (Debian 12), by hand with the mariadb client:
// table d.runs (id int PRIMARY KEY, status varchar(20), attempts int, k int, KEY k_idx (k)) with
// rows (1,'queued',0,10), (2,'queued',0,20), (-3,'x',0,30); d.names (name varchar(20) PRIMARY KEY,
// v int); d.nopk (a int, b int) without a key.
#include "harness/engines/mariadb/innodb_status.h"

#include <gtest/gtest.h>

#include <string>

namespace racelab::mariadb {
namespace {

// Thread 4: BEGIN; UPDATE d.runs SET attempts=attempts+1 WHERE id=1; SELECT SLEEP(25) — holds the
// row. Thread 8: the same UPDATE, waiting for it. innodb_status_output_locks=ON.
const std::string kHolderAndWaiter = R"(TRANSACTIONS
------------
Trx id counter 25
Purge done for trx's n:o < 23 undo n:o < 0 state: running but idle
History list length 0
LIST OF TRANSACTIONS FOR EACH SESSION:
---TRANSACTION 24, ACTIVE 1 sec starting index read
mysql tables in use 1, locked 1
LOCK WAIT 2 lock struct(s), heap size 1128, 1 row lock(s)
MariaDB thread id 8, OS thread handle 139701537167040, query id 16 localhost root Updating
UPDATE d.runs SET attempts=attempts+1 WHERE id=1
------- TRX HAS BEEN WAITING 1002035 us FOR THIS LOCK TO BE GRANTED:
RECORD LOCKS space id 5 page no 3 n bits 320 index PRIMARY of table `d`.`runs` trx id 24 lock_mode X locks rec but not gap waiting
Record lock, heap no 2 PHYSICAL RECORD: n_fields 6; compact format; info bits 0
 0: len 4; hex 80000001; asc     ;;
 1: len 6; hex 000000000017; asc       ;;
 2: len 7; hex 060000012d0110; asc     -  ;;
 3: len 6; hex 717565756564; asc queued;;
 4: len 4; hex 80000001; asc     ;;
 5: len 4; hex 8000000a; asc     ;;

------------------
TABLE LOCK table `d`.`runs` trx id 24 lock mode IX
RECORD LOCKS space id 5 page no 3 n bits 320 index PRIMARY of table `d`.`runs` trx id 24 lock_mode X locks rec but not gap waiting
Record lock, heap no 2 PHYSICAL RECORD: n_fields 6; compact format; info bits 0
 0: len 4; hex 80000001; asc     ;;
 1: len 6; hex 000000000017; asc       ;;
 2: len 7; hex 060000012d0110; asc     -  ;;
 3: len 6; hex 717565756564; asc queued;;
 4: len 4; hex 80000001; asc     ;;
 5: len 4; hex 8000000a; asc     ;;

---TRANSACTION 23, ACTIVE 2 sec
2 lock struct(s), heap size 1128, 1 row lock(s), undo log entries 1
MariaDB thread id 4, OS thread handle 139701558724288, query id 8 localhost root User sleep
SELECT SLEEP(25)
TABLE LOCK table `d`.`runs` trx id 23 lock mode IX
RECORD LOCKS space id 5 page no 3 n bits 320 index PRIMARY of table `d`.`runs` trx id 23 lock_mode X locks rec but not gap
Record lock, heap no 2 PHYSICAL RECORD: n_fields 6; compact format; info bits 0
 0: len 4; hex 80000001; asc     ;;
 1: len 6; hex 000000000017; asc       ;;
 2: len 7; hex 060000012d0110; asc     -  ;;
 3: len 6; hex 717565756564; asc queued;;
 4: len 4; hex 80000001; asc     ;;
 5: len 4; hex 8000000a; asc     ;;

--------
FILE I/O
)";

// As above, with innodb_status_output_locks=OFF: only the awaited lock is printed.
const std::string kLocksOff = R"(TRANSACTIONS
------------
Trx id counter 25
Purge done for trx's n:o < 23 undo n:o < 0 state: running but idle
History list length 0
LIST OF TRANSACTIONS FOR EACH SESSION:
---TRANSACTION 24, ACTIVE 1 sec starting index read
mysql tables in use 1, locked 1
LOCK WAIT 2 lock struct(s), heap size 1128, 1 row lock(s)
MariaDB thread id 8, OS thread handle 139701537167040, query id 16 localhost root Updating
UPDATE d.runs SET attempts=attempts+1 WHERE id=1
------- TRX HAS BEEN WAITING 1046310 us FOR THIS LOCK TO BE GRANTED:
RECORD LOCKS space id 5 page no 3 n bits 320 index PRIMARY of table `d`.`runs` trx id 24 lock_mode X locks rec but not gap waiting
Record lock, heap no 2 PHYSICAL RECORD: n_fields 6; compact format; info bits 0
 0: len 4; hex 80000001; asc     ;;
 1: len 6; hex 000000000017; asc       ;;
 2: len 7; hex 060000012d0110; asc     -  ;;
 3: len 6; hex 717565756564; asc queued;;
 4: len 4; hex 80000001; asc     ;;
 5: len 4; hex 8000000a; asc     ;;

------------------
---TRANSACTION 23, ACTIVE 2 sec
2 lock struct(s), heap size 1128, 1 row lock(s), undo log entries 1
MariaDB thread id 4, OS thread handle 139701558724288, query id 8 localhost root User sleep
SELECT SLEEP(25)
--------
FILE I/O
)";

// Besides threads 4 and 8, at repeatable read: thread 14 ran SELECT * FROM d.runs WHERE k >= 20
// FOR UPDATE; UPDATE d.names SET v=3 WHERE name='bob'; SELECT * FROM d.nopk WHERE a=1 LOCK IN
// SHARE MODE; thread 15's INSERT INTO d.runs VALUES (5,'q',0,25) waits for the gap before k=30.
const std::string kRich = R"(LIST OF TRANSACTIONS FOR EACH SESSION:
---TRANSACTION 42, ACTIVE 1 sec inserting
mysql tables in use 1, locked 1
LOCK WAIT 2 lock struct(s), heap size 1128, 1 row lock(s), undo log entries 1
MariaDB thread id 15, OS thread handle 139701536552640, query id 39 localhost root Update
INSERT INTO d.runs VALUES (5,'q',0,25)
------- TRX HAS BEEN WAITING 1011320 us FOR THIS LOCK TO BE GRANTED:
RECORD LOCKS space id 5 page no 4 n bits 320 index k_idx of table `d`.`runs` trx id 42 lock_mode X locks gap before rec insert intention waiting
Record lock, heap no 4 PHYSICAL RECORD: n_fields 2; compact format; info bits 0
 0: len 4; hex 8000001e; asc     ;;
 1: len 4; hex 7ffffffd; asc     ;;

------------------
TABLE LOCK table `d`.`runs` trx id 42 lock mode IX
RECORD LOCKS space id 5 page no 4 n bits 320 index k_idx of table `d`.`runs` trx id 42 lock_mode X locks gap before rec insert intention waiting
Record lock, heap no 4 PHYSICAL RECORD: n_fields 2; compact format; info bits 0
 0: len 4; hex 8000001e; asc     ;;
 1: len 4; hex 7ffffffd; asc     ;;

---TRANSACTION 41, ACTIVE 2 sec
7 lock struct(s), heap size 1128, 9 row lock(s), undo log entries 1
MariaDB thread id 14, OS thread handle 139701536859840, query id 37 localhost root User sleep
SELECT SLEEP(20)
TABLE LOCK table `d`.`runs` trx id 41 lock mode IX
RECORD LOCKS space id 5 page no 4 n bits 320 index k_idx of table `d`.`runs` trx id 41 lock_mode X
Record lock, heap no 1 PHYSICAL RECORD: n_fields 1; compact format; info bits 0
 0: len 8; hex 73757072656d756d; asc supremum;;

Record lock, heap no 3 PHYSICAL RECORD: n_fields 2; compact format; info bits 0
 0: len 4; hex 80000014; asc     ;;
 1: len 4; hex 80000002; asc     ;;

Record lock, heap no 4 PHYSICAL RECORD: n_fields 2; compact format; info bits 0
 0: len 4; hex 8000001e; asc     ;;
 1: len 4; hex 7ffffffd; asc     ;;

RECORD LOCKS space id 5 page no 3 n bits 320 index PRIMARY of table `d`.`runs` trx id 41 lock_mode X locks rec but not gap
Record lock, heap no 3 PHYSICAL RECORD: n_fields 6; compact format; info bits 0
 0: len 4; hex 80000002; asc     ;;
 1: len 6; hex 000000000013; asc       ;;
 2: len 7; hex 8400000134011c; asc     4  ;;
 3: len 6; hex 717565756564; asc queued;;
 4: len 4; hex 80000000; asc     ;;
 5: len 4; hex 80000014; asc     ;;

Record lock, heap no 4 PHYSICAL RECORD: n_fields 6; compact format; info bits 0
 0: len 4; hex 7ffffffd; asc     ;;
 1: len 6; hex 000000000013; asc       ;;
 2: len 7; hex 84000001340128; asc     4 (;;
 3: len 1; hex 78; asc x;;
 4: len 4; hex 80000000; asc     ;;
 5: len 4; hex 8000001e; asc     ;;

TABLE LOCK table `d`.`names` trx id 41 lock mode IX
RECORD LOCKS space id 6 page no 3 n bits 320 index PRIMARY of table `d`.`names` trx id 41 lock_mode X locks rec but not gap
Record lock, heap no 3 PHYSICAL RECORD: n_fields 4; compact format; info bits 0
 0: len 3; hex 626f62; asc bob;;
 1: len 6; hex 000000000029; asc      );;
 2: len 7; hex 100000013b0110; asc     ;  ;;
 3: len 4; hex 80000003; asc     ;;

TABLE LOCK table `d`.`nopk` trx id 41 lock mode IS
RECORD LOCKS space id 7 page no 3 n bits 320 index GEN_CLUST_INDEX of table `d`.`nopk` trx id 41 lock mode S
Record lock, heap no 1 PHYSICAL RECORD: n_fields 1; compact format; info bits 0
 0: len 8; hex 73757072656d756d; asc supremum;;

Record lock, heap no 2 PHYSICAL RECORD: n_fields 5; compact format; info bits 0
 0: len 6; hex 000000000200; asc       ;;
 1: len 6; hex 000000000025; asc      %;;
 2: len 7; hex 8e000001390110; asc     9  ;;
 3: len 4; hex 80000001; asc     ;;
 4: len 4; hex 80000001; asc     ;;

Record lock, heap no 3 PHYSICAL RECORD: n_fields 5; compact format; info bits 0
 0: len 6; hex 000000000201; asc       ;;
 1: len 6; hex 000000000025; asc      %;;
 2: len 7; hex 8e00000139011e; asc     9  ;;
 3: len 4; hex 80000002; asc     ;;
 4: len 4; hex 80000002; asc     ;;

---TRANSACTION 24, ACTIVE 9 sec starting index read
mysql tables in use 1, locked 1
LOCK WAIT 2 lock struct(s), heap size 1128, 1 row lock(s)
MariaDB thread id 8, OS thread handle 139701537167040, query id 16 localhost root Updating
UPDATE d.runs SET attempts=attempts+1 WHERE id=1
------- TRX HAS BEEN WAITING 9462217 us FOR THIS LOCK TO BE GRANTED:
RECORD LOCKS space id 5 page no 3 n bits 320 index PRIMARY of table `d`.`runs` trx id 24 lock_mode X locks rec but not gap waiting
Record lock, heap no 2 PHYSICAL RECORD: n_fields 6; compact format; info bits 0
 0: len 4; hex 80000001; asc     ;;
 1: len 6; hex 000000000017; asc       ;;
 2: len 7; hex 060000012d0110; asc     -  ;;
 3: len 6; hex 717565756564; asc queued;;
 4: len 4; hex 80000001; asc     ;;
 5: len 4; hex 8000000a; asc     ;;

------------------
TABLE LOCK table `d`.`runs` trx id 24 lock mode IX
RECORD LOCKS space id 5 page no 3 n bits 320 index PRIMARY of table `d`.`runs` trx id 24 lock_mode X locks rec but not gap waiting
Record lock, heap no 2 PHYSICAL RECORD: n_fields 6; compact format; info bits 0
 0: len 4; hex 80000001; asc     ;;
 1: len 6; hex 000000000017; asc       ;;
 2: len 7; hex 060000012d0110; asc     -  ;;
 3: len 6; hex 717565756564; asc queued;;
 4: len 4; hex 80000001; asc     ;;
 5: len 4; hex 8000000a; asc     ;;

---TRANSACTION 23, ACTIVE 10 sec
2 lock struct(s), heap size 1128, 1 row lock(s), undo log entries 1
MariaDB thread id 4, OS thread handle 139701558724288, query id 8 localhost root User sleep
SELECT SLEEP(25)
TABLE LOCK table `d`.`runs` trx id 23 lock mode IX
RECORD LOCKS space id 5 page no 3 n bits 320 index PRIMARY of table `d`.`runs` trx id 23 lock_mode X locks rec but not gap
Record lock, heap no 2 PHYSICAL RECORD: n_fields 6; compact format; info bits 0
 0: len 4; hex 80000001; asc     ;;
 1: len 6; hex 000000000017; asc       ;;
 2: len 7; hex 060000012d0110; asc     -  ;;
 3: len 6; hex 717565756564; asc queued;;
 4: len 4; hex 80000001; asc     ;;
 5: len 4; hex 8000000a; asc     ;;

--------
FILE I/O
)";

// Thread 20 at repeatable read on d.s (id int unsigned PRIMARY KEY, t varchar(100), n int NULL,
// KEY (t), KEY (n)) with the row (1, 'abcdefghij' x 5, NULL): SELECT … WHERE t LIKE 'abc%' FOR
// UPDATE; SELECT … WHERE n IS NULL FOR UPDATE. InnoDB prints a field's first 30 bytes only.
const std::string kLongAndNull = R"(LIST OF TRANSACTIONS FOR EACH SESSION:
---TRANSACTION 56, ACTIVE 1 sec
4 lock struct(s), heap size 1128, 5 row lock(s)
MariaDB thread id 20, OS thread handle 139701536859840, query id 61 localhost root User sleep
SELECT SLEEP(3)
TABLE LOCK table `d`.`s` trx id 56 lock mode IX
RECORD LOCKS space id 8 page no 4 n bits 320 index t of table `d`.`s` trx id 56 lock_mode X
Record lock, heap no 1 PHYSICAL RECORD: n_fields 1; compact format; info bits 0
 0: len 8; hex 73757072656d756d; asc supremum;;

Record lock, heap no 2 PHYSICAL RECORD: n_fields 2; compact format; info bits 0
 0: len 30; hex 6162636465666768696a6162636465666768696a6162636465666768696a; asc abcdefghijabcdefghijabcdefghij; (total 50 bytes);
 1: len 4; hex 00000001; asc     ;;

RECORD LOCKS space id 8 page no 3 n bits 320 index PRIMARY of table `d`.`s` trx id 56 lock_mode X locks rec but not gap
Record lock, heap no 2 PHYSICAL RECORD: n_fields 5; compact format; info bits 0
 0: len 4; hex 00000001; asc     ;;
 1: len 6; hex 000000000035; asc      5;;
 2: len 7; hex 95000001350110; asc     5  ;;
 3: len 30; hex 6162636465666768696a6162636465666768696a6162636465666768696a; asc abcdefghijabcdefghijabcdefghij; (total 50 bytes);
 4: SQL NULL;

RECORD LOCKS space id 8 page no 5 n bits 320 index n of table `d`.`s` trx id 56 lock_mode X
Record lock, heap no 1 PHYSICAL RECORD: n_fields 1; compact format; info bits 0
 0: len 8; hex 73757072656d756d; asc supremum;;

Record lock, heap no 2 PHYSICAL RECORD: n_fields 2; compact format; info bits 0
 0: SQL NULL;
 1: len 4; hex 00000001; asc     ;;

--------
FILE I/O
)";

TableColumns Runs() {
  TableColumns t;
  t.indexes["PRIMARY"] = {"id"};
  t.indexes["k_idx"] = {"k"};
  t.columns["id"] = {"int", false};
  t.columns["status"] = {"varchar", false};
  t.columns["attempts"] = {"int", false};
  t.columns["k"] = {"int", false};
  return t;
}

std::string Line(const InnodbLock& l, const TableColumns* t) {
  LockWords w = DescribeInnodbLock(l, t);
  return std::to_string(l.thread_id) + (l.waiting ? " awaits " : " holds ") + w.mode + " " +
         w.object + " (" + w.lock_type + ")";
}

TEST(InnodbStatusLocks, AHolderAndItsWaiterEachWithTheirRowLock) {
  InnodbStatusLocks p = ParseInnodbStatusLocks(kHolderAndWaiter);
  EXPECT_TRUE(p.locks_listed);
  const TableColumns runs = Runs();
  std::vector<std::string> lines;
  for (const InnodbLock& l : p.locks) lines.push_back(Line(l, &runs));
  // The waiter's awaited lock is printed twice (its wait, then its list): listed once.
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "8 holds IX table lock on d.runs (TABLE)",
                       "8 awaits X record lock (not gap) on d.runs PRIMARY id=1 (RECORD)",
                       "4 holds IX table lock on d.runs (TABLE)",
                       "4 holds X record lock (not gap) on d.runs PRIMARY id=1 (RECORD)",
                   }));
  EXPECT_EQ(p.locks[3].heap_no, 2);
  EXPECT_EQ(p.locks[3].index, "PRIMARY");
  ASSERT_EQ(p.locks[3].fields.size(), 6u);
  EXPECT_EQ(p.locks[3].fields[3].bytes, "queued");
}

TEST(InnodbStatusLocks, WithoutTheColumnsARecordIsNamedByItsHeapNumber) {
  InnodbStatusLocks p = ParseInnodbStatusLocks(kHolderAndWaiter);
  ASSERT_EQ(p.locks.size(), 4u);
  EXPECT_EQ(Line(p.locks[3], nullptr),
            "4 holds X record lock (not gap) on d.runs PRIMARY heap no 2 (RECORD)");
}

TEST(InnodbStatusLocks, WithLockOutputOffNothingIsListed) {
  InnodbStatusLocks p = ParseInnodbStatusLocks(kLocksOff);
  EXPECT_FALSE(p.locks_listed);
  EXPECT_TRUE(p.locks.empty());
}

TEST(InnodbStatusLocks, GapNextKeyInsertIntentionSupremumSecondaryIndexStringKeys) {
  InnodbStatusLocks p = ParseInnodbStatusLocks(kRich);
  TableColumns names;
  names.indexes["PRIMARY"] = {"name"};
  names.columns["name"] = {"varchar", false};
  const TableColumns runs = Runs();
  std::vector<std::string> lines;
  for (const InnodbLock& l : p.locks) {
    if (l.thread_id != 14 && l.thread_id != 15) continue;
    lines.push_back(Line(l, l.table == "names" ? &names : l.table == "runs" ? &runs : nullptr));
  }
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "15 holds IX table lock on d.runs (TABLE)",
                       "15 awaits X insert intention lock on d.runs k_idx k=30 id=-3 (RECORD)",
                       "14 holds IX table lock on d.runs (TABLE)",
                       "14 holds X next-key lock on d.runs k_idx supremum (RECORD)",
                       "14 holds X next-key lock on d.runs k_idx k=20 id=2 (RECORD)",
                       "14 holds X next-key lock on d.runs k_idx k=30 id=-3 (RECORD)",
                       "14 holds X record lock (not gap) on d.runs PRIMARY id=2 (RECORD)",
                       "14 holds X record lock (not gap) on d.runs PRIMARY id=-3 (RECORD)",
                       "14 holds IX table lock on d.names (TABLE)",
                       "14 holds X record lock (not gap) on d.names PRIMARY name='bob' (RECORD)",
                       "14 holds IS table lock on d.nopk (TABLE)",
                       "14 holds S next-key lock on d.nopk GEN_CLUST_INDEX supremum (RECORD)",
                       "14 holds S next-key lock on d.nopk GEN_CLUST_INDEX heap no 2 (RECORD)",
                       "14 holds S next-key lock on d.nopk GEN_CLUST_INDEX heap no 3 (RECORD)",
                   }));
  EXPECT_TRUE(p.suppressed.empty());
}

TEST(InnodbStatusLocks, ATruncatedStringAnUnsignedKeyAndANull) {
  InnodbStatusLocks p = ParseInnodbStatusLocks(kLongAndNull);
  TableColumns s;
  s.indexes["PRIMARY"] = {"id"};
  s.indexes["t"] = {"t"};
  s.indexes["n"] = {"n"};
  s.columns["id"] = {"int", true};
  s.columns["t"] = {"varchar", false};
  s.columns["n"] = {"int", false};
  std::vector<std::string> lines;
  for (const InnodbLock& l : p.locks) lines.push_back(Line(l, &s));
  EXPECT_EQ(
      lines,
      (std::vector<std::string>{
          "20 holds IX table lock on d.s (TABLE)",
          "20 holds X next-key lock on d.s t supremum (RECORD)",
          "20 holds X next-key lock on d.s t t='abcdefghijabcdefghijabcdefghij'… id=1 (RECORD)",
          "20 holds X record lock (not gap) on d.s PRIMARY id=1 (RECORD)",
          "20 holds X next-key lock on d.s n supremum (RECORD)",
          "20 holds X next-key lock on d.s n n=NULL id=1 (RECORD)",
      }));
}

TEST(InnodbStatusLocks, ALockLineWithAnotherTransactionsIdIsNotTaken) {
  // A statement's text is printed under its transaction: it cannot pass for a lock line.
  const std::string text =
      "LIST OF TRANSACTIONS FOR EACH SESSION:\n"
      "---TRANSACTION 30, ACTIVE 1 sec\n"
      "MariaDB thread id 9, OS thread handle 1, query id 2 localhost root\n"
      "SELECT 'x\n"
      "TABLE LOCK table `d`.`t` trx id 31 lock mode X\n"
      "'\n"
      "TABLE LOCK table `d`.`t` trx id 30 lock mode IX\n"
      "10 LOCKS PRINTED FOR THIS TRX: SUPPRESSING FURTHER PRINTS\n"
      "--------\n"
      "FILE I/O\n";
  InnodbStatusLocks p = ParseInnodbStatusLocks(text);
  ASSERT_EQ(p.locks.size(), 1u);
  EXPECT_EQ(p.locks[0].mode, "IX");
  EXPECT_EQ(p.suppressed, std::vector<int64_t>{9});
}

TEST(InnodbStatusLocks, FieldValuesAsSqlWritesThem) {
  auto f = [](std::string bytes, bool truncated = false) {
    InnodbField x;
    x.bytes = std::move(bytes);
    x.truncated = truncated;
    return x;
  };
  EXPECT_EQ(FieldValue(f(std::string("\x80\x00\x00\x01", 4)), {"int", false}), "1");
  EXPECT_EQ(FieldValue(f(std::string("\x7f\xff\xff\xfd", 4)), {"int", false}), "-3");
  EXPECT_EQ(FieldValue(f(std::string("\xff\xff\xff\xfd", 4)), {"int", true}), "4294967293");
  EXPECT_EQ(FieldValue(f(std::string("\x7f\xff\xff\xff\xff\xff\xff\xff", 8)), {"bigint", false}),
            "-1");
  EXPECT_EQ(FieldValue(f(std::string("\x80", 1)), {"tinyint", false}), "0");
  EXPECT_EQ(FieldValue(f("it's"), {"varchar", false}), "'it''s'");
  EXPECT_EQ(FieldValue(f("ab   "), {"char", false}), "'ab'");
  EXPECT_EQ(FieldValue(f("abc", true), {"text", false}), "'abc'…");
  EXPECT_EQ(FieldValue(f(std::string("\x01\x02", 2)), {"varchar", false}), "0x0102");
  EXPECT_EQ(FieldValue(f("\x99"), {"datetime", false}), "0x99");
  InnodbField null;
  null.null = true;
  EXPECT_EQ(FieldValue(null, {"int", false}), "NULL");
}

}  // namespace
}  // namespace racelab::mariadb
