// `racelab compare BASE.json NEW.json` and `racelab run --baseline FILE`: the CLI side of compare.h.
//
// Exit codes: 0 no regression · 1 a regression (each is named on stdout and in the files) · 2 usage:
// an unreadable file, invalid JSON or a report field of the wrong type (the message names the file and
// the place) or a bad option. Outputs (--format, comma list): console (stdout), md
// (DIR/racelab-compare.md), junit (DIR/racelab-compare.junit.xml), DIR from --out.
// Thread-safety: call from the main thread only.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "harness/compare/report_view.h"
#include "harness/model/summary.h"

namespace racelab::compare {

struct CompareArgs {
  std::string base, now;           // report paths (compare only)
  std::string formats = "console";
  std::string out = ".";
  double alpha = 0.01;
  std::string timing = "warn";     // warn | fail
  bool fail_on_missing = false;    // a BASE result missing from NEW is a regression
};

// Registers `racelab compare` on `app`; the parsed values land in `args` (which must outlive parsing).
CLI::App* AddCompareSubcommand(CLI::App& app, CompareArgs* args);

// Registers --alpha and --timing on `run` (used with --baseline), into `args`.
void AddBaselineOptions(CLI::App* run, CompareArgs* args);

int CompareCommand(const CompareArgs& args);

// For `run --baseline`: `report` (the run just made) as a ReportView named `name`.
Result<ReportView> ViewOfRun(const RunReport& report, const std::string& name);

// Compares and writes the outputs named in args.formats ("console", "md", "junit"; others are ignored:
// `run` passes its own --format list); returns 0 (no regression), 1 (regression) or 2 (cannot write).
int WriteComparison(const ReportView& base, const ReportView& now, const CompareArgs& args);

}  // namespace racelab::compare
