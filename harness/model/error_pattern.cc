// harness/model/error_pattern.h. The regular expression compiler is instantiated here only, once.
//
// GCC 12 warns -Wmaybe-uninitialized inside libstdc++'s own <regex> (std::__detail::_NFA::
// _M_insert_subexpr_begin: a std::function member of a temporary _State moved from) when the loader
// is built with optimisation and -fsanitize=address (tests/fuzz): a false positive that any
// std::regex construction triggers, GCC bug 105616 (GCC 12 to 14). The pragma, before any include,
// silences that one warning in this file only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "harness/model/error_pattern.h"

namespace racelab {

std::regex CompileErrorPattern(const std::string& pattern) {
#if defined(__GLIBCXX__)
  return std::regex(pattern, std::regex::ECMAScript | std::regex_constants::__polynomial);
#else
  return std::regex(pattern, std::regex::ECMAScript);
#endif
}

bool SearchErrorPattern(const std::regex& pattern, std::string_view text) {
  text = text.substr(0, kMaxErrorTextBytes);
  try {
    return std::regex_search(text.begin(), text.end(), pattern);
  } catch (const std::regex_error&) {
    return false;
  }
}

}  // namespace racelab
