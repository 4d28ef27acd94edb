// The isolation anomaly matrix as HTML (harness/model/anomaly_matrix.h): a section of racelab.html
// when the run has anomaly-* results (RunReport::anomaly_matrix), and the table of `racelab
// matrix`'s own page (harness/compare/anomaly_matrix.cc). Cells are coloured by what was observed
// (MatrixCellClass: occurs, prevented by error, prevented, error). Thread-safety: as XmlWriter.
#pragma once

#include <string_view>

#include "harness/model/anomaly_matrix.h"
#include "reports/xml_writer.h"

namespace racelab::internal {

// The table: one row per anomaly scenario, one column per (engine) level.
void WriteAnomalyMatrixTable(const AnomalyMatrix& m, XmlWriter& xml);

// What the cells mean, in one sentence (the legend under the table).
std::string_view AnomalyMatrixLegend();

// The CSS of the table's cells.
std::string_view AnomalyMatrixCss();

}  // namespace racelab::internal
