// The patterns of `expect.errors` (`message`, `detail`; docs/scenario-format.md "Errors of a step
// or a session"): ECMAScript regular expressions (std::regex), searched anywhere in the server's
// text.
//
// Both the loader (which refuses a pattern that does not compile, at its line) and the evaluator
// compile them here, with the same flags. On libstdc++ the pattern is compiled in its polynomial
// mode (std::regex_constants::__polynomial, a GNU extension): the matcher then simulates the
// automaton breadth-first instead of backtracking, so a pattern such as (a*)*b cannot take
// exponential time on a message; back-references are refused (they need backtracking). The text
// searched is cut to kMaxErrorTextBytes, which bounds a search to well under a second (measured:
// the pathological (a|aa)*c on 1000 characters, 0.55 s on a loaded 2-core machine; PostgreSQL's
// messages are far shorter). Thread-safety: pure functions; a compiled std::regex may be searched
// from several threads.
#pragma once

#include <regex>
#include <string>
#include <string_view>

namespace racelab {

// The longest pattern a scenario may write, and the part of a message or DETAIL that is searched.
inline constexpr size_t kMaxErrorPatternBytes = 256;
inline constexpr size_t kMaxErrorTextBytes = 1024;

// Throws std::regex_error when `pattern` is not an ECMAScript regular expression this build accepts
// (syntax, a back-reference, an automaton over libstdc++'s state limit). Defined in
// error_pattern.cc.
std::regex CompileErrorPattern(const std::string& pattern);

// True when `pattern` occurs anywhere in the first kMaxErrorTextBytes of `text`. A search the
// library gives up on (std::regex_error: error_complexity, error_stack) is no match.
bool SearchErrorPattern(const std::regex& pattern, std::string_view text);

}  // namespace racelab
