// Markdown text, escaped by construction, shared by the "md" and "md-summary" reporters.
//
// Text (and Cell) backslash-escape Markdown syntax and put the value on one line; Code writes
// inline code on one line with a fence longer than any backtick run inside; Html escapes text for
// the inside of an HTML block (<summary>); Lesson keeps authored Markdown minus raw HTML. No value
// — a final query's result, a --set value, multi-line SQL, a server message — can end its span or
// paragraph. Clip shortens a value to a byte budget without splitting a UTF-8 character.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace racelab::internal::md {

std::string Text(std::string_view text);
std::string Cell(std::string_view text);
std::string Code(std::string_view text);
std::string Lesson(std::string_view text);
// & < > " as entities, line breaks as spaces, other control characters as their control pictures.
std::string Html(std::string_view text);
// `text` cut to at most `max_bytes` bytes (at a UTF-8 character boundary) with "…" appended when
// cut.
std::string Clip(std::string_view text, size_t max_bytes);

}  // namespace racelab::internal::md
