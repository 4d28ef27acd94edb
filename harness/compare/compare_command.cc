#include "harness/compare/compare_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/compare/compare.h"
#include "harness/compare/compare_output.h"
#include "harness/compare/report_file.h"
#include "harness/compare/stats.h"
#include "harness/model/terminal_text.h"
#include "reports/reporter.h"

namespace racelab::compare {
namespace {

int Usage(const std::string& message) {
  std::cerr << "racelab: " << SanitizeForTerminal(message, true) << "\n";
  return 2;
}

std::vector<std::string> SplitFormats(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    if (!part.empty() && std::find(out.begin(), out.end(), part) == out.end()) out.push_back(part);
  }
  return out;
}

Result<CompareOptions> Options(const CompareArgs& args) {
  CompareOptions o;
  if (!(args.alpha > 0 && args.alpha < 1))
    return Status::Usage(fmt::format("--alpha {}: expected a number between 0 and 1", args.alpha));
  o.alpha = args.alpha;
  o.fail_on_missing = args.fail_on_missing;
  if (args.timing == "warn")
    o.timing = TimingPolicy::kWarn;
  else if (args.timing == "fail")
    o.timing = TimingPolicy::kFail;
  else
    return Status::Usage(fmt::format("--timing {}: expected warn or fail", args.timing));
  return o;
}

}  // namespace

CLI::App* AddCompareSubcommand(CLI::App& app, CompareArgs* args) {
  auto* c = app.add_subcommand("compare",
                               "Compare two racelab.json reports: per scenario × engine × level, "
                               "what changed, judged with exact tests "
                               "(exit 0 no regression, 1 regression, 2 usage; docs/compare.md)");
  c->add_option("base", args->base, "The baseline report (racelab.json)")->required();
  c->add_option("new", args->now, "The report to judge (racelab.json)")->required();
  c->add_option("--format", args->formats, "Outputs: console,md,junit")->capture_default_str();
  c->add_option("--out", args->out, "Folder for racelab-compare.md and racelab-compare.junit.xml")
      ->capture_default_str();
  AddBaselineOptions(c, args);
  return c;
}

void AddBaselineOptions(CLI::App* cmd, CompareArgs* args) {
  cmd->add_option("--alpha", args->alpha,
                  "Family-wise false-alarm rate of the comparison's count tests (Holm-corrected)")
      ->capture_default_str();
  cmd->add_option(
         "--timing", args->timing,
         "warn: a blocked-time shift beyond both runs' noise is reported; fail: it is a regression")
      ->capture_default_str();
  cmd->add_flag("--fail-on-missing", args->fail_on_missing,
                "A result of the baseline that the new run lacks (not run, a lost shard) is a "
                "regression (default: "
                "a note and a warning)");
}

Result<ReportView> ViewOfRun(const RunReport& report, const std::string& name) {
  auto json = MakeReporter("json");
  if (!json.ok()) return json.status();
  std::stringstream text;
  json.value()->Write(report, text);
  return ReportViewFromJson(nlohmann::json::parse(text.str()), name);
}

int WriteComparison(const ReportView& base, const ReportView& now, const CompareArgs& args) {
  auto options = Options(args);
  if (!options.ok()) return Usage(options.status().message());
  Comparison c;
  try {
    c = Compare(base, now, *options);
  } catch (const StatisticError& e) {  // counts past what an exact test can take: the input's fault
    return Usage(fmt::format("{} vs {}: {}", base.name, now.name, e.what()));
  }
  int status = c.regression() ? 1 : 0;
  for (const std::string& format : SplitFormats(args.formats)) {
    if (format == "console") {
      WriteConsole(c, std::cout);
      continue;
    }
    const char* file = format == "md"      ? "racelab-compare.md"
                       : format == "junit" ? "racelab-compare.junit.xml"
                                           : nullptr;
    if (file == nullptr) continue;
    std::error_code ec;
    std::filesystem::create_directories(args.out, ec);
    const std::filesystem::path path = std::filesystem::path(args.out) / file;
    std::ofstream f(path);
    if (format == "md")
      WriteMarkdown(c, f);
    else
      WriteJunit(c, f);
    if (!f) {
      std::cerr << "racelab: cannot write " << SanitizeForTerminal(path.string()) << "\n";
      status = 2;
    }
  }
  return status;
}

int CompareCommand(const CompareArgs& args) {
  for (const std::string& format : SplitFormats(args.formats)) {
    if (format != "console" && format != "md" && format != "junit") {
      return Usage(fmt::format(
          "--format: unknown format '{}' for compare (valid: console, md, junit)", format));
    }
  }
  if (auto options = Options(args); !options.ok()) return Usage(options.status().message());
  auto base = ReadReportView(args.base, args.stop);
  if (int code = ExitCodeIfInterrupted(args.stop); code != 0) return code;
  if (!base.ok()) return Usage(base.status().message());
  auto now = ReadReportView(args.now, args.stop);
  if (int code = ExitCodeIfInterrupted(args.stop); code != 0) return code;
  if (!now.ok()) return Usage(now.status().message());
  return WriteComparison(*base, *now, args);
}

}  // namespace racelab::compare
