#include "harness/cli/run_reports.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "harness/model/terminal_text.h"

namespace racelab::cli {

Result<std::vector<std::unique_ptr<Reporter>>> MakeReporters(const std::string& formats,
                                                             const TerminalStyle& console) {
  std::vector<std::unique_ptr<Reporter>> reporters;
  std::set<std::string> seen;
  for (size_t start = 0; start <= formats.size();) {
    size_t comma = formats.find(',', start);
    std::string name =
        formats.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? formats.size() + 1 : comma + 1;
    if (name.empty() || !seen.insert(name).second) continue;
    if (name == "transcript") {
      return Status::Usage(
          "--format transcript is for an isolationtester spec file (racelab run X.spec), "
          "not for scenarios");
    }
    auto r = MakeReporter(name, console);
    if (!r.ok()) return Status::Usage("--format: " + r.status().message());
    reporters.push_back(std::move(r.value()));
  }
  if (reporters.empty()) {
    return Status::Usage(
        fmt::format("--format: no format given (valid: {})", fmt::join(ReporterNames(), ", ")));
  }
  return reporters;
}

bool AnyFileReporter(const std::vector<std::unique_ptr<Reporter>>& reporters) {
  return std::any_of(reporters.begin(), reporters.end(),
                     [](const auto& r) { return !r->file_name().empty(); });
}

bool WriteReports(const RunReport& report, const std::vector<std::unique_ptr<Reporter>>& reporters,
                  ReportFolder* folder, bool files_only) {
  bool ok = true;
  bool room = folder != nullptr;
  if (folder != nullptr && AnyFileReporter(reporters)) {
    Status made = folder->MakeRoom(std::cerr);
    if (!made.ok()) {
      std::cerr << "racelab: " << SanitizeForTerminal(made.message()) << "\n";
      room = ok = false;
    }
  }
  for (const auto& r : reporters) {
    if (r->file_name().empty()) {
      if (!files_only) r->Write(report, std::cout);
      continue;
    }
    if (!room) continue;  // no room made: nothing of an earlier run is overwritten
    std::filesystem::path p = std::filesystem::path(folder->dir()) / std::string(r->file_name());
    std::ofstream f(p);
    r->Write(report, f);
    f.close();
    if (!f) {
      std::cerr << "racelab: cannot write " << SanitizeForTerminal(p.string()) << "\n";
      ok = false;
    }
  }
  return ok;
}

}  // namespace racelab::cli
