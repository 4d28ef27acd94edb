// The isolation anomaly matrix as plain data: anomaly scenario × (engine) level → what was
// observed. Filled by harness/compare (BuildMatrix, from a report's results: `racelab matrix`, and
// for the HTML page of a run or merge that has anomaly-* results, RunReport::anomaly_matrix);
// written by `racelab matrix` (console, Markdown, its own HTML page) and as a section of
// racelab.html (reports/html_matrix.h). Every cell is derived from observed counts, never from a
// table written down in advance (docs/compare.md "The anomaly matrix"). Thread-safety: plain
// values.
#pragma once

#include <string>
#include <vector>

namespace racelab {

struct MatrixCell {
  std::string text;  // "occurs", "occurs 3/20", "prevented", "prevented by error (40001)", "error";
                     // empty: not run
  bool occurs = false;              // some trial had a winner: a session saw the anomaly
  bool by_error = false;            // prevented, and an error occurred at least once per trial
  bool expectation_failed = false;  // the result's expectations failed
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

// A cell as written: "not run" for an empty one, " (expectation failed)" added when it failed.
inline std::string MatrixCellText(const MatrixCell& c) {
  if (c.text.empty()) return "not run";
  return c.expectation_failed ? c.text + " (expectation failed)" : c.text;
}

// The cell's CSS class on an HTML page: "not-run", "error", "occurs", "by-error" or "prevented".
inline const char* MatrixCellClass(const MatrixCell& c) {
  if (c.text.empty()) return "not-run";
  return c.text == "error" ? "error" : c.occurs ? "occurs" : c.by_error ? "by-error" : "prevented";
}

}  // namespace racelab
