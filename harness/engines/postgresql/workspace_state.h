// The logical state of a PostgreSQL workspace (a schema): what a scenario's `reset:` is checked
// against (docs/scenario-format.md "reset", harness/run/workspace_reset.h).
//
// Two queries, prepared once per emptied workspace on racelab's checker session (planning them cost
// 3–4 ms a time on the development machine; executing the version ~1 ms). Each returns one row per
// object, (object text, state text), ordered by object.
//  - state (kFull): "relation runs", "constraint runs_pkey on runs", "function f(integer)", … with the
//    md5 of the object's definition and, for tables, materialized views and sequences, its contents:
//    a table's row count and the md5 of its rows as text, sorted; a sequence's last_value and
//    is_called. Compared: relations (kind, persistence, columns with type, NOT NULL, default,
//    identity, generated; options, row security, privileges; a sequence's parameters), index and view
//    definitions, constraints, triggers (and whether enabled), rules, policies, functions and
//    procedures (kind, volatility, source, result), types (and enum labels), the contents of tables
//    and sequences. Not compared, so not promised by a `reset:`: the physical layout (ctid, xmin, dead
//    row versions, free space — the order a query without ORDER BY returns rows in), statistics and
//    the planner's choices, object ids, comments, a sequence's cached values (log_cnt), and anything
//    outside the schema (as with a fresh schema).
//  - version (kVersion): the same contents and, instead of the definitions, the (oid, xmin) of every
//    catalogue row the state reads (pg_namespace, pg_class, pg_attribute, pg_attrdef, pg_sequence,
//    pg_index, pg_trigger, pg_rewrite, pg_policy, pg_constraint, pg_proc, pg_type, pg_enum). A DDL
//    statement inserts, deletes or updates such rows, and an updated row gets a new xmin (only
//    VACUUM's and ANALYZE's statistics are written in place, and the state reads none of them), so an
//    unchanged version means an unchanged state; a changed one (TRUNCATE gives a table a new file)
//    means the state must be read.
// Contents are read with query_to_xml (PostgreSQL docs §9.15.4), so each read is one round trip; it
// reads every row of every table, so its cost grows with the data.
// Thread-safety: pure functions and constants.
#pragma once

#include <cstddef>
#include <string>

namespace racelab::pg {

// Rows a state query may return (one per object in the workspace).
inline constexpr size_t kMaxStateRows = 100000;

// The state and version queries of schema `schema` (quoted inside), as written.
std::string WorkspaceStateSql(const std::string& schema);
std::string WorkspaceVersionSql(const std::string& schema);
// DEALLOCATE ALL, then PREPARE both as racelab_state and racelab_version: one round trip. Run as a role
// that may read the schema's tables and sequences (the generated role owns them under confinement).
std::string PrepareWorkspaceStateSql(const std::string& schema);
inline constexpr const char* kExecuteStateSql = "EXECUTE racelab_state";
inline constexpr const char* kExecuteVersionSql = "EXECUTE racelab_version";

}  // namespace racelab::pg
