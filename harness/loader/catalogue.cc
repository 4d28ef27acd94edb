#include "harness/loader/catalogue.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <utility>

#include "harness/loader/scenario_loader.h"
#include "harness/loader/yaml_reader.h"

namespace racelab {
namespace {

namespace fs = std::filesystem;

bool IsScenarioFile(const fs::path& path) {
  std::string ext = path.extension().string();
  std::string name = path.filename().string();
  return (ext == ".yaml" || ext == ".yml") && !name.empty() && name[0] != '.';
}

bool IsSpecFile(const fs::path& path) {
  std::string name = path.filename().string();
  return path.extension() == ".spec" && !name.empty() && name[0] != '.';
}

// Every regular file directly in `dir` that `wanted` accepts, sorted by file name.
Result<std::vector<std::string>> FilesIn(const std::string& dir, bool (*wanted)(const fs::path&)) {
  std::error_code ec;
  std::vector<fs::path> found;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (it->is_regular_file(type_ec) && wanted(it->path())) found.push_back(it->path());
  }
  if (ec)
    return Status::Usage(fmt::format("{}: cannot list scenario folder: {}", dir, ec.message()));
  std::sort(found.begin(), found.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });
  std::vector<std::string> files;
  for (const fs::path& path : found) files.push_back(path.string());
  return files;
}

Result<std::vector<std::string>> ScenarioFilesIn(const std::string& dir) {
  return FilesIn(dir, &IsScenarioFile);
}

// Scenarios gathered so far; the same file selected twice is kept once, two files with one name
// fail. A file that does not load is recorded and loading goes on, so that every such file's errors
// are reported at once (as a compiler reports every file's), not only the first.
class Collection {
 public:
  explicit Collection(const std::function<bool()>& stop_requested) : stop_(stop_requested) {}

  bool stopped() const { return stop_ && stop_(); }
  Status Add(Scenario scenario) {
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(scenario.loc.file, ec);
    if (ec) canonical = scenario.loc.file;
    for (size_t i = 0; i < scenarios_.size(); ++i) {
      if (paths_[i] == canonical) return Status::Ok();
      if (scenarios_[i].name == scenario.name) {
        return Status::Usage(fmt::format("duplicate scenario name '{}': {} and {}", scenario.name,
                                         scenarios_[i].loc.file, scenario.loc.file));
      }
    }
    scenarios_.push_back(std::move(scenario));
    paths_.push_back(std::move(canonical));
    return Status::Ok();
  }
  // Loads `path`; a file that does not load is recorded (Failed()) and OK is returned: only a stop
  // request ends loading early.
  Status AddFile(const std::string& path) {
    if (stopped()) return Interrupted();
    ++files_;
    Result<Scenario> scenario = LoadScenarioFile(path);
    Status status = scenario.ok() ? Add(std::move(scenario).value()) : scenario.status();
    if (status.code() == StatusCode::kUsage) {
      errors_.push_back(status.message());
      return Status::Ok();
    }
    return status;
  }
  Status AddFolder(const std::string& dir) {
    Result<std::vector<std::string>> files = ScenarioFilesIn(dir);
    if (!files.ok()) return files.status();
    if (files->empty()) {
      return Status::Usage(fmt::format("{}: no scenario file (*.yaml, *.yml) in this folder", dir));
    }
    for (const std::string& file : *files) {
      if (Status status = AddFile(file); !status.ok()) return status;
    }
    return Status::Ok();
  }
  // Every file that did not load, each with its own errors (file:line:col: field: …), in load
  // order, then how many of the files read did not load — or the one error alone when one file was
  // read. A selector that names nothing (an unknown name, a missing path, a folder without scenario
  // files).
  void SelectorFailed(const std::string& message) { selector_errors_.push_back(message); }
  // Every file that did not load, each with its own errors (file:line:col: field: …), in load
  // order, then every selector that named nothing, then a count — or the one error alone when it is
  // all.
  Status Failed() const {
    const size_t problems = errors_.size() + selector_errors_.size();
    if (problems == 0) return Status::Ok();
    if (problems == 1 && files_ <= 1)
      return Status::Usage(errors_.empty() ? selector_errors_[0] : errors_[0]);
    std::vector<std::string> lines = errors_;
    lines.insert(lines.end(), selector_errors_.begin(), selector_errors_.end());
    std::string count = errors_.empty() ? ""
                                        : fmt::format("{} of {} scenario files did not load",
                                                      errors_.size(), files_);
    if (!selector_errors_.empty()) {
      count += fmt::format("{}{} selection{} found nothing", count.empty() ? "" : ", ",
                           selector_errors_.size(), selector_errors_.size() == 1 ? "" : "s");
    }
    return Status::Usage(
        fmt::format("{}\n{} (each error above); nothing was loaded: fix them, or select the "
                    "files that load",
                    fmt::join(lines, "\n"), count));
  }
  std::vector<Scenario> Take() { return std::move(scenarios_); }
  static Status Interrupted() { return Status::Usage("interrupted while loading scenarios"); }

 private:
  const std::function<bool()>& stop_;
  std::vector<Scenario> scenarios_;
  std::vector<fs::path> paths_;
  std::vector<std::string>
      errors_;  // one entry per file that did not load (its message: one line per error)
  std::vector<std::string> selector_errors_;
  int files_ = 0;  // files read
};

