// The engine registry: the engines this build has, each by its descriptor
// (harness/engine/engine_descriptor.h), which each engine defines in its own folder. The one
// library that links every engine (PRIVATE: what links the registry — the CLI, the benchmarks —
// still cannot include an engine's headers); the interface below it and the loader never see it
// (tests/layering). Above it, code asks a descriptor's traits, never an engine's name.
// Thread-safety: immutable after first use (function-local statics); safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/engine/engine_descriptor.h"

namespace racelab {

// The engines this build has, in the order `--engine all` runs them and `racelab clean` lists
// them (postgresql, sqlite, mariadb); never empty.
const std::vector<const EngineDescriptor*>& RegisteredEngines();

// The descriptor of `name` ("postgresql"), or nullptr when this build does not have it.
const EngineDescriptor* FindEngine(std::string_view name);

// The engine that runs PostgreSQL isolation spec files (runs_isolation_specs), or nullptr.
const EngineDescriptor* IsolationSpecEngine();

// What the CLI says when `engine` starts without --dsn, after "racelab: ": its embedded_note, else
// "starting embedded <display>…" (the name as given for an engine this build does not have).
std::string EmbeddedStartNote(std::string_view engine);

}  // namespace racelab
