// Small element writers shared by the HTML page's parts (html_reporter.cc, html_trial.cc). Every
// piece of text goes through XmlWriter, the one escaping writer; no element is left
// empty-and-self-closed (HTML has no <td/>). Thread-safety: as XmlWriter (one writer per thread).
#pragma once

#include <fmt/format.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "harness/model/summary.h"
#include "reports/xml_writer.h"

namespace racelab::internal {

// An element with only text: always closed with an end tag, even when `text` is empty.
inline void Leaf(XmlWriter& xml, std::string_view tag, std::string_view text,
                 std::string_view cls = "") {
  xml.StartElement(tag);
  if (!cls.empty()) xml.Attribute("class", cls);
  xml.Text(text).EndElement();
}

// One table row of (text, class) cells.
inline void Row(XmlWriter& xml,
                std::initializer_list<std::pair<std::string, std::string_view>> cells) {
  xml.StartElement("tr");
  for (const auto& [text, cls] : cells) Leaf(xml, "td", text, cls);
  xml.EndElement();
}

inline void HeaderRow(XmlWriter& xml, std::initializer_list<std::string_view> names) {
  xml.StartElement("tr");
  for (std::string_view name : names) Leaf(xml, "th", name);
  xml.EndElement();
}

// "v-pass", "v-fail", …: the CSS class of a verdict's colour.
inline std::string VerdictClass(Verdict v) { return fmt::format("v-{}", VerdictName(v)); }

}  // namespace racelab::internal
