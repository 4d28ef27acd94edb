// The logical state of a PostgreSQL workspace (a schema): what a scenario's `reset:` is checked
// against (docs/scenario-format.md "reset", harness/run/workspace_reset.h).
//
// Two queries, prepared once per emptied workspace on racelab's checker session (planning them cost
// 3–4 ms a time on the development machine). Each returns one row per object, (object text, state
// text); the order is not defined.
//  - state (kFull): "relation runs", "constraint runs_pkey on runs", "function f(integer)", … with
//  the
//    md5 of the object's definition and, for tables, materialized views and sequences, its
//    contents: a table's row count and the md5 of its rows as text, sorted; a sequence's last_value
//    and is_called. Compared: relations (kind, persistence, columns with type, NOT NULL, default,
//    identity, generated; options, row security, privileges; a sequence's parameters), index and
//    view definitions, constraints, triggers (and whether enabled), rules, policies, functions and
//    procedures (kind, volatility, source, result), types (and enum labels), the contents of tables
//    and sequences. Not compared, so not promised by a `reset:`: the physical layout (ctid, xmin,
//    dead row versions, free space — the order a query without ORDER BY returns rows in),
//    statistics and the planner's choices, object ids, comments, a sequence's cached values
//    (log_cnt), and anything outside the schema (as with a fresh schema). Its contents are read
//    with query_to_xml (PostgreSQL docs §9.15.4), which plans each table's query at every read: it
//    is read only when the version moved.
//  - version (kVersion): the (oid, xmin) of every catalogue row the state reads (pg_namespace,
//    pg_class, pg_attribute, pg_attrdef, pg_sequence, pg_index, pg_trigger, pg_rewrite, pg_policy,
//    pg_constraint, pg_proc, pg_type, pg_enum), and the contents of the tables and sequences the
//    schema had when it was prepared, read directly (so planned once, not at every read). A DDL
//    statement inserts, deletes or updates such catalogue rows, and an updated row gets a new xmin
//    (only VACUUM's and ANALYZE's statistics are written in place, and the state reads none of
//    them), so an unchanged catalogue part means the same objects, hence the same tables read for
//    contents, and an unchanged version an unchanged state; a changed one (TRUNCATE gives a table a
//    new file) means the state must be read. The schema's functions are found through pg_depend:
//    PostgreSQL records every function's dependency on its namespace when it is created and moves
//    it with ALTER FUNCTION … SET SCHEMA (src/backend/catalog/pg_proc.c ProcedureCreate,
//    commands/alter.c AlterObjectNamespace_internal; checked on PostgreSQL 15 for functions,
//    procedures and aggregates). When DDL dropped or changed a table the version reads, EXECUTE
//    fails: that is a difference too, and the caller reads the state
//    (harness/run/workspace_reset.h). Cost (docs/performance.md "The check of a reset, made
//    cheaper"): 0.12–0.16 ms of server CPU per read for guarded-cas-claim, against 0.48–0.58 ms for
//    the previous version (query_to_xml, catalogue joins that scanned all of pg_attribute and
//    pg_proc).
// Both read every row of every table, so their cost grows with the data.
// Thread-safety: pure functions and constants.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace racelab::pg {

// Rows a state query may return (one per object in the workspace).
inline constexpr size_t kMaxStateRows = 100000;

// A table, materialized view or sequence of the workspace, as WorkspaceRelationsSql lists them.
struct WorkspaceRelation {
  std::string name;
  char kind = 'r';  // pg_class.relkind: 'r', 'm' or 'S'
};

// The state query of schema `schema` (quoted inside), as written.
std::string WorkspaceStateSql(const std::string& schema);
// Lists the schema's tables, materialized views and sequences: rows (relname, relkind), by name.
std::string WorkspaceRelationsSql(const std::string& schema);
// The version query of `schema` whose contents part reads `relations` (names quoted inside).
std::string WorkspaceVersionSql(const std::string& schema,
                                const std::vector<WorkspaceRelation>& relations);
// First round trip: DEALLOCATE ALL, PREPARE racelab_state, then WorkspaceRelationsSql (its rows are
// the statement's result). Second: PREPARE racelab_version for those relations. Run as a role that
// may read the schema's tables and sequences (the generated role owns them under confinement).
std::string PrepareWorkspaceStateSql(const std::string& schema);
std::string PrepareWorkspaceVersionSql(const std::string& schema,
                                       const std::vector<WorkspaceRelation>& relations);
inline constexpr const char* kExecuteStateSql = "EXECUTE racelab_state";
inline constexpr const char* kExecuteVersionSql = "EXECUTE racelab_version";

}  // namespace racelab::pg
