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

}  // namespace racelab