// Finds the scenario called `name` in `dir`: NAME.yaml / NAME.yml first, then every file.
Result<Scenario> FindByName(const std::string& name, const std::string& dir,
                            const Collection& collection) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Status::Usage(fmt::format(
        "'{}' is not a file, a folder, or a scenario name: the "
        "scenario folder '{}' does not exist (give --scenarios DIR or set RACELAB_SCENARIOS)",
        name, dir));
  }
  for (const char* ext : {".yaml", ".yml"}) {
    fs::path direct = fs::path(dir) / (name + ext);
    if (!fs::is_regular_file(direct, ec)) continue;
    Result<Scenario> scenario = LoadScenarioFile(direct.string());
    if (!scenario.ok() || scenario->name == name) return scenario;
  }
  Result<std::vector<std::string>> files = ScenarioFilesIn(dir);
  if (!files.ok()) return files.status();
  std::vector<std::string> names;
  std::vector<std::string> broken;
  for (const std::string& file : *files) {
    if (collection.stopped()) return Collection::Interrupted();
    Result<Scenario> scenario = LoadScenarioFile(file);
    if (!scenario.ok()) {
      broken.push_back(fs::path(file).filename().string());
    } else if (scenario->name == name) {
      return scenario;
    } else {
      names.push_back(scenario->name);
    }
  }
  std::string hint = internal::Suggest(name, names);
  std::string message = fmt::format("unknown scenario '{}' ({}scenarios in {}: {})", name,
                                    hint.empty() ? "" : fmt::format("did you mean '{}'? ", hint),
                                    dir, internal::JoinNames(names));
  if (!broken.empty()) {
    message += fmt::format("; these files did not load: {}", internal::JoinNames(broken));
  }
  return Status::Usage(message);
}

std::string& ScenarioDirFlag() {
  static std::string flag;
  return flag;
}

}  // namespace

void SetScenarioDirFlag(std::string dir) { ScenarioDirFlag() = std::move(dir); }

std::vector<std::string> InstalledScenarioDirs(const std::string& exe) {
  const fs::path dir = fs::path(exe).parent_path();
  return {(dir.parent_path() / "share" / "racelab" / "scenarios").string(),
          (dir / "share" / "racelab" / "scenarios").string()};
}

std::string DefaultScenarioDir() {
  if (!ScenarioDirFlag().empty()) return ScenarioDirFlag();
  if (const char* env = std::getenv("RACELAB_SCENARIOS"); env != nullptr && *env != '\0') {
    return env;
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  const std::vector<std::string> candidates =
      InstalledScenarioDirs(ec ? "/usr/bin/racelab" : exe.string());
  for (const std::string& candidate : candidates) {
    if (fs::is_directory(candidate, ec)) return fs::path(candidate).lexically_normal().string();
  }
  return fs::path(candidates.front()).lexically_normal().string();
}

Result<std::vector<Scenario>> LoadScenarios(const std::vector<std::string>& selectors,
                                            const std::string& catalogue_dir,
                                            const std::function<bool()>& stop_requested) {
  Collection collection(stop_requested);
  if (selectors.empty()) {
    std::error_code ec;
    if (!fs::is_directory(catalogue_dir, ec)) {
      return Status::Usage(
          fmt::format("scenario folder '{}' does not exist (give --scenarios DIR, set "
                      "RACELAB_SCENARIOS, or name scenario files or folders)",
                      catalogue_dir));
    }
    if (Status status = collection.AddFolder(catalogue_dir); !status.ok()) return status;
    if (Status failed = collection.Failed(); !failed.ok()) return failed;
    return collection.Take();
  }
  for (const std::string& selector : selectors) {
    std::error_code ec;
    Status status;
    if (fs::is_regular_file(selector, ec)) {
      status = collection.AddFile(selector);
    } else if (fs::is_directory(selector, ec)) {
      status = collection.AddFolder(selector);
    } else if (selector.find('/') != std::string::npos || IsScenarioFile(selector)) {
      status = Status::Usage(fmt::format("{}: no such scenario file or folder", selector));
    } else {
      Result<Scenario> scenario = FindByName(selector, catalogue_dir, collection);
      status = scenario.ok() ? collection.Add(std::move(scenario).value()) : scenario.status();
    }
    if (!status.ok()) {
      if (collection.stopped()) return Collection::Interrupted();
      if (status.code() != StatusCode::kUsage) return status;
      collection.SelectorFailed(status.message());
    }
  }
  if (Status failed = collection.Failed(); !failed.ok()) return failed;
  return collection.Take();
}

std::vector<Scenario> FilterByTags(std::vector<Scenario> scenarios,
                                   const std::vector<std::string>& tags) {
  if (tags.empty()) return scenarios;
  std::vector<Scenario> kept;
  for (Scenario& scenario : scenarios) {
    bool match = std::any_of(tags.begin(), tags.end(), [&](const std::string& tag) {
      return std::find(scenario.tags.begin(), scenario.tags.end(), tag) != scenario.tags.end();
    });
    if (match) kept.push_back(std::move(scenario));
  }
  return kept;
}

Result<CatalogueFiles> CatalogueFilesIn(const std::string& dir) {
  Result<std::vector<std::string>> scenarios = ScenarioFilesIn(dir);
  if (!scenarios.ok()) return scenarios.status();
  Result<std::vector<std::string>> specs = FilesIn(dir, &IsSpecFile);
  if (!specs.ok()) return specs.status();
  return CatalogueFiles{std::move(scenarios).value(), std::move(specs).value()};
}

}  // namespace racelab
