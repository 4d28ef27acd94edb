// Which MariaDB errors mean the scenario's SQL can never run as written (MariaDB docs "MariaDB
// Error Codes"; numbers from Connector/C's mysqld_error.h). The MariaDB engine answers
// Engine::IsScenarioError with this, and judges a refused session setting with it.
// Thread-safety: pure function.
#pragma once

#include <mysqld_error.h>

#include <string>

namespace racelab::mariadb {

// `sqlstate` and `code` of one error. True for:
//  - SQLSTATE class 42, syntax error or access rule violation — the access-denied errors under
//    confinement among them: 1044 (database), 1142 (table), 1143 (column), 1227 (needs a privilege
//    such as SUPER), 1370 (routine), all SQLSTATE 42000;
//  - 1045 (28000, access denied for the user);
//  - SQLSTATE class 25, invalid transaction state — 1179 (25000, not allowed inside a
//    transaction), 1568 (25001, characteristics changed during a transaction) — but not 25006
//    (1792, a write the scenario's READ ONLY transaction refused: an outcome it may expect);
//  - XA statements out of their order: 1397 XAER_NOTA (unknown xid), 1398 XAER_INVAL, 1399
//    XAER_RMFAIL (not allowed in this XA state), 1400 XAER_OUTSIDE, 1440 XAER_DUPID. Not the XA
//    rollbacks (1402, 1613, 1614: a deadlock or timeout's outcome) nor 1401 XAER_RMERR (the
//    server's).
inline bool IsScenarioSqlError(const std::string& sqlstate, unsigned code) {
  if (sqlstate.rfind("42", 0) == 0) return true;
  if (sqlstate.rfind("25", 0) == 0 && sqlstate != "25006") return true;
  switch (code) {
    case ER_ACCESS_DENIED_ERROR:
    case ER_XAER_NOTA:
    case ER_XAER_INVAL:
    case ER_XAER_RMFAIL:
    case ER_XAER_OUTSIDE:
    case ER_XAER_DUPID:
      return true;
    default:
      return false;
  }
}

}  // namespace racelab::mariadb
