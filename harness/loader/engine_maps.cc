#include "harness/loader/engine_maps.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <unordered_set>

#include "harness/model/engine_traits.h"

namespace racelab::internal {
namespace {

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A non-empty mapping whose keys are all engine names or `default`.
bool IsEngineMap(const YAML::Node& node) {
  if (!node.IsMap() || node.size() == 0) return false;
  for (const auto& entry : node) {
    if (!entry.first.IsScalar()) return false;
    const std::string& key = entry.first.Scalar();
    if (key != "default" && !Contains(KnownEngines(), key)) return false;
  }
  return true;
}

// Replaces `node` (a handle shared with its parent) by its entry for `engine`; false on an error.
bool Pick(YamlReader& reader, YAML::Node node, const std::string& path, const std::string& engine,
          const std::vector<std::string>& engines) {
  std::optional<YAML::Node> own, fallback;
  bool ok = true;
  for (const auto& entry : node) {
    const std::string& key = entry.first.Scalar();
    if (key != "default" && !Contains(engines, key)) {
      reader.Error(entry.first.Mark(), path,
                   fmt::format("engine '{}' is not one this scenario runs on (engines: {}); add it "
                               "to `engines` or remove this entry",
                               key, JoinNames(engines)));
      ok = false;
    }
    if (key == engine) own = entry.second;
    if (key == "default") fallback = entry.second;
  }
  std::optional<YAML::Node> chosen = own ? own : fallback;
  if (!chosen) {
    reader.Error(node.Mark(), path,
                 fmt::format("this engine map has no entry for '{}' and no `default` (an engine "
                             "map needs one for every engine in `engines`: {})",
                             engine, JoinNames(engines)));
    node = node.begin()->second;  // read on with any entry, so that this is the only error here
    return false;
  }
  node = *chosen;  // yaml-cpp: makes the shared node refer to the chosen value, marks included
  return ok;
}

// Collections already walked, by their position in the file: an alias is the node it names, so a
// "billion laughs" file is walked once per distinct node, not once per path to it.
using Visited = std::unordered_set<int>;

void Resolve(YamlReader& reader, YAML::Node node, const std::string& path,
             const std::string& engine, const std::vector<std::string>& engines, int depth,
             Visited& visited) {
  if (depth > 64 || reader.full()) return;  // nesting is bounded by CheckYamlNesting anyway
  if ((node.IsMap() || node.IsSequence()) && !node.Mark().is_null() &&
      !visited.insert(node.Mark().pos).second) {
    return;
  }
  if (node.IsMap()) {
    for (auto entry : node) {
      if (!entry.first.IsScalar()) continue;
      std::string child_path = JoinPath(path, entry.first.Scalar());
      YAML::Node value = entry.second;
      if (IsEngineMap(value) && !Pick(reader, value, child_path, engine, engines)) continue;
      Resolve(reader, value, child_path, engine, engines, depth + 1, visited);
    }
  } else if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i) {
      YAML::Node item = node[i];
      std::string child_path = IndexPath(path, i);
      if (IsEngineMap(item) && !Pick(reader, item, child_path, engine, engines)) continue;
      Resolve(reader, item, child_path, engine, engines, depth + 1, visited);
    }
  }
}

}  // namespace

const std::vector<std::string>& KnownEngines() { return KnownEngineNames(); }

std::vector<std::string> ReadEngines(YamlReader& reader, const YAML::Node& root) {
  const std::vector<std::string> fallback = {std::string(kDefaultEngine)};
  if (!root.IsMap()) return fallback;
  YAML::Node value = root["engines"];
  if (!value.IsDefined() || value.IsNull()) return fallback;
  Ref ref{value, value.Mark(), "engines"};
  std::optional<std::vector<std::pair<std::string, Ref>>> items =
      reader.TextItems(ref, KnownEngines().size() + 1, 32);
  if (!items) return fallback;
  std::vector<std::string> engines;
  for (const auto& [name, item] : *items) {
    if (!Contains(KnownEngines(), name)) {
      std::string hint = Suggest(name, KnownEngines());
      reader.Error(item,
                   fmt::format("unknown engine '{}' (expected one of: {}){}", name,
                               JoinNames(KnownEngines()),
                               hint.empty() ? "" : fmt::format("; did you mean '{}'?", hint)));
    } else if (Contains(engines, name)) {
      reader.Error(item, fmt::format("engine '{}' is listed twice", name));
    } else {
      engines.push_back(name);
    }
  }
  if (items->empty()) reader.Error(ref, "list at least one engine");
  return engines.empty() ? fallback : engines;
}

void ResolveEngineMaps(YamlReader& reader, YAML::Node root, const std::string& engine,
                       const std::vector<std::string>& engines) {
  Visited visited;
  Resolve(reader, root, "", engine, engines, 0, visited);
}

}  // namespace racelab::internal
