// Catalog settings of the embedded cluster's run copy. Internal to the embedded servers
// (harness/engines/postgresql, harness/engines/mariadb).
//
// Why: racelab drops and re-creates its schema every trial, so autovacuum keeps vacuuming the
// system catalogs (pg_attribute, pg_class, pg_constraint, pg_depend, …). When vacuum finds empty
// pages at the end of a table it truncates them under an AccessExclusiveLock (PostgreSQL docs,
// VACUUM and the vacuum_truncate storage parameter, §13.3.1 and CREATE TABLE "Storage Parameters"),
// and a statement that builds its relation cache entries — the first statement on a freshly created
// table — waits for it: lock-lease-fixed's holder/approve was recorded in a 2–20 ms "relation" wait
// on pg_constraint, pg_attribute or pg_index, held by an autovacuum worker, in 3 of 400 trials
// under CPU load (docs/lock-waits.md). With vacuum_truncate = false vacuum still removes dead rows
// (it needs only a ShareUpdateExclusiveLock, which conflicts with no lock a statement takes) but
// never truncates. Thread-safety: any thread; uses its own connection.
#pragma once

#include <string>

#include "harness/model/status.h"

namespace racelab::internal {

// Sets vacuum_truncate = false (and toast.vacuum_truncate = false) on every table of pg_catalog in
// the database `conninfo` names, as superuser with allow_system_table_mods. 20 s deadline.
// Errors: kDatabase.
Status KeepCatalogsUntruncated(const std::string& conninfo);

}  // namespace racelab::internal
