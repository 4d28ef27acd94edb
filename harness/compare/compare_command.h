// `racelab compare BASE.json NEW.json` and `racelab run --baseline FILE`: the CLI side of
// compare.h.
//
// Exit codes: 0 no regression · 1 a regression (each is named on stdout and in the files) · 2
// usage: an unreadable file, not a regular file, a file over 64 MiB, invalid JSON, a report field
// of the wrong type or a count out of its range (the message names the file and the place;
// report_file.h, report_view.h), a count an exact test cannot take, or a bad option · 130/143
// SIGINT/SIGTERM while reading. Outputs (--format, comma list): console (stdout), md
// (DIR/racelab-compare.md), junit (DIR/racelab-compare.junit.xml), DIR from --out.
// Thread-safety: call from the main thread only.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "harness/compare/report_view.h"
#include "harness/model/stop_flag.h"
#include "harness/model/summary.h"

namespace racelab::compare {

struct CompareArgs {
  std::string base, now;  // report paths (compare only)
  std::string formats = "console";
  std::string out = ".";
  double alpha = 0.01;
  std::string timing = "warn";     // warn | fail
  bool fail_on_missing = false;    // a BASE result missing from NEW is a regression
  const StopFlag* stop = nullptr;  // SIGINT/SIGTERM end reading the reports (exit 130/143)
};

// Registers `racelab compare` on `app`; the parsed values land in `args` (which must outlive
// parsing).
CLI::App* AddCompareSubcommand(CLI::App& app, CompareArgs* args);

// Registers --alpha and --timing on `run` (used with --baseline), into `args`.
void AddBaselineOptions(CLI::App* run, CompareArgs* args);

int CompareCommand(const CompareArgs& args);

// For `run --baseline`: `report` (the run just made) as a ReportView named `name`.
Result<ReportView> ViewOfRun(const RunReport& report, const std::string& name);

// Compares and writes the outputs named in args.formats ("console", "md", "junit"; others are
// ignored: `run` passes its own --format list); returns 0 (no regression), 1 (regression) or 2
// (cannot write).
int WriteComparison(const ReportView& base, const ReportView& now, const CompareArgs& args);

}  // namespace racelab::compare
