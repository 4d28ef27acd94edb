// Reporter: one output format of a finished run (stage 5). Reporters never touch the database.
//
// One implementation per file (console_reporter.cc, json_reporter.cc, …), chosen by name from one
// registry (MakeReporter). Reporters are cumulative: they get the whole RunReport once, at the end.
// Output is deterministic for the same RunReport (no clocks, no PIDs; map/vector order is kept).
// Thread-safety: a Reporter is used from one thread.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "harness/model/status.h"
#include "harness/model/summary.h"
#include "harness/model/terminal_layout.h"

namespace racelab {

class Reporter {
 public:
  virtual ~Reporter() = default;
  // Registry name: "console", "json", "md", "junit", …
  virtual std::string_view name() const = 0;
  // File written under --out ("racelab.json", …); empty for console, which writes to stdout.
  virtual std::string_view file_name() const = 0;
  virtual void Write(const RunReport& report, std::ostream& out) const = 0;
};

// The valid names, in registry order.
std::vector<std::string> ReporterNames();

// nullptr-free: an unknown name is a kUsage error that lists the valid ones.
Result<std::unique_ptr<Reporter>> MakeReporter(std::string_view name);

// The same, the console reporter laid out for `terminal` (its width and colour; the default
// TerminalStyle, as above, is a file: every column, no colour). The other formats ignore it.
Result<std::unique_ptr<Reporter>> MakeReporter(std::string_view name,
                                               const TerminalStyle& terminal);

}  // namespace racelab
