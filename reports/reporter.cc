// The reporter registry: names in a fixed order, each bound to its factory.

#include "reports/reporter.h"

#include <fmt/format.h>

#include "reports/reporters.h"

namespace racelab {
namespace {

struct RegistryEntry {
  const char* name;
  std::unique_ptr<Reporter> (*make)();
};

// Registry order is the order ReporterNames() returns and usage messages list.
constexpr RegistryEntry kRegistry[] = {
    {"console", [] { return internal::MakeConsoleReporter(); }},
    {"json", &internal::MakeJsonReporter},
    {"md", &internal::MakeMarkdownReporter},
    {"md-summary", &internal::MakeMdSummaryReporter},
    {"junit", &internal::MakeJunitReporter},
    {"html", &internal::MakeHtmlReporter},
};

}  // namespace

std::vector<std::string> ReporterNames() {
  std::vector<std::string> names;
  for (const RegistryEntry& entry : kRegistry) names.emplace_back(entry.name);
  return names;
}

Result<std::unique_ptr<Reporter>> MakeReporter(std::string_view name) {
  for (const RegistryEntry& entry : kRegistry) {
    if (name == entry.name) return entry.make();
  }
  return Status::Usage(fmt::format("unknown report format \"{}\"; valid formats: {}", name,
                                   fmt::join(ReporterNames(), ", ")));
}

Result<std::unique_ptr<Reporter>> MakeReporter(std::string_view name,
                                               const TerminalStyle& terminal) {
  if (name == "console") return internal::MakeConsoleReporter(terminal);
  return MakeReporter(name);
}

}  // namespace racelab
