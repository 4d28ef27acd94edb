#include "harness/engines/postgresql/workspace_state.h"

#include <fmt/format.h>

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

// {0}: the schema's name as a literal. The header says why each catalogue is here.
constexpr const char* kVersionSql = R"sql(
WITH ns AS (SELECT oid, xmin, nspname FROM pg_namespace WHERE nspname = {0})
SELECT 'catalog' AS object, md5(concat_ws(E'\n',
  (SELECT xmin FROM ns),
  (SELECT string_agg(concat_ws(':', c.oid, c.xmin, a.attnum, a.xmin, d.oid, d.xmin, s.xmin, i.xmin), ','
                     ORDER BY c.oid, a.attnum)
     FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
     LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
     LEFT JOIN pg_sequence s ON s.seqrelid = c.oid AND a.attnum = 1
     LEFT JOIN pg_index i ON i.indexrelid = c.oid AND a.attnum = 1
    WHERE c.relnamespace = (SELECT oid FROM ns)),
  (SELECT string_agg(concat_ws(':', x.k, x.oid, x.xmin), ',' ORDER BY x.k, x.oid) FROM (
     SELECT 'g' AS k, t.oid, t.xmin FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      WHERE c.relnamespace = (SELECT oid FROM ns)
     UNION ALL SELECT 'r', w.oid, w.xmin FROM pg_rewrite w JOIN pg_class c ON c.oid = w.ev_class
      WHERE c.relnamespace = (SELECT oid FROM ns)
     UNION ALL SELECT 'p', p.oid, p.xmin FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid
      WHERE c.relnamespace = (SELECT oid FROM ns)
     UNION ALL SELECT 'k', oid, xmin FROM pg_constraint WHERE connamespace = (SELECT oid FROM ns)
     UNION ALL SELECT 'f', oid, xmin FROM pg_proc WHERE pronamespace = (SELECT oid FROM ns)
     UNION ALL SELECT 't', oid, xmin FROM pg_type WHERE typnamespace = (SELECT oid FROM ns)
     UNION ALL SELECT 'e', e.oid, e.xmin FROM pg_enum e JOIN pg_type y ON y.oid = e.enumtypid
      WHERE y.typnamespace = (SELECT oid FROM ns)) x))) AS state
UNION ALL
SELECT 'contents ' || c.relname, query_to_xml(format(
    CASE c.relkind WHEN 'S' THEN 'SELECT last_value, is_called FROM %I.%I'
    ELSE 'SELECT count(*) AS n, md5(coalesce(string_agg(t::text, E''\n'' ORDER BY t::text), '''')) AS rows FROM %I.%I t' END,
    (SELECT nspname FROM ns), c.relname), true, true, '')::text
  FROM pg_class c WHERE c.relnamespace = (SELECT oid FROM ns) AND c.relkind IN ('r', 'm', 'S')
ORDER BY 1
)sql";

}  // namespace

std::string WorkspaceStateSql(const std::string& schema) { return fmt::format(kStateSql, Literal(schema)); }
std::string WorkspaceVersionSql(const std::string& schema) { return fmt::format(kVersionSql, Literal(schema)); }

std::string PrepareWorkspaceStateSql(const std::string& schema) {
  return fmt::format("DEALLOCATE ALL; PREPARE racelab_state AS {}; PREPARE racelab_version AS {};",
                     WorkspaceStateSql(schema), WorkspaceVersionSql(schema));
}

}  // namespace racelab::pg
