#include "reports/table_layout.h"

#include <algorithm>
#include <numeric>

#include "harness/model/terminal_layout.h"

namespace racelab::internal {
namespace {

constexpr size_t kGap = 2;  // spaces between columns

size_t TotalWidth(const std::vector<size_t>& widths, const std::vector<bool>& kept) {
  size_t total = 0, n = 0;
  for (size_t c = 0; c < widths.size(); ++c) {
    if (!kept[c]) continue;
    total += widths[c];
    ++n;
  }
  return n == 0 ? 0 : total + kGap * (n - 1);
}

}  // namespace

LaidOutTable LayOutTable(const std::vector<TableColumn>& columns,
                         const std::vector<std::vector<std::string>>& rows, size_t width,
                         bool color) {
  const size_t n = columns.size();
  std::vector<size_t> widths(n, 0);
  for (size_t c = 0; c < n; ++c) {
    widths[c] = DisplayWidth(columns[c].header);
    for (const auto& row : rows) widths[c] = std::max(widths[c], DisplayWidth(row[c]));
  }
  std::vector<bool> kept(n, true);
  LaidOutTable out;
  if (width > 0) {
    // 1. Drop columns, lowest priority (rank 1) first, until the table fits.
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return columns[a].drop_rank < columns[b].drop_rank;
    });
    for (size_t c : order) {
      if (TotalWidth(widths, kept) <= width) break;
      if (columns[c].drop_rank > 0) kept[c] = false;
    }
    // 2. Cut the widest shrinkable column by one, again and again, down to its minimum.
    while (TotalWidth(widths, kept) > width) {
      size_t widest = n;
      for (size_t c = 0; c < n; ++c) {
        if (!kept[c] || columns[c].min_width == 0 || widths[c] <= columns[c].min_width) continue;
        if (widest == n || widths[c] > widths[widest]) widest = c;
      }
      if (widest == n) break;  // 3. nothing left to cut: each line is clipped below
      --widths[widest];
    }
    for (size_t c = 0; c < n; ++c) {
      if (!kept[c]) out.dropped.push_back(columns[c].header);
    }
  }
  auto line_of = [&](const std::vector<std::string>& cells, bool header) {
    std::string plain, colored;
    bool first = true;
    for (size_t c = 0; c < n; ++c) {
      if (!kept[c]) continue;
      std::string cell = cells[c];
      if (DisplayWidth(cell) > widths[c]) {
        cell = ClipToWidth(cell, widths[c]);
        out.cut = true;
      }
      const std::string pad(widths[c] - DisplayWidth(cell), ' ');
      const std::string shown =
          !header && columns[c].verdict ? ColorVerdict(cells[c], cell, color) : cell;
      if (!first) {
        plain += std::string(kGap, ' ');
        colored += std::string(kGap, ' ');
      }
      first = false;
      plain += columns[c].right_aligned ? pad + cell : cell + pad;
      colored += columns[c].right_aligned ? pad + shown : shown + pad;
    }
    while (!plain.empty() && plain.back() == ' ') plain.pop_back();
    while (!colored.empty() && colored.back() == ' ') colored.pop_back();
    if (width > 0 && DisplayWidth(plain) > width) {
      out.cut = true;  // narrower than the columns that are never cut: clipped, without colour
      return ClipToWidth(plain, width);
    }
    return colored;
  };
  std::vector<std::string> header(n);
  for (size_t c = 0; c < n; ++c) header[c] = columns[c].header;
  out.lines.push_back(line_of(header, true));
  for (const auto& row : rows) out.lines.push_back(line_of(row, false));
  return out;
}

}  // namespace racelab::internal
