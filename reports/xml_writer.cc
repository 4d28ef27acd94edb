#include "reports/xml_writer.h"

#include <fmt/format.h>

#include "harness/model/terminal_text.h"

namespace racelab {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

// XML 1.0 §2.2: Char ::= #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].
bool IsXmlChar(uint32_t cp) {
  return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
         (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
}

// Decodes one UTF-8 sequence at text[*pos]. Returns its code point and advances *pos past it, or
// returns false and advances by one byte when the bytes there are not well-formed UTF-8 (overlong
// forms and surrogates included).
bool DecodeUtf8(std::string_view text, size_t* pos, uint32_t* cp) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(*pos);
  size_t len = 0;
  uint32_t value = 0;
  uint32_t min = 0;
  if (lead < 0x80) {
    *cp = lead;
    ++*pos;
    return true;
  } else if ((lead & 0xE0) == 0xC0) {
    len = 2;
    value = lead & 0x1F;
    min = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    len = 3;
    value = lead & 0x0F;
    min = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    len = 4;
    value = lead & 0x07;
    min = 0x10000;
  } else {
    ++*pos;
    return false;
  }
  if (*pos + len > text.size()) {
    ++*pos;
    return false;
  }
  for (size_t i = 1; i < len; ++i) {
    const unsigned char next = byte(*pos + i);
    if ((next & 0xC0) != 0x80) {
      ++*pos;
      return false;
    }
    value = (value << 6) | (next & 0x3F);
  }
  if (value < min || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) {
    ++*pos;
    return false;
  }
  *cp = value;
  *pos += len;
  return true;
}

}  // namespace

std::string EscapeXml(std::string_view text, XmlContext context) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t start = pos;
    uint32_t cp = 0;
    if (!DecodeUtf8(text, &pos, &cp)) {
      out += kReplacement;
      continue;
    }
    if (!IsXmlChar(cp)) continue;  // stripped
    switch (cp) {
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
      case '\'':
        out += "&#39;";
        break;
      case '\t':
      case '\n':
      case '\r':
        if (context == XmlContext::kAttribute) {
          out += fmt::format("&#{};", cp);
        } else {
          out += static_cast<char>(cp);
        }
        break;
      default:
        if (IsBidiOrLineControl(cp)) {
          // A character reference would still reorder the page: shown as the terminal shows it.
          out += fmt::format("\\u{:04x}", static_cast<uint32_t>(cp));
        } else {
          out.append(text.substr(start, pos - start));
        }
    }
  }
  return out;
}

XmlWriter::XmlWriter(std::ostream& out) : out_(out) {}

XmlWriter::~XmlWriter() { Close(); }

void XmlWriter::WriteDeclaration() { out_ << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"; }

XmlWriter& XmlWriter::StartElement(std::string_view name) {
  if (!stack_.empty()) {
    FinishStartTag();
    if (!stack_.back().has_children) out_ << '\n';
    stack_.back().has_children = true;
  }
  Indent(stack_.size());
  out_ << '<' << name;
  stack_.push_back(Open{std::string(name)});
  start_tag_pending_ = true;
  return *this;
}

XmlWriter& XmlWriter::Attribute(std::string_view name, std::string_view value) {
  if (start_tag_pending_) {
    out_ << ' ' << name << "=\"" << EscapeXml(value, XmlContext::kAttribute) << '"';
  }
  return *this;
}

XmlWriter& XmlWriter::Attribute(std::string_view name, int64_t value) {
  return Attribute(name, std::string_view(fmt::format("{}", value)));
}

XmlWriter& XmlWriter::Text(std::string_view text) {
  if (stack_.empty()) return *this;
  FinishStartTag();
  out_ << EscapeXml(text, XmlContext::kText);
  stack_.back().has_text = true;
  return *this;
}

XmlWriter& XmlWriter::EndElement() {
  if (stack_.empty()) return *this;
  const Open open = std::move(stack_.back());
  stack_.pop_back();
  if (start_tag_pending_) {
    out_ << "/>\n";
    start_tag_pending_ = false;
    return *this;
  }
  if (open.has_children) Indent(stack_.size());
  out_ << "</" << open.name << ">\n";
  return *this;
}

void XmlWriter::Close() {
  while (!stack_.empty()) EndElement();
}

void XmlWriter::FinishStartTag() {
  if (!start_tag_pending_) return;
  out_ << '>';
  start_tag_pending_ = false;
}

void XmlWriter::Indent(size_t depth) {
  for (size_t i = 0; i < depth; ++i) out_ << "  ";
}

}  // namespace racelab
