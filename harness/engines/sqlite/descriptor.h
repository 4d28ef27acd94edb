// The SQLite engine's row of the engine registry (harness/engine/engine_descriptor.h): sqlite:
// DSNs, the run folders of dead runs. Thread-safety: immutable.
#pragma once

#include "harness/engine/engine_descriptor.h"

namespace racelab::sqlite {

const EngineDescriptor& SqliteDescriptor();

}  // namespace racelab::sqlite
