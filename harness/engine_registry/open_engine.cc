// The engine-neutral questions of open_engine.h, each asked of every descriptor of the registry
// (registry.h); no engine is named here.
#include "harness/engine_registry/open_engine.h"

#include <fmt/format.h>

#include "harness/engine_registry/registry.h"
#include "harness/engines/embedded/run_folders.h"
#include "harness/model/dsn_uri.h"

namespace racelab {
namespace {

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::string KnownNames() {
  std::string out;
  for (const auto& n : EngineNames()) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::vector<std::string> EngineNames() {
  std::vector<std::string> out;
  for (const EngineDescriptor* e : RegisteredEngines()) out.emplace_back(e->name());
  return out;
}

std::string EngineOfDsn(const std::string& dsn) {
  for (const EngineDescriptor* e : RegisteredEngines()) {
    for (std::string_view scheme : e->dsn_schemes) {
      if (StartsWith(dsn, scheme)) return std::string(e->name());
    }
  }
  if (dsn.find("://") != std::string::npos) return "";
  for (const EngineDescriptor* e : RegisteredEngines()) {
    if (e->takes_key_value_dsn) return std::string(e->name());  // libpq key=value, service names
  }
  return "";
}

std::string EngineDisplayName(const std::string& engine) {
  if (const EngineDescriptor* e = FindEngine(engine)) return std::string(e->display());
  if (const EngineTraits* t = FindEngineTraits(engine)) return std::string(t->display);
  return engine;
}

std::string SelectedEngine(const EngineOptions& options) {
  if (!options.engine.empty()) return options.engine;
  if (!options.dsn.empty() && !EngineOfDsn(options.dsn).empty()) return EngineOfDsn(options.dsn);
  return std::string(kDefaultEngine);
}

std::string RedactDsn(const std::string& dsn) {
  const EngineDescriptor* e = FindEngine(EngineOfDsn(dsn));
  return e != nullptr ? e->redact_dsn(dsn) : std::string(kUnparseableDsnText);
}

bool LooksLikeDsn(std::string_view arg) {
  for (const EngineDescriptor* e : RegisteredEngines()) {
    if (e->looks_like_dsn(arg)) return true;
  }
  return false;
}

bool MayHoldPassword(std::string_view dsn) {
  const EngineDescriptor* e = FindEngine(EngineOfDsn(std::string(dsn)));
  return e != nullptr ? e->may_hold_password(dsn) : dsn.find("://") != std::string_view::npos;
}

std::vector<std::string> ListEmbeddedOrphans() {
  std::vector<std::string> out;
  for (const EngineDescriptor* e : RegisteredEngines()) {
    for (const std::string& path : e->cleaners.list_orphans()) {
      out.push_back(fmt::format("{} {} {}", e->display(), e->cleaners.orphan_kind, path));
    }
  }
  return out;
}

int CleanEmbeddedOrphans() {
  int n = 0;
  for (const EngineDescriptor* e : RegisteredEngines()) n += e->cleaners.clean_orphans();
  return n;
}

std::vector<std::string> ListObsoleteEmbeddedFiles() {
  std::vector<std::string> out;
  for (const EngineDescriptor* e : RegisteredEngines()) {
    if (e->cleaners.list_obsolete == nullptr) continue;
    for (const std::string& item : e->cleaners.list_obsolete())
      out.push_back(fmt::format("{} {}", e->display(), item));
  }
  return out;
}

int CleanObsoleteEmbeddedFiles() {
  int n = 0;
  for (const EngineDescriptor* e : RegisteredEngines()) {
    if (e->cleaners.clean_obsolete != nullptr) n += e->cleaners.clean_obsolete();
  }
  return n;
}

Status CheckTmpdirVariable() { return embedded::CheckTmpdirVariable(); }

Result<std::unique_ptr<Engine>> OpenEngine(const EngineOptions& options) {
  if (Status tmpdir = CheckTmpdirVariable(); !tmpdir.ok()) return tmpdir;
  std::string name = options.engine;
  const std::string of_dsn = options.dsn.empty() ? "" : EngineOfDsn(options.dsn);
  if (!options.dsn.empty() && of_dsn.empty()) {
    return Status::Usage(fmt::format(
        "--dsn: no engine this build knows uses that scheme (known engines: {})", KnownNames()));
  }
  if (name.empty()) name = of_dsn.empty() ? std::string(kDefaultEngine) : of_dsn;
  if (!of_dsn.empty() && of_dsn != name) {
    return Status::Usage(
        fmt::format("--engine {} does not match the --dsn, which names a {} server", name, of_dsn));
  }
  const EngineDescriptor* e = FindEngine(name);
  if (e == nullptr) {
    // An engine racelab knows (it has traits) that this build left out gets a clear error.
    return Status::Usage(
        FindEngineTraits(name) != nullptr
            ? fmt::format("engine '{}' is not built into this racelab yet (known engines: {})",
                          name, KnownNames())
            : fmt::format("unknown engine '{}' (known engines: {})", name, KnownNames()));
  }
  return e->open(options);
}

}  // namespace racelab
