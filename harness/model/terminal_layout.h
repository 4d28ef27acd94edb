// Laying text out for a terminal of a known width: display width, clipping and folding lines, and
// the colour of a verdict. Text given here is already escaped (harness/model/terminal_text.h);
// nothing here escapes it again.
//
// Width is counted in Unicode code points (every byte that is not a UTF-8 continuation byte), so
// "×", "µ" and "…" count as one column; East Asian wide characters, which take two, are not told
// apart (racelab's own text has none; a scenario name with them may end one column late).
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace racelab {

// What a terminal can show, as the CLI found it (harness/cli/terminal.h) and the console reporter
// and progress lines use it. The default is a file or a pipe: no width limit, no colour.
struct TerminalStyle {
  size_t width = 0;    // columns per line; 0: unlimited (not a terminal, COLUMNS unset)
  bool color = false;  // SGR colour sequences allowed (a terminal, NO_COLOR unset, TERM not "dumb")
};

// Display width of `text` in columns (code points).
size_t DisplayWidth(std::string_view text);

// `text` cut to at most `width` columns, its last column "…" when anything was cut ("" for width
// 0). Never splits a UTF-8 sequence.
std::string ClipToWidth(std::string_view text, size_t width);

// `text` broken into lines of at most `width` columns at spaces; a word longer than a line is cut
// into pieces. The continuation lines of a folded line start with `indent` (counted in the width).
// The text's own '\n' start a new line as it is. A line that fits is unchanged; width 0: the text's
// own lines, unchanged.
std::vector<std::string> FoldLine(std::string_view text, size_t width, std::string_view indent);

// `text` in the colour of the verdict named `verdict` ("pass" green, "fail" bold red, "error"
// yellow, "interrupted" dim) when `color`, else `text` unchanged. An unknown verdict is not
// coloured.
std::string ColorVerdict(std::string_view verdict, std::string_view text, bool color);

}  // namespace racelab
