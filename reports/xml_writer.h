// XmlWriter: the one place where racelab escapes XML. Used by the JUnit reporter
// and meant for an HTML reporter too (the escapes it emits are valid in both).
//
// Escaping (EscapeXml): & < > " ' become &amp; &lt; &gt; &quot; &#39; everywhere; characters
// illegal in XML 1.0 (C0 controls other than tab, LF and CR; surrogates; U+FFFE, U+FFFF) are
// removed; bytes that are not valid UTF-8 become U+FFFD; the bidirectional and line controls of
// IsBidiOrLineControl (harness/model/terminal_text.h: U+202E RIGHT-TO-LEFT OVERRIDE, …) are written
// visibly as the terminal shows them, "\u202e" — a reference (&#x202E;) would be decoded and still
// reorder the text around it (a "Trojan Source" title or value). In attribute values tab, LF and CR
// are written as character references so that a parser's attribute-value normalisation does not
// turn them into spaces.
//
// The writer streams: StartElement, then its Attributes, then either Text or child elements, then
// EndElement. Children are indented by two spaces per level; an element with text only is written
// on one line; an empty element is self-closed (<a x="1"/>). Mixed content (text and children in
// the same element) is not supported. The destructor closes any element still open.
// Thread-safety: one writer per thread; it writes to the stream it was given and nothing else.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace racelab {

enum class XmlContext {
  kText,       // element content
  kAttribute,  // a double-quoted attribute value
};

// `text` escaped for `context` as described above.
std::string EscapeXml(std::string_view text, XmlContext context = XmlContext::kText);

class XmlWriter {
 public:
  explicit XmlWriter(std::ostream& out);
  ~XmlWriter();
  XmlWriter(const XmlWriter&) = delete;
  XmlWriter& operator=(const XmlWriter&) = delete;

  // <?xml version="1.0" encoding="UTF-8"?> and a newline. REQUIRES: nothing written yet.
  void WriteDeclaration();

  // Opens <name. `name` is written as given (callers pass fixed, valid names).
  XmlWriter& StartElement(std::string_view name);

  // name="escaped value". REQUIRES: called right after StartElement or another Attribute.
  XmlWriter& Attribute(std::string_view name, std::string_view value);
  XmlWriter& Attribute(std::string_view name, int64_t value);

  // Escaped text content of the innermost open element. REQUIRES: an element is open.
  XmlWriter& Text(std::string_view text);

  // Closes the innermost open element. REQUIRES: an element is open.
  XmlWriter& EndElement();

  // Closes every open element.
  void Close();

 private:
  struct Open {
    std::string name;
    bool has_children = false;
    bool has_text = false;
  };
  // Ends the pending start tag ("<name attrs") of the innermost element, if any.
  void FinishStartTag();
  void Indent(size_t depth);

  std::ostream& out_;
  std::vector<Open> stack_;
  bool start_tag_pending_ = false;
};

}  // namespace racelab
