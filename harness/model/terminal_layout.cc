#include "harness/model/terminal_layout.h"

#include <algorithm>

namespace racelab {
namespace {

bool IsContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Byte length of the first `columns` columns of `text`.
size_t PrefixBytes(std::string_view text, size_t columns) {
  size_t seen = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (IsContinuation(text[i])) continue;
    if (seen == columns) return i;
    ++seen;
  }
  return text.size();
}

}  // namespace

size_t DisplayWidth(std::string_view text) {
  size_t width = 0;
  for (char c : text) {
    if (!IsContinuation(c)) ++width;
  }
  return width;
}

std::string ClipToWidth(std::string_view text, size_t width) {
  if (DisplayWidth(text) <= width) return std::string(text);
  if (width == 0) return "";
  return std::string(text.substr(0, PrefixBytes(text, width - 1))) + "…";
}

std::vector<std::string> FoldLine(std::string_view text, size_t width, std::string_view indent) {
  std::vector<std::string> lines;
  for (size_t start = 0; start <= text.size();) {
    const size_t nl = text.find('\n', start);
    const std::string_view part =
        text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    start = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    std::string line;  // a line of the text's own starts as it is; only continuations are indented
    if (width == 0 || DisplayWidth(line) + DisplayWidth(part) <= width) {  // fits: unchanged
      lines.push_back(line + std::string(part));
      continue;
    }
    // Too long: its leading spaces kept, then word by word (one space between words).
    const size_t lead = std::min(part.find_first_not_of(' '), part.size());
    line += part.substr(0, lead);
    bool has_word = false;
    for (size_t i = lead; i < part.size();) {
      const size_t word_start = part.find_first_not_of(' ', i);
      if (word_start == std::string_view::npos) break;
      size_t word_end = std::min(part.find(' ', word_start), part.size());
      std::string_view word = part.substr(word_start, word_end - word_start);
      i = word_end;
      if (has_word && DisplayWidth(line) + 1 + DisplayWidth(word) > width) {
        lines.push_back(line);
        line = std::string(indent);
        has_word = false;
      } else if (has_word) {
        line += ' ';
      }
      // A word longer than the room left is cut into pieces.
      while (DisplayWidth(line) + DisplayWidth(word) > width && DisplayWidth(line) < width) {
        const size_t bytes = PrefixBytes(word, width - DisplayWidth(line));
        lines.push_back(line + std::string(word.substr(0, bytes)));
        word.remove_prefix(bytes);
        line = std::string(indent);
      }
      line += word;
      has_word = true;
    }
    lines.push_back(line);
  }
  // Clipped as a last resort (an indent as wide as the line).
  for (std::string& l : lines) {
    if (width > 0 && DisplayWidth(l) > width) l = ClipToWidth(l, width);
  }
  return lines;
}

std::string ColorVerdict(std::string_view verdict, std::string_view text, bool color) {
  if (!color) return std::string(text);
  const char* sgr = verdict == "pass"          ? "32"
                    : verdict == "fail"        ? "1;31"
                    : verdict == "error"       ? "33"
                    : verdict == "interrupted" ? "2"
                                               : nullptr;
  if (sgr == nullptr) return std::string(text);
  return std::string("\x1b[") + sgr + "m" + std::string(text) + "\x1b[0m";
}

}  // namespace racelab
