#include "harness/engines/mariadb/dsn.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>

namespace racelab::mariadb {
namespace {

std::string SchemeEnd(const std::string& dsn) {
  for (const char* s : {"mariadb://", "mysql://"})
    if (dsn.rfind(s, 0) == 0) return s;
  return "";
}

bool Decode(const std::string& in, std::string* out) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out->push_back(in[i]);
      continue;
    }
    if (i + 2 >= in.size() || !std::isxdigit(static_cast<unsigned char>(in[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(in[i + 2]))) {
      return false;
    }
    out->push_back(static_cast<char>(std::strtol(in.substr(i + 1, 2).c_str(), nullptr, 16)));
    i += 2;
  }
  return true;
}

}  // namespace

bool IsMariaDbDsn(const std::string& dsn) { return !SchemeEnd(dsn).empty(); }

bool LooksLikeMariaDbDsn(std::string_view arg) { return IsMariaDbDsn(std::string(arg)); }

bool MariaDbDsnMayHoldPassword(std::string_view dsn) { return IsMariaDbDsn(std::string(dsn)); }

Result<ConnectTarget> ParseMariaDbDsn(const std::string& dsn) {
  const std::string scheme = SchemeEnd(dsn);
  if (scheme.empty()) return Status::Usage("not a mariadb:// or mysql:// URL");
  std::string rest = dsn.substr(scheme.size());
  const std::string shown = RedactMariaDbDsn(dsn);
  std::string query;
  if (size_t q = rest.find('?'); q != std::string::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  std::string path;
  if (size_t slash = rest.find('/'); slash != std::string::npos) {
    path = rest.substr(slash + 1);
    rest = rest.substr(0, slash);
  }
  ConnectTarget t;
  if (size_t at = rest.rfind('@'); at != std::string::npos) {
    std::string userinfo = rest.substr(0, at);
    rest = rest.substr(at + 1);
    std::string user = userinfo, password;
    if (size_t colon = userinfo.find(':'); colon != std::string::npos) {
      user = userinfo.substr(0, colon);
      password = userinfo.substr(colon + 1);
    }
    if (!Decode(user, &t.user) || !Decode(password, &t.password))
      return Status::Usage(fmt::format("--dsn {}: a bad %-escape in the user or password", shown));
  }
  std::string host = rest;
  if (!host.empty() && host[0] == '[') {  // [IPv6]:port
    size_t close = host.find(']');
    if (close == std::string::npos)
      return Status::Usage(fmt::format("--dsn {}: unclosed [ in the host", shown));
    t.host = host.substr(1, close - 1);
    rest = host.substr(close + 1);  // "" or ":port"
    if (!rest.empty() && rest[0] != ':')
      return Status::Usage(fmt::format("--dsn {}: expected :port after ]", shown));
  } else {
    size_t colon = host.rfind(':');
    t.host = host.substr(0, colon);
    rest = colon == std::string::npos ? "" : host.substr(colon);
  }
  if (!rest.empty()) {
    std::string port = rest.substr(1);
    char* end = nullptr;
    long n = std::strtol(port.c_str(), &end, 10);
    if (port.empty() || *end != '\0' || n < 1 || n > 65535)
      return Status::Usage(fmt::format("--dsn {}: port '{}' is not a number from 1 to 65535",
                                       shown, port));
    t.port = static_cast<unsigned>(n);
  }
  if (!Decode(path, &t.database))
    return Status::Usage(fmt::format("--dsn {}: a bad %-escape in the database", shown));
  size_t start = 0;
  while (start < query.size()) {
    size_t end = query.find('&', start);
    if (end == std::string::npos) end = query.size();
    std::string pair = query.substr(start, end - start);
    size_t eq = pair.find('=');
    std::string key = pair.substr(0, eq), value;
    if (eq == std::string::npos || !Decode(pair.substr(eq + 1), &value))
      return Status::Usage(fmt::format("--dsn {}: parameter '{}' needs a value (key=value)", shown,
                                       key));
    if (key == "socket") {
      t.socket = value;
    } else {
      return Status::Usage(fmt::format("--dsn {}: unknown parameter '{}' (known: socket)", shown,
                                       key));
    }
    start = end + 1;
  }
  if (t.host.empty() && t.socket.empty()) t.host = "localhost";
  if (t.user.empty()) t.user = "root";
  if (t.port == 0 && t.socket.empty()) t.port = 3306;
  return t;
}

std::string RedactMariaDbDsn(const std::string& dsn) {
  const std::string scheme = SchemeEnd(dsn);
  if (scheme.empty()) return dsn;
  size_t auth_end = dsn.find_first_of("/?", scheme.size());
  size_t at = dsn.rfind('@', auth_end == std::string::npos ? std::string::npos : auth_end);
  if (at == std::string::npos || at < scheme.size()) return dsn;
  size_t colon = dsn.find(':', scheme.size());
  if (colon == std::string::npos || colon > at) return dsn;
  return dsn.substr(0, colon + 1) + "***" + dsn.substr(at);
}

}  // namespace racelab::mariadb
