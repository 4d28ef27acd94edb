// Text for a terminal: the one function every console line goes through (console reporter, list,
// explain, run progress, error messages), so that data — a scenario title, a captured value, a
// server message — cannot move the cursor, clear the screen or retitle the window.
// Thread-safety: pure function.
#pragma once

#include <string>
#include <string_view>

namespace racelab {

// `text` with every control character shown escaped: C0 controls (ESC → "\x1b", BEL → "\x07",
// CR → "\r", …), DEL ("\x7f"), C1 controls (U+0080–U+009F, e.g. the 8-bit CSI, "\u009b"), the
// bidirectional and line-breaking format characters of IsBidiOrLineControl (U+202E → "\u202e") and
// bytes that are not valid UTF-8 ("\xff"). Tab is kept. '\n' is shown as "\n", so a value stays on
// its line and cannot forge one; only text racelab itself lays out on several lines (a list of
// errors, the explain page) passes `keep_newlines` true. Valid UTF-8 ("×", "µ", "—") passes
// unchanged. Source of the control ranges: ECMA-48 §5, Unicode UAX #9 §2 (explicit directional
// formatting characters).
std::string SanitizeForTerminal(std::string_view text, bool keep_newlines = false);

// SanitizeForTerminal for text written piece by piece (a spec file's transcript, printed as it
// runs): pieces may end anywhere, even inside a UTF-8 character, so whole lines are escaped as they
// complete, their newlines kept (each line is racelab's), and Finish() escapes what is left. One
// filter per stream; not thread-safe.
class TerminalLineFilter {
 public:
  // The escaped lines that `piece` completes (each with its '\n'); keeps the rest for later.
  std::string Feed(std::string_view piece);
  // The escaped text after the last newline; the filter is empty afterwards.
  std::string Finish();

 private:
  std::string pending_;  // text after the last newline fed
};

// The characters that can reorder or break the text around them without being seen, and so are
// shown escaped wherever racelab writes text for a person (terminal, HTML, JUnit): the
// bidirectional controls U+061C (ALM), U+200E (LRM), U+200F (RLM), U+202A–U+202E (LRE, RLE, PDF,
// LRO, RLO) and U+2066–U+2069 (LRI, RLI, FSI, PDI), and the separators U+2028 (LINE) and U+2029
// (PARAGRAPH).
bool IsBidiOrLineControl(char32_t code_point);

// `text` with each character of IsBidiOrLineControl written as its code, "\u202e", and everything
// else as it is: for writers with escaping of their own that must not obey these characters either
// (the Markdown report, read in a pull-request page).
std::string ShowBidiControls(std::string_view text);

}  // namespace racelab
