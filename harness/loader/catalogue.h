// Catalogue: finds scenario files by name, file or folder, and filters by tag. Never connects.
// Thread-safety: pure functions (reads files).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "harness/model/scenario.h"
#include "harness/model/status.h"

namespace racelab {

// The catalogue folder, first of (README "Where racelab finds scenarios"):
//   1. the folder given with `--scenarios DIR` (SetScenarioDirFlag);
//   2. $RACELAB_SCENARIOS, when set and not empty;
//   3. the installed catalogue, relative to the running executable (/proc/self/exe), never a path
//      compiled in: <exe dir>/../share/racelab/scenarios (an install: /usr/bin/racelab reads
//      /usr/share/racelab/scenarios), else <exe dir>/share/racelab/scenarios (the build tree, where
//      CMake links it to the source catalogue).
// When no candidate of step 3 exists, the installed path is returned (loading then says it is
// missing).
std::string DefaultScenarioDir();

// Sets step 1 of DefaultScenarioDir (empty: unset). Called once by the CLI before any command runs.
// Thread-safety: not synchronised; call before other threads start.
void SetScenarioDirFlag(std::string dir);

// Step 3 of DefaultScenarioDir for an executable at `exe`: its two candidates, installed layout
// first.
std::vector<std::string> InstalledScenarioDirs(const std::string& exe);

// Resolves each selector: an existing file (loaded), an existing folder (every *.yaml/*.yml in it,
// sorted by file name), or a scenario name looked up in `catalogue_dir`. No selectors: the whole
// catalogue. Duplicate names are an error. Errors are kUsage and name the selector or file. Every
// file is read even when one does not load, and the error lists every file's errors (each
// FILE:LINE:COL: FIELD: …) and every selector that named nothing, then "K of N scenario files did
// not load (each error above); nothing was loaded: …": a selection loads whole or not at all.
// `stop_requested` (optional) is asked before each file is read; once it returns true loading ends
// with a kUsage "interrupted" error (the caller, which knows the signal, decides the exit code).
// Each file is bounded (harness/loader/limits.h), so a stop is noticed within one file's load.
Result<std::vector<Scenario>> LoadScenarios(const std::vector<std::string>& selectors,
                                            const std::string& catalogue_dir,
                                            const std::function<bool()>& stop_requested = {});

// The files directly in a catalogue folder, each list sorted by file name (hidden files skipped).
struct CatalogueFiles {
  std::vector<std::string> scenarios;  // *.yaml, *.yml: what LoadScenarios reads of the folder
  std::vector<std::string> specs;  // *.spec: PostgreSQL isolation spec files, which `racelab run`
                                   // takes by path (harness/loader/spec_parser.h)
};

// Lists `dir` without reading any file. Errors: kUsage "<dir>: cannot list scenario folder: …".
Result<CatalogueFiles> CatalogueFilesIn(const std::string& dir);

// Keeps scenarios having at least one of `tags` (empty: keep all).
std::vector<Scenario> FilterByTags(std::vector<Scenario> scenarios,
                                   const std::vector<std::string>& tags);

}  // namespace racelab
