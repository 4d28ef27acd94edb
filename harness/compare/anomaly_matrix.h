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
#include "harness/model/anomaly_matrix.h"
#include "harness/model/summary.h"

namespace racelab::compare {

using racelab::AnomalyMatrix;  // harness/model/anomaly_matrix.h
using racelab::MatrixCell;

MatrixCell CellOf(const ResultView& r);
// The matrix of `report`'s results; of those of `engine` only when it is not empty (no row then
// when the report holds none of that engine).
AnomalyMatrix BuildMatrix(const ReportView& report, const std::string& engine = "");

// Sets report->anomaly_matrix when the report has anomaly-* results (the HTML page then shows the
// matrix as a section); leaves it empty otherwise, or when the report cannot be viewed.
void AttachAnomalyMatrix(RunReport* report);

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
