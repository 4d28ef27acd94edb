// Catalogue: finds scenario files by name, file or folder, and filters by tag. Never connects.
// Thread-safety: pure functions (reads files).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "harness/model/scenario.h"
#include "harness/model/status.h"

namespace racelab {

// Default scenario folder: $RACELAB_SCENARIOS if set, else the source tree's scenarios/ (compiled in),
// else ./scenarios.
std::string DefaultScenarioDir();

// Resolves each selector: an existing file (loaded), an existing folder (every *.yaml/*.yml in it,
// sorted by file name), or a scenario name looked up in `catalogue_dir`. No selectors: the whole
// catalogue. Duplicate names are an error. Errors are kUsage and name the selector or file.
// `stop_requested` (optional) is asked before each file is read; once it returns true loading ends
// with a kUsage "interrupted" error (the caller, which knows the signal, decides the exit code).
// Each file is bounded (harness/loader/limits.h), so a stop is noticed within one file's load.
Result<std::vector<Scenario>> LoadScenarios(const std::vector<std::string>& selectors,
                                            const std::string& catalogue_dir,
                                            const std::function<bool()>& stop_requested = {});

// Keeps scenarios having at least one of `tags` (empty: keep all).
std::vector<Scenario> FilterByTags(std::vector<Scenario> scenarios, const std::vector<std::string>& tags);

}  // namespace racelab
