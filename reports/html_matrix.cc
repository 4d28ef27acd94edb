#include "reports/html_matrix.h"

#include "reports/html_util.h"
#include "reports/svg_timeline.h"

namespace racelab::internal {
namespace {

constexpr std::string_view kCss = R"css(
table.matrix td.occurs{background:#f8d0d0;font-weight:600}
table.matrix td.error{background:#fde3c0}
table.matrix td.prevented{background:#d5f0d5}
table.matrix td.by-error{background:#e4ecfa}
table.matrix td.not-run{color:#868e96}
)css";
static_assert(NeedsNoEscaping(kCss), "CSS inside <style> is not unescaped by the browser");

}  // namespace

std::string_view AnomalyMatrixCss() { return kCss; }

std::string_view AnomalyMatrixLegend() {
  return "occurs = a session saw the anomaly (in how many trials, when not in every one); "
         "prevented by error (SQLSTATE) = no trial saw it and the server aborted a transaction "
         "of the interleaving in every trial; prevented = no trial saw it; not run = the "
         "scenario did not run at that level. Derived from this run's counts, not from a table "
         "written in advance.";
}

void WriteAnomalyMatrixTable(const AnomalyMatrix& m, XmlWriter& xml) {
  xml.StartElement("table").Attribute("class", "matrix");
  xml.StartElement("tr");
  Leaf(xml, "th", "scenario");
  for (const std::string& c : m.columns) Leaf(xml, "th", c);
  xml.EndElement();
  for (const AnomalyMatrix::Row& row : m.rows) {
    xml.StartElement("tr");
    Leaf(xml, "td", row.scenario);
    for (const MatrixCell& cell : row.cells) {
      Leaf(xml, "td", MatrixCellText(cell), MatrixCellClass(cell));
    }
    xml.EndElement();
  }
  xml.EndElement();
}

}  // namespace racelab::internal
