#include "reports/markdown_text.h"

#include <algorithm>

#include "harness/model/terminal_text.h"

namespace racelab::internal::md {
namespace {

// A C0 control character (or DEL) as its Unicode control picture, U+2400 + c ("\n" -> "␊",
// ESC -> "␛", DEL -> "␡"): visible, and never a line break that could end a paragraph or span.
std::string ControlPicture(unsigned char c) {
  const unsigned code = c == 0x7F ? 0x2421 : 0x2400 + c;
  return {static_cast<char>(0xE0 | (code >> 12)), static_cast<char>(0x80 | ((code >> 6) & 0x3F)),
          static_cast<char>(0x80 | (code & 0x3F))};
}

}  // namespace

// Data text outside code spans, escaped by construction: every character Markdown (CommonMark + GFM
// tables, strikethrough, autolinks, math) could read as syntax is backslash-escaped (CommonMark
// §2.4: any ASCII punctuation may be), line breaks become spaces and other control characters their
// control pictures, so a value is one run of literal text: it cannot start a block (no line of its
// own), open a span, link, image, table cell or HTML tag.
std::string Text(std::string_view raw) {
  static constexpr std::string_view kSyntax = "\\`*_[]<>!#|~&$";
  const std::string shown = ShowBidiControls(raw);  // U+202E … as "\u202e", never obeyed
  const std::string_view text = shown;
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n')
      continue;  // the '\n' becomes the space
    if (c == '\n' || c == '\r') {
      out += ' ';
    } else if (c < 0x20 || c == 0x7F) {
      out += ControlPicture(c);
    } else {
      if (kSyntax.find(static_cast<char>(c)) != std::string_view::npos) out += '\\';
      out += static_cast<char>(c);
    }
  }
  return out;
}

// One table cell: Text() ('|' is escaped there too, as GFM tables require).
std::string Cell(std::string_view text) { return Text(text); }

// Inline code, escaped by construction: control characters (line breaks included) become their
// control pictures, so the span is on one line and no blank line can end it; the fence is one
// backtick longer than the longest backtick run inside, so no backtick can close it (CommonMark
// §6.1).
std::string Code(std::string_view raw) {
  const std::string shown = ShowBidiControls(raw);
  const std::string_view text = shown;
  std::string body;
  size_t longest = 0, run = 0;
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
    body += (c < 0x20 || c == 0x7F) ? ControlPicture(c) : std::string(1, ch);
  }
  if (body.empty()) return "` `";
  const std::string fence(longest + 1, '`');
  const bool pad = longest > 0;
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

// The `teaches` lesson is Markdown as authored, minus raw HTML: '<' and '&' are escaped.
std::string Lesson(std::string_view raw) {
  std::string out;
  for (char c : ShowBidiControls(raw)) {
    if (c == '<' || c == '&') out += '\\';
    out += c;
  }
  return out;
}

std::string Html(std::string_view raw) {
  const std::string shown = ShowBidiControls(raw);
  const std::string_view text = shown;
  std::string out;
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\n':
      case '\r':
        out += ' ';
        break;
      default:
        out += (c < 0x20 || c == 0x7F) ? ControlPicture(c) : std::string(1, ch);
    }
  }
  return out;
}

std::string Clip(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t end = max_bytes;
  // Back up to the start of a UTF-8 character (continuation bytes are 10xxxxxx).
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return std::string(text.substr(0, end)) + "…";
}

}  // namespace racelab::internal::md
