#include "harness/engines/postgresql/catalogs.h"

#include <chrono>

#include "harness/engines/postgresql/connection.h"

namespace racelab::internal {
namespace {

// One DO block: the ALTERs are collected first, because ALTER TABLE pg_class cannot run while a
// cursor over pg_class is open in the same session.
constexpr const char* kSql =
    "SET allow_system_table_mods = on; "
    "DO $racelab$DECLARE cmds text[]; c text; BEGIN "
    "SELECT array_agg(format('ALTER TABLE %s SET (vacuum_truncate = false%s)', oid::regclass, "
    "CASE WHEN reltoastrelid <> 0 THEN ', toast.vacuum_truncate = false' ELSE '' END)) INTO cmds "
    "FROM pg_class WHERE relnamespace = 'pg_catalog'::regnamespace AND relkind = 'r'; "
    "FOREACH c IN ARRAY cmds LOOP EXECUTE c; END LOOP; END$racelab$";

}  // namespace

Status KeepCatalogsUntruncated(const std::string& conninfo) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  auto conn = pg::Connection::Open(conninfo, "racelab:setup", deadline, nullptr);
  if (!conn.ok()) return conn.status();
  QueryResult r = (*conn)->Exec(kSql, deadline);
  if (!r.ok()) {
    return Status::Database("cannot set vacuum_truncate on the embedded server's catalogs: " +
                            r.message);
  }
  return Status::Ok();
}

}  // namespace racelab::internal
