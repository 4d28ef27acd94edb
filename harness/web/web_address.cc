// Where step mode's page listens and who may use it (web_address.h).
#include "harness/web/web_address.h"

#include <charconv>

namespace racelab::web {
namespace {

// "8080" -> 8080; -1 when it is not a port.
int ParsePort(const std::string& text) {
  int port = -1;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, port);
  if (text.empty() || ec != std::errc() || ptr != end || port < 0 || port > 65535) return -1;
  return port;
}

}  // namespace

Result<WebAddress> ParseWebAddress(const std::string& text) {
  WebAddress a;
  std::string port = text;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return Status::Usage("--web " + text + ": an IPv6 address is written [::1]:PORT");
    a.host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else if (const size_t colon = text.rfind(':'); colon != std::string::npos) {
    if (text.find(':') != colon)
      return Status::Usage("--web " + text + ": an IPv6 address is written [::1]:PORT");
    if (colon > 0) a.host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  if (a.host.empty()) return Status::Usage("--web " + text + ": the host is empty");
  a.port = ParsePort(port);
  if (a.port < 0)
    return Status::Usage("--web " + text +
                         ": give [HOST:]PORT with PORT 0-65535 (0: any free one)");
  return a;
}

bool IsLoopbackHost(const std::string& host) {
  if (host == "localhost" || host == "::1") return true;
  // 127.x.y.z, numeric.
  if (host.rfind("127.", 0) != 0) return false;
  int dots = 0;
  for (char c : host) {
    if (c == '.') {
      ++dots;
    } else if (c < '0' || c > '9') {
      return false;
    }
  }
  return dots == 3;
}

bool HostHeaderAllowed(const std::string& host_header, const WebAddress& served) {
  if (!IsLoopbackHost(served.host)) return true;
  const std::string suffix = ":" + std::to_string(served.port);
  if (host_header.size() <= suffix.size() ||
      host_header.compare(host_header.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  std::string host = host_header.substr(0, host_header.size() - suffix.size());
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  return IsLoopbackHost(host);
}

bool SameToken(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i)
    diff |= static_cast<unsigned char>(a[i]) ^ static_cast<unsigned char>(b[i]);
  return diff == 0;
}

}  // namespace racelab::web
