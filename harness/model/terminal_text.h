// Text for a terminal: the one function every console line goes through (console reporter, list,
// explain, run progress, error messages), so that data — a scenario title, a captured value, a
// server message — cannot move the cursor, clear the screen or retitle the window.
// Thread-safety: pure function.
#pragma once

#include <string>
#include <string_view>

namespace racelab {

// `text` with every control character shown escaped: C0 controls (ESC → "\x1b", BEL → "\x07",
// CR → "\r", …), DEL ("\x7f"), C1 controls (U+0080–U+009F, e.g. the 8-bit CSI, "\u009b") and bytes
// that are not valid UTF-8 ("\xff"). Tab is kept; '\n' is kept when `keep_newlines`, else shown as
// "\n". Valid UTF-8 ("×", "µ", "—") passes unchanged. Source of the control ranges: ECMA-48 §5.
std::string SanitizeForTerminal(std::string_view text, bool keep_newlines = true);

}  // namespace racelab
