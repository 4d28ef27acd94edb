#include "harness/engines/postgresql/workspace_state.h"

#include <fmt/format.h>

#include "harness/engines/postgresql/connection.h"

namespace racelab::pg {
namespace {

// A string literal for standard_conforming_strings = on (the default since PostgreSQL 9.1).
std::string Literal(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

// {0}: the schema's name as a literal. query_to_xml runs its text as the current role; the rows of
// a table are sorted by their text so that the digest does not depend on their physical order.
constexpr const char* kStateSql = R"sql(
WITH ns AS (SELECT oid, nspname FROM pg_namespace WHERE nspname = {0}),
rel AS (SELECT c.* FROM pg_class c JOIN ns ON c.relnamespace = ns.oid)
SELECT object, state FROM (
  SELECT 'schema ' || n.nspname AS object, md5(concat_ws(E'\n', n.nspowner, n.nspacl::text)) AS state
    FROM pg_namespace n JOIN ns ON n.oid = ns.oid
  UNION ALL
  SELECT 'relation ' || r.relname, md5(concat_ws(E'\n', r.relkind, r.relpersistence,
      r.relrowsecurity, r.relforcerowsecurity, r.reloptions::text, r.relacl::text,
      (SELECT string_agg(concat_ws(' ', a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
                                   a.attidentity, a.attgenerated, pg_get_expr(d.adbin, d.adrelid)),
                         ', ' ORDER BY a.attnum)
         FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped),
      CASE WHEN r.relkind IN ('i', 'I') THEN pg_get_indexdef(r.oid) END,
      CASE WHEN r.relkind IN ('v', 'm') THEN pg_get_viewdef(r.oid) END,
      (SELECT concat_ws(' ', q.seqtypid, q.seqstart, q.seqincrement, q.seqmax, q.seqmin, q.seqcache, q.seqcycle)
         FROM pg_sequence q WHERE q.seqrelid = r.oid),
      CASE WHEN r.relkind = 'S' THEN query_to_xml(format('SELECT last_value, is_called FROM %I.%I',
                                                         (SELECT nspname FROM ns), r.relname), true, true, '')::text
           WHEN r.relkind IN ('r', 'm') THEN query_to_xml(format(
               'SELECT count(*) AS n, md5(coalesce(string_agg(t::text, E''\n'' ORDER BY t::text), '''')) AS rows FROM %I.%I t',
               (SELECT nspname FROM ns), r.relname), true, true, '')::text END))
    FROM rel r
  UNION ALL
  SELECT 'constraint ' || c.conname || ' on ' || coalesce(r.relname, '-'), md5(pg_get_constraintdef(c.oid))
    FROM pg_constraint c JOIN ns ON c.connamespace = ns.oid LEFT JOIN rel r ON r.oid = c.conrelid
  UNION ALL
  SELECT 'trigger ' || t.tgname || ' on ' || r.relname, md5(concat_ws(E'\n', pg_get_triggerdef(t.oid), t.tgenabled))
    FROM pg_trigger t JOIN rel r ON r.oid = t.tgrelid WHERE NOT t.tgisinternal
  UNION ALL
  SELECT 'rule ' || w.rulename || ' on ' || r.relname, md5(concat_ws(E'\n', pg_get_ruledef(w.oid), w.ev_enabled))
    FROM pg_rewrite w JOIN rel r ON r.oid = w.ev_class WHERE w.rulename <> '_RETURN'
  UNION ALL
  SELECT 'policy ' || p.polname || ' on ' || r.relname,
         md5(concat_ws(E'\n', p.polcmd, p.polpermissive, p.polroles::text, pg_get_expr(p.polqual, p.polrelid),
                       pg_get_expr(p.polwithcheck, p.polrelid)))
    FROM pg_policy p JOIN rel r ON r.oid = p.polrelid
  UNION ALL
  SELECT 'function ' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')',
         md5(concat_ws(E'\n', p.prokind, p.provolatile, p.prosecdef, p.prosrc, p.proconfig::text, p.proacl::text,
                       pg_get_function_result(p.oid)))
    FROM pg_proc p JOIN ns ON p.pronamespace = ns.oid
  UNION ALL
  SELECT 'type ' || t.typname, md5(concat_ws(E'\n', t.typtype, t.typacl::text,
           (SELECT string_agg(e.enumlabel, ', ' ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid)))
    FROM pg_type t JOIN ns ON t.typnamespace = ns.oid
) s ORDER BY object, state
)sql";

// {0}: the schema's name as a literal. The header says why each catalogue is here and why each is
// read the way it is: pg_class, pg_constraint and pg_type by a scan filtered on the namespace (a
// few hundred rows), the rows that hang off a relation by their relation's oid (an index each),
// pg_proc through pg_depend's index on the referenced object (pg_proc has no index on pronamespace
// and ~3,000 rows: scanning it was a fifth of the old version's cost).
constexpr const char* kVersionCatalogSql = R"sql(
WITH ns AS (SELECT oid, xmin FROM pg_namespace WHERE nspname = {0}),
cls AS (SELECT c.oid, c.xmin FROM pg_class c WHERE c.relnamespace = (SELECT oid FROM ns))
SELECT 'catalog' AS object, md5(concat_ws(E'\n',
  (SELECT xmin FROM ns),
  (SELECT string_agg(concat_ws(':', c.oid, c.xmin,
      (SELECT string_agg(a.attnum || '/' || a.xmin, ',' ORDER BY a.attnum) FROM pg_attribute a WHERE a.attrelid = c.oid),
      (SELECT string_agg(d.adnum || '/' || d.oid || '/' || d.xmin, ',' ORDER BY d.adnum) FROM pg_attrdef d WHERE d.adrelid = c.oid),
      (SELECT s.xmin FROM pg_sequence s WHERE s.seqrelid = c.oid),
      (SELECT i.xmin FROM pg_index i WHERE i.indexrelid = c.oid),
      (SELECT string_agg(t.oid || '/' || t.xmin, ',' ORDER BY t.oid) FROM pg_trigger t WHERE t.tgrelid = c.oid),
      (SELECT string_agg(w.oid || '/' || w.xmin, ',' ORDER BY w.oid) FROM pg_rewrite w WHERE w.ev_class = c.oid),
      (SELECT string_agg(p.oid || '/' || p.xmin, ',' ORDER BY p.oid) FROM pg_policy p WHERE p.polrelid = c.oid)),
    ',' ORDER BY c.oid) FROM cls c),
  (SELECT string_agg(oid || '/' || xmin, ',' ORDER BY oid) FROM pg_constraint WHERE connamespace = (SELECT oid FROM ns)),
  (SELECT string_agg(p.oid || '/' || p.xmin, ',' ORDER BY p.oid)
     FROM pg_depend d JOIN pg_proc p ON p.oid = d.objid
    WHERE d.refclassid = 'pg_namespace'::regclass AND d.refobjid = (SELECT oid FROM ns) AND d.classid = 'pg_proc'::regclass),
  (SELECT string_agg(concat_ws('/', y.oid, y.xmin,
      (SELECT string_agg(e.oid || '/' || e.xmin, ',' ORDER BY e.oid) FROM pg_enum e WHERE e.enumtypid = y.oid)),
      ',' ORDER BY y.oid)
     FROM pg_type y WHERE y.typnamespace = (SELECT oid FROM ns)))) AS state
)sql";

// A table's or materialized view's contents ({}: the qualified name): its row count and the md5 of
// its rows as text, sorted so that the digest does not depend on their physical order.
constexpr const char* kTableContentsSql =
    "SELECT concat_ws(' ', count(*), md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), "
    "''))) FROM {} t";
constexpr const char* kSequenceContentsSql = "SELECT concat_ws(' ', last_value, is_called) FROM {}";

constexpr const char* kRelationsSql =
    "SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
    "WHERE n.nspname = {0} AND c.relkind IN ('r', 'm', 'S') ORDER BY c.relname";

}  // namespace

std::string WorkspaceStateSql(const std::string& schema) {
  return fmt::format(kStateSql, Literal(schema));
}

std::string WorkspaceRelationsSql(const std::string& schema) {
  return fmt::format(kRelationsSql, Literal(schema));
}

std::string WorkspaceVersionSql(const std::string& schema,
                                const std::vector<WorkspaceRelation>& relations) {
  std::string sql = fmt::format(kVersionCatalogSql, Literal(schema));
  for (const WorkspaceRelation& r : relations) {
    const std::string name = QuoteIdent(schema) + "." + QuoteIdent(r.name);
    sql += fmt::format(
        "UNION ALL SELECT {}, ({})\n", Literal("contents " + r.name),
        fmt::format(fmt::runtime(r.kind == 'S' ? kSequenceContentsSql : kTableContentsSql), name));
  }
  return sql;
}

std::string PrepareWorkspaceStateSql(const std::string& schema) {
  return fmt::format("DEALLOCATE ALL; PREPARE racelab_state AS {}; {}", WorkspaceStateSql(schema),
                     WorkspaceRelationsSql(schema));
}

std::string PrepareWorkspaceVersionSql(const std::string& schema,
                                       const std::vector<WorkspaceRelation>& relations) {
  return "PREPARE racelab_version AS " + WorkspaceVersionSql(schema, relations);
}

}  // namespace racelab::pg
