// Report output of `racelab run`: choosing the reporters (--format) and writing them, on every exit
// once the formats and --out are known — a finished run, an interrupted one, and one that ended
// early on a scenario-file error (exit 2) or an unreachable server (exit 3), so a CI job always
// finds its JUnit file (docs/report-schema.md "When reports are written"). Thread-safety: pure
// functions over their arguments; writes files and stdout.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/cli/report_folder.h"
#include "harness/model/status.h"
#include "harness/model/summary.h"
#include "harness/model/terminal_layout.h"
#include "reports/reporter.h"

namespace racelab::cli {

// "console,json,…" -> the reporters, in the order given, each once. kUsage on an unknown or no
// name. `console`: the terminal the console reporter writes to (its width and colour;
// harness/cli/terminal.h).
Result<std::vector<std::unique_ptr<Reporter>>> MakeReporters(const std::string& formats,
                                                             const TerminalStyle& console = {});

// Whether any of `reporters` writes a file (so --out must be a writable folder).
bool AnyFileReporter(const std::vector<std::unique_ptr<Reporter>>& reporters);

// Writes every file reporter into `folder` (after its MakeRoom: an earlier run's reports are moved
// aside or replaced, and stderr says so; report_folder.h) and, unless `files_only`, the console
// reporter to stdout. `folder` may be null only when no reporter writes a file. A file that cannot
// be written is named on stderr; returns false if any could not be (or room could not be made: then
// no file is written).
bool WriteReports(const RunReport& report, const std::vector<std::unique_ptr<Reporter>>& reporters,
                  ReportFolder* folder, bool files_only);

}  // namespace racelab::cli
