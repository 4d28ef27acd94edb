#include "harness/engines/postgresql/descriptor.h"

#include <cstdlib>

#include "harness/engines/embedded/run_folders.h"
#include "harness/engines/postgresql/cluster.h"
#include "harness/engines/postgresql/dsn.h"
#include "harness/engines/postgresql/pg_engine.h"

namespace racelab::pg {
namespace {

// `clean` or `list` applied to each of `dirs`: the removals summed, the paths joined.
int SumOver(const std::vector<std::string>& dirs, int (*clean)(const std::string&)) {
  int n = 0;
  for (const auto& d : dirs) n += clean(d);
  return n;
}
std::vector<std::string> ListOver(const std::vector<std::string>& dirs,
                                  std::vector<std::string> (*list)(const std::string&),
                                  const std::string& what = "") {
  std::vector<std::string> out;
  for (const auto& d : dirs) {
    for (const std::string& path : list(d)) out.push_back(what + path);
  }
  return out;
}

// The base folder under $RACELAB_TMPDIR when it is set (and valid), else none: the templates there
// are listed and removed by `racelab clean` (harness/engine_registry/open_engine.h).
std::vector<std::string> TmpdirBaseDirs() {
  const char* dir = std::getenv("RACELAB_TMPDIR");
  if (dir == nullptr || *dir == '\0' || !embedded::CheckTmpdirVariable().ok()) return {};
  return {DefaultBaseDir()};
}

Result<std::unique_ptr<Engine>> Open(const EngineOptions& o) {
  PgEngineOptions po;
  po.dsn = o.dsn;
  po.pg_bindir = o.server_bindir;
  po.connect_timeout_ms = o.connect_timeout_ms;
  po.stop = o.stop;
  po.confine = o.confine;
  po.allow_superuser = o.allow_superuser;
  return OpenPostgresEngine(po);
}

// The initdb templates of earlier racelab versions (16 MB WAL segments), this version's in a base
// folder racelab no longer uses, and this version's under $RACELAB_TMPDIR (template.h).
std::vector<std::string> ListObsolete() {
  std::vector<std::string> out =
      ListOver(BaseDirsToClean(), &ListObsoleteTemplates, "template of an earlier racelab ");
  for (auto& line : ListOver(UnusedBaseDirs(), &ListUnusedTemplates,
                             "template in a folder racelab no longer uses ")) {
    out.push_back(std::move(line));
  }
  for (auto& line :
       ListOver(TmpdirBaseDirs(), &ListUnusedTemplates, "template under RACELAB_TMPDIR ")) {
    out.push_back(std::move(line));
  }
  return out;
}
int CleanObsolete() {
  return SumOver(BaseDirsToClean(), &CleanObsoleteTemplates) +
         SumOver(UnusedBaseDirs(), &CleanUnusedTemplates) +
         SumOver(TmpdirBaseDirs(), &CleanUnusedTemplates);
}

}  // namespace

const EngineDescriptor& PostgresDescriptor() {
  static const EngineDescriptor kDescriptor = {
      .traits = FindEngineTraits("postgresql"),
      .dsn_schemes = {"postgresql://", "postgres://"},
      .dsn_forms = "a postgresql:// URI or libpq key=value string",
      .takes_key_value_dsn = true,
      .runs_isolation_specs = true,
      .reads_libpq_environment = true,
      .open = &Open,
      .redact_dsn = &RedactDsn,
      .looks_like_dsn = &LooksLikeDsn,
      .may_hold_password = &MayHoldPassword,
      .cleaners = {.orphan_kind = "cluster",
                   .list_orphans = [] { return ListOver(BaseDirsToClean(), &ListOrphans); },
                   .clean_orphans = [] { return SumOver(BaseDirsToClean(), &CleanOrphans); },
                   .list_obsolete = &ListObsolete,
                   .clean_obsolete = &CleanObsolete},
  };
  return kDescriptor;
}

}  // namespace racelab::pg
