// The list of engines: to add one, add its descriptor here and link its library to
// racelab_engine_registry (harness/engine/engine_descriptor.h says what else an engine needs).
#include "harness/engine_registry/registry.h"

#include <fmt/format.h>

#include <cstdlib>

#include "harness/engines/mariadb/descriptor.h"
#include "harness/engines/postgresql/descriptor.h"
#include "harness/engines/sqlite/descriptor.h"

namespace racelab {
namespace {

// Each descriptor names its traits row; a row missing from harness/model/engine_traits.cc is a
// broken build, found by the first use.
std::vector<const EngineDescriptor*> Checked(std::vector<const EngineDescriptor*> engines) {
  for (const EngineDescriptor* d : engines) {
    if (d->traits == nullptr) {
      fmt::print(stderr, "racelab: internal error: an engine descriptor has no traits row\n");
      std::abort();
    }
  }
  return engines;
}

}  // namespace

const std::vector<const EngineDescriptor*>& RegisteredEngines() {
  static const std::vector<const EngineDescriptor*> kEngines = Checked({
      &pg::PostgresDescriptor(),
      &sqlite::SqliteDescriptor(),
      &mariadb::MariaDbDescriptor(),
  });
  return kEngines;
}

const EngineDescriptor* FindEngine(std::string_view name) {
  for (const EngineDescriptor* d : RegisteredEngines()) {
    if (d->name() == name) return d;
  }
  return nullptr;
}

const EngineDescriptor* IsolationSpecEngine() {
  for (const EngineDescriptor* d : RegisteredEngines()) {
    if (d->runs_isolation_specs) return d;
  }
  return nullptr;
}

std::string EmbeddedStartNote(std::string_view engine) {
  const EngineDescriptor* e = FindEngine(engine);
  if (e != nullptr && !e->embedded_note.empty()) return std::string(e->embedded_note);
  const EngineTraits* t = FindEngineTraits(engine);
  return fmt::format("starting embedded {}…", t != nullptr ? t->display : engine);
}

}  // namespace racelab
