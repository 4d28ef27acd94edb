// The MariaDB engine's row of the engine registry (harness/engine/engine_descriptor.h): mariadb://
// and mysql:// DSNs, the embedded server and its orphans. Thread-safety: immutable.
#pragma once

#include "harness/engine/engine_descriptor.h"

namespace racelab::mariadb {

const EngineDescriptor& MariaDbDescriptor();

}  // namespace racelab::mariadb
