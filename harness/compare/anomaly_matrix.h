// `racelab matrix REPORT.json`: the isolation anomaly matrix — anomaly × engine × level → what was
// observed — from a report of the `anomalies` catalogue group (`racelab run --tag anomalies
// --format json`). Every cell is derived from the observed counts of that result, never from a
// table written down in advance (docs/compare.md "The anomaly matrix"):
//   occurs                    some trial had a winner: a session saw the anomaly ("occurs 3/20"
//   when not
//                             every trial did);
//   prevented by error (C)    no trial saw it, and error C occurred at least once per trial: the
//                             server aborted a statement or transaction of the interleaving (C =
//                             every such code: results[].errors when the report has it — the
//                             engine's code where the SQLSTATE is generic, 1205, SQLITE_BUSY —,
//                             else the SQLSTATE);
//   prevented                 no trial saw it (codes seen in fewer trials are listed in the cell);
//   error                     the result's verdict was error (racelab or the server failed).
// A result whose expectations failed is marked "(expectation failed)": what the server did differs
// from what the scenario states.
// Outputs: console, Markdown (DIR/racelab-matrix.md), HTML (DIR/racelab-matrix.html,
// self-contained). Thread-safety: pure functions, main thread for the command.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "harness/compare/report_view.h"

namespace racelab::compare {

struct MatrixCell {
  std::string text;  // "occurs", "prevented", "prevented by error (40001)", …
  bool occurs = false;
  bool by_error = false;
  bool expectation_failed = false;
};

struct AnomalyMatrix {
  std::vector<std::string> engines;  // of the results shown, first seen first
  std::vector<std::string> columns;  // per engine, levels weakest first: "read committed", …
                                     // (engine prefixed when several engines)
  struct Row {
    std::string scenario;
    std::vector<MatrixCell> cells;  // one per column; empty text: not run
  };
  std::vector<Row> rows;  // the anomalies in the literature's order (G0 … G2), then other anomaly-*
                          // scenarios (a user's own) in report order
  std::vector<std::string> left_out;  // scenarios not named anomaly-*, report order: their winners
                                      // are not sessions that saw an anomaly, so they get no row
};

MatrixCell CellOf(const ResultView& r);
// The matrix of `report`'s results; of those of `engine` only when it is not empty (no row then
// when the report holds none of that engine).
AnomalyMatrix BuildMatrix(const ReportView& report, const std::string& engine = "");

void WriteMatrixConsole(const AnomalyMatrix& m, std::ostream& out);
void WriteMatrixMarkdown(const AnomalyMatrix& m, const std::string& source, std::ostream& out);
void WriteMatrixHtml(const AnomalyMatrix& m, const std::string& source, std::ostream& out);

struct MatrixArgs {
  std::string report;
  std::string engine;  // --engine: only this engine's results (postgresql, mariadb, sqlite)
  std::string formats = "console";
  std::string out = ".";
  const StopFlag* stop = nullptr;  // SIGINT/SIGTERM end reading the report (exit 130/143)
};
CLI::App* AddMatrixSubcommand(CLI::App& app, MatrixArgs* args);
// 0 written; 2 usage (unreadable/invalid report, no result — of --engine when given —, bad
// --format, cannot write).
int MatrixCommand(const MatrixArgs& args);

}  // namespace racelab::compare
