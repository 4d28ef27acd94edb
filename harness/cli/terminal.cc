#include "harness/cli/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>

namespace racelab::cli {
namespace {

std::optional<std::string> Env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

// $COLUMNS as a width: a whole number from 1 to 100000, else 0.
size_t ColumnsValue(const std::optional<std::string>& text) {
  if (!text || text->empty()) return 0;
  size_t value = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size() || value == 0 || value > 100000)
    return 0;
  return value;
}

}  // namespace

TerminalStyle TerminalStyleFor(const TerminalFacts& facts) {
  TerminalStyle style;
  if (size_t columns = ColumnsValue(facts.columns); columns > 0) {
    style.width = columns;
  } else if (facts.is_terminal) {
    style.width = facts.window_columns > 0 ? facts.window_columns : 80;
  }
  style.color = facts.is_terminal && !(facts.no_color && !facts.no_color->empty()) &&
                !(facts.term && *facts.term == "dumb");
  return style;
}

TerminalFacts TerminalFactsOf(int fd) {
  TerminalFacts facts;
  facts.is_terminal = isatty(fd) != 0;
  if (facts.is_terminal) {
    winsize ws{};
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0) facts.window_columns = ws.ws_col;
  }
  facts.columns = Env("COLUMNS");
  facts.no_color = Env("NO_COLOR");
  facts.term = Env("TERM");
  return facts;
}

void WriteNote(std::ostream& err, const std::string& line) {
  const TerminalStyle style = TerminalStyleFor(TerminalFactsOf(STDERR_FILENO));
  for (const std::string& folded : FoldLine(line, style.width, "  ")) err << folded << '\n';
}

}  // namespace racelab::cli
