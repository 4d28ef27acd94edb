#include "harness/model/terminal_text.h"

#include <cstdio>

namespace racelab {
namespace {

std::string Hex(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  return buf;
}

// Length of the valid UTF-8 sequence at text[i] (RFC 3629: no overlongs, no surrogates, ≤
// U+10FFFF), or 0.
size_t Utf8Length(std::string_view text, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const auto cont = [&](size_t k) { return i + k < text.size() && (b(k) & 0xC0) == 0x80; };
  const unsigned char c = b(0);
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && b(1) < 0xA0) return 0;  // overlong
    if (c == 0xED && b(1) > 0x9F) return 0;  // surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && b(1) < 0x90) return 0;
    if (c == 0xF4 && b(1) > 0x8F) return 0;
    return 4;
  }
  return 0;
}

// The code point of the valid `n`-byte UTF-8 sequence at text[i].
char32_t CodePoint(std::string_view text, size_t i, size_t n) {
  const auto b = [&](size_t k) {
    return static_cast<char32_t>(static_cast<unsigned char>(text[i + k]));
  };
  if (n == 2) return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
  if (n == 3) return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
  return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
}

}  // namespace

bool IsBidiOrLineControl(char32_t cp) {
  return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029;
}

std::string SanitizeForTerminal(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      out += keep_newlines ? "\n" : "\\n";
      ++i;
    } else if (c == '\t') {
      out += '\t';
      ++i;
    } else if (c == '\r') {
      out += "\\r";
      ++i;
    } else if (c < 0x20 || c == 0x7F) {
      out += Hex(c);
      ++i;
    } else if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
    } else if (size_t n = Utf8Length(text, i); n == 0) {
      out += Hex(c);
      ++i;
    } else if (const char32_t cp = CodePoint(text, i, n); cp <= 0x9F || IsBidiOrLineControl(cp)) {
      char buf[12];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
      out += buf;  // C1 control (U+0080–U+009F), or a bidirectional / line control
      i += n;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string ShowBidiControls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t n = static_cast<unsigned char>(text[i]) < 0x80 ? 0 : Utf8Length(text, i);
    if (n == 0) {
      out += text[i++];
      continue;
    }
    if (const char32_t cp = CodePoint(text, i, n); IsBidiOrLineControl(cp)) {
      char buf[12];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
      out += buf;
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  return out;
}

std::string TerminalLineFilter::Feed(std::string_view piece) {
  pending_.append(piece);
  const size_t end = pending_.rfind('\n');
  if (end == std::string::npos) return "";
  std::string lines =
      SanitizeForTerminal(std::string_view(pending_).substr(0, end + 1), /*keep_newlines=*/true);
  pending_.erase(0, end + 1);
  return lines;
}

std::string TerminalLineFilter::Finish() {
  std::string rest = SanitizeForTerminal(pending_, /*keep_newlines=*/true);
  pending_.clear();
  return rest;
}

}  // namespace racelab
