// Internal to harness/loader: a scenario's `engines` and its engine maps (docs/scenario-format.md
// "Engines and SQL that differs").
//
// An engine map is a YAML mapping whose keys are all engine names (postgresql, mariadb, sqlite) or
// `default`, written where any value may be: `sql: { postgresql: "…", mariadb: "…" }`. The loader
// reads the file once per engine the scenario lists; before each reading, every engine map in the
// tree is replaced in place by its entry for that engine (else its `default`).
// Thread-safety: stateless functions; each call works on the tree it is given.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "harness/loader/yaml_reader.h"

namespace racelab::internal {

// The engine names a scenario may list: KnownEngineNames() (harness/model/engine_traits.h).
const std::vector<std::string>& KnownEngines();

// The top-level `engines` of `root` (a list of known engine names, no duplicates), or
// {kDefaultEngine} when absent. Errors go to `reader` (then the engines read so far, or
// {kDefaultEngine}, are returned).
std::vector<std::string> ReadEngines(YamlReader& reader, const YAML::Node& root);

// Replaces every engine map under `root` (root's values, recursively) by its entry for `engine`.
// Errors (reported once per map and engine): an engine map without an entry for `engine` and
// without `default`; an entry for an engine the scenario does not list (`engines`).
void ResolveEngineMaps(YamlReader& reader, YAML::Node root, const std::string& engine,
                       const std::vector<std::string>& engines);

}  // namespace racelab::internal
