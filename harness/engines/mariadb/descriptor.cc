#include "harness/engines/mariadb/descriptor.h"

#include "harness/engines/mariadb/dsn.h"
#include "harness/engines/mariadb/engine.h"
#include "harness/engines/mariadb/server.h"

namespace racelab::mariadb {

const EngineDescriptor& MariaDbDescriptor() {
  static const EngineDescriptor kDescriptor = {
      .traits = FindEngineTraits("mariadb"),
      .dsn_schemes = {"mariadb://", "mysql://"},
      .dsn_forms = "a mariadb:// or mysql:// URI",
      .open = &OpenMariaDbEngine,
      .redact_dsn = &RedactMariaDbDsn,
      .looks_like_dsn = &LooksLikeMariaDbDsn,
      .may_hold_password = &MariaDbDsnMayHoldPassword,
      .cleaners = {.orphan_kind = "server",
                   .list_orphans = [] { return ListMariaDbOrphans(DefaultMariaDbBaseDir()); },
                   .clean_orphans = [] { return CleanMariaDbOrphans(DefaultMariaDbBaseDir()); }},
  };
  return kDescriptor;
}

}  // namespace racelab::mariadb
