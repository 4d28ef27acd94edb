#include "harness/cli/check_command.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "harness/check/check_output.h"
#include "harness/check/checker.h"
#include "harness/check/history_file.h"
#include "harness/cli/app.h"
#include "harness/model/terminal_text.h"

namespace racelab::cli {

CLI::App* AddCheckSubcommand(CLI::App& app, CheckArgs* args) {
  auto* c = app.add_subcommand(
      "check",
      "Check a recorded history (racelab JSON lines or Elle EDN; list-append or rw-register) "
      "for isolation anomalies: G0, G1a/b/c, G-single, G2-item, lost update, internal, each "
      "cycle explained (exit 0 none, 1 found, 2 bad input; docs/check.md)");
  c->add_option("file", args->file, "The history file (.edn: Elle's EDN; .json/.jsonl: racelab's)")
      ->required();
  c->add_option("--format", args->format, "Output: console or json")
      ->check(CLI::IsMember({"console", "json"}))
      ->capture_default_str();
  c->add_option("--input", args->input,
                "The file's format: auto (by extension, else by its first characters), edn, json")
      ->check(CLI::IsMember({"auto", "edn", "json"}))
      ->capture_default_str();
  c->add_option("--export", args->export_format,
                "Write the history as elle (EDN, for Elle's checker) or json (racelab's) to "
                "--output instead of checking it")
      ->check(CLI::IsMember({"elle", "json"}));
  c->add_option("--output", args->output, "File for --export (- is stdout)")->capture_default_str();
  c->add_flag("--process-order", args->process_order,
              "Each process's (session's) transactions are ordered: cycles through that order "
              "are named G0-process, G1c-process, G-single-process, G2-item-process");
  c->add_option("--max-examples", args->max_examples, "Anomalies shown per name (all are counted)")
      ->check(CLI::Range(size_t{1}, size_t{1000000}))
      ->capture_default_str();
  return c;
}

int CheckCommand(const CheckArgs& args) {
  using check::HistoryFormat;
  const HistoryFormat format = args.input == "edn"    ? HistoryFormat::kElle
                               : args.input == "json" ? HistoryFormat::kJson
                                                      : HistoryFormat::kAuto;
  auto history = check::ReadHistoryFile(args.file, format, args.stop);
  if (args.stop != nullptr && args.stop->stop_requested()) return InterruptedExitCode(args.stop);
  if (!history.ok()) return UsageError(history.status().message());
  if (!args.export_format.empty()) {
    std::ofstream file;
    std::ostream* out = &std::cout;
    if (args.output != "-") {
      std::error_code ec;
      if (std::filesystem::equivalent(args.file, args.output, ec) && !ec) {
        return UsageError("--output: " + args.output +
                          " is the history being read; name another file (nothing was written)");
      }
      file.open(args.output, std::ios::binary | std::ios::trunc);
      if (!file) return UsageError("--output: cannot write " + args.output);
      out = &file;
    }
    if (args.export_format == "elle")
      check::WriteElleHistory(*history, *out);
    else
      check::WriteJsonHistory(*history, *out);
    out->flush();
    if (!*out) return UsageError("--output: cannot write " + args.output);
    return 0;
  }
  auto result = check::Check(
      *history,
      {.process_order = args.process_order, .max_examples = args.max_examples, .stop = args.stop});
  if (args.stop != nullptr && args.stop->stop_requested()) return InterruptedExitCode(args.stop);
  if (!result.ok()) return UsageError(args.file + ": " + result.status().message());
  std::ostringstream text;
  if (args.format == "json")
    check::WriteCheckJson(args.file, *history, *result, text);
  else
    check::WriteCheckConsole(args.file, *history, *result, text);
  std::cout << (args.format == "json" ? text.str()
                                      : SanitizeForTerminal(text.str(), /*keep_newlines=*/true));
  return result->valid() ? 0 : 1;
}

}  // namespace racelab::cli
