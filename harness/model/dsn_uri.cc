#include "harness/model/dsn_uri.h"

namespace racelab {

UriUserInfo FindUriUserInfo(std::string_view uri, size_t body) {
  UriUserInfo out;
  if (body > uri.size()) return out;
  const size_t at = uri.find('@', body);
  if (at == std::string_view::npos) return out;
  const size_t slash = uri.find('/', body);
  if (uri.find('@', at + 1) != std::string_view::npos ||
      (slash != std::string_view::npos && slash < at)) {
    out.ambiguous = true;
    return out;
  }
  out.at = at;
  return out;
}

std::string Ordinal(size_t n) {
  const char* suffix = (n % 100 >= 11 && n % 100 <= 13) ? "th"
                       : n % 10 == 1                    ? "st"
                       : n % 10 == 2                    ? "nd"
                       : n % 10 == 3                    ? "rd"
                                                        : "th";
  return std::to_string(n) + suffix;
}

}  // namespace racelab
