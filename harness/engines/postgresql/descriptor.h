// The PostgreSQL engine's row of the engine registry (harness/engine/engine_descriptor.h): libpq
// DSNs (postgresql://, postgres://, key=value text), the embedded cluster, its orphans and the
// initdb templates `racelab clean` removes. Thread-safety: immutable.
#pragma once

#include "harness/engine/engine_descriptor.h"

namespace racelab::pg {

const EngineDescriptor& PostgresDescriptor();

}  // namespace racelab::pg
