// "md-summary" reporter: racelab-summary.md, a Markdown summary sized for a pull-request comment.
//
// Layout: title, target, run and counts lines; the failures block first (markdown_blocks.h, every
// value clipped to kMaxValueBytes); then the summary table of every result folded in <details>
// ("All N results"); then a pointer to the full reports. Guarantee: the file is at most
// kMaxSummaryBytes (61,440 bytes, under the 65,536 characters GitHub takes in a comment and
// GitLab's note limit): past that it is cut at a line boundary, an open <details> is closed, and a
// note says how many lines were left out and where the rest is. Every value is escaped as in
// racelab.md.

#include <fmt/format.h>

#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "reports/markdown_blocks.h"
#include "reports/reporters.h"

namespace racelab::internal {
namespace {

constexpr size_t kMaxValueBytes = 400;
constexpr size_t kMaxNoteBytes = 400;  // room kept for "</details>" and the truncation note

class MdSummaryReporter : public Reporter {
 public:
  std::string_view name() const override { return "md-summary"; }
  std::string_view file_name() const override { return "racelab-summary.md"; }
  void Write(const RunReport& report, std::ostream& out) const override {
    std::string text = md::Header(report, "racelab summary") +
                       md::Failures(report, kMaxValueBytes) +
                       md::SideBySide(report);  // several engines only
    text += fmt::format("<details><summary>All {} result{}</summary>\n\n", report.results.size(),
                        report.results.size() == 1 ? "" : "s");
    text += md::SummaryTable(report) + "</details>\n\n";
    text += "Full report: racelab.md, racelab.json (every field, docs/report-schema.md).\n";
    out << FitToBudget(text);
  }
};

}  // namespace

std::string FitToBudget(const std::string& text) {
  if (text.size() <= kMaxSummaryBytes) return text;
  // Whole lines only, so no escape, code span or UTF-8 character is cut in half.
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line + "\n");
  std::string kept;
  size_t n = 0;
  bool in_details = false;
  while (n < lines.size() && kept.size() + lines[n].size() <= kMaxSummaryBytes - kMaxNoteBytes) {
    if (lines[n].rfind("<details", 0) == 0) in_details = true;
    if (lines[n].rfind("</details>", 0) == 0) in_details = false;
    kept += lines[n++];
  }
  if (in_details) kept += "\n</details>\n";
  kept += fmt::format(
      "\n_Summary cut at {} KB for a pull-request comment: {} of {} lines left out. The whole "
      "report is in "
      "racelab.md and racelab.json._\n",
      kMaxSummaryBytes / 1024, lines.size() - n, lines.size());
  return kept;
}

std::unique_ptr<Reporter> MakeMdSummaryReporter() { return std::make_unique<MdSummaryReporter>(); }

}  // namespace racelab::internal
