// A text table laid out for a terminal of a given width, as pg_activity and htop do: when the table
// is wider than the terminal, low-priority columns are dropped first, then the widest shrinkable
// cells are cut with "…", so no line is wider than the terminal and the terminal never wraps a row.
// Width 0 (a file, a pipe) lays the whole table out unchanged, so machine readers and golden files
// see every column.
//
// Internal to reports/ (the console reporter's two tables). Cells are already escaped, one line
// each. Thread-safety: pure function.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace racelab::internal {

struct TableColumn {
  std::string header;
  bool right_aligned = false;
  int drop_rank = 0;  // 0: never dropped; otherwise dropped in rank order (1 first) when too wide
  size_t min_width = 0;  // > 0: may be cut down to this many columns (its header too); 0: never cut
  // Whether the cells of this column are verdict names, coloured when the style allows (the padding
  // is counted without the colour sequences).
  bool verdict = false;
};

struct LaidOutTable {
  std::vector<std::string> lines;    // header first; no trailing spaces
  std::vector<std::string> dropped;  // headers of the columns left out, in table order
  bool cut = false;                  // some cell was cut with "…"
};

// `rows` (each as many cells as `columns`) under the headers, two spaces between columns, fitted to
// `width` columns (0: unlimited). `color`: verdict columns coloured
// (harness/model/terminal_layout.h).
LaidOutTable LayOutTable(const std::vector<TableColumn>& columns,
                         const std::vector<std::vector<std::string>>& rows, size_t width,
                         bool color = false);

}  // namespace racelab::internal
