// What the terminal on stdout or stderr can show (harness/model/terminal_layout.h TerminalStyle):
// its width and whether colour may be used, found the way other command-line tools find them.
//
// - Width: $COLUMNS when it is a whole number > 0 (as ls, ps and less read it); else, on a
// terminal,
//   its size (ioctl TIOCGWINSZ), 80 when the terminal does not say; else 0 — a file or a pipe gets
//   every column, so machine readers and golden files do not depend on who ran the command.
// - Colour: only on a terminal, never with NO_COLOR set to anything but "" (no-color.org) and never
//   with TERM=dumb.
// Thread-safety: the functions read the environment and the file descriptor; call them from the
// main thread.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>

#include "harness/model/terminal_layout.h"

namespace racelab::cli {

// What TerminalStyleFor decides from: the facts of one stream and the environment.
struct TerminalFacts {
  bool is_terminal = false;             // isatty(fd)
  size_t window_columns = 0;            // ioctl TIOCGWINSZ ws_col; 0 when unknown
  std::optional<std::string> columns;   // $COLUMNS
  std::optional<std::string> no_color;  // $NO_COLOR
  std::optional<std::string> term;      // $TERM
};

// The style the rules above give for `facts`. Pure.
TerminalStyle TerminalStyleFor(const TerminalFacts& facts);

// The facts of file descriptor `fd` (STDOUT_FILENO, STDERR_FILENO) and of this process's
// environment.
TerminalFacts TerminalFactsOf(int fd);

// Writes `line` (one message, already escaped, without its '\n') to `err` — stderr — folded at
// spaces to stderr's width when that is known (a terminal, or $COLUMNS), continuation lines
// indented two columns, so the terminal never wraps it; else as it is. Then '\n'.
void WriteNote(std::ostream& err, const std::string& line);

}  // namespace racelab::cli
