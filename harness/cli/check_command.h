// `racelab check FILE`: the checker (harness/check/checker.h) on a recorded history — racelab's
// JSON lines (docs/history-format.md) or Elle's EDN — and `--export elle|json` to write the
// history in the other format instead (docs/check.md).
//
// Exit codes: 0 no anomaly (or exported) · 1 anomalies found, each named with its cycle · 2 usage,
// or a history that cannot be read (file:line and the field named) or breaks its model (an element
// appended twice) · 130/143 interrupted. Output: console text or --format json on stdout.
// Thread-safety: call from the main thread only.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "harness/model/stop_flag.h"

namespace racelab::cli {

struct CheckArgs {
  std::string file;
  std::string format = "console";  // console | json
  std::string input = "auto";      // auto | edn | json
  std::string export_format;       // "", elle, json
  std::string output = "-";        // --export's file; "-": stdout
  bool process_order = false;
  size_t max_examples = 8;
  const StopFlag* stop = nullptr;  // SIGINT/SIGTERM end the read or the check (exit 130/143)
};

CLI::App* AddCheckSubcommand(CLI::App& app, CheckArgs* args);
int CheckCommand(const CheckArgs& args);

}  // namespace racelab::cli
