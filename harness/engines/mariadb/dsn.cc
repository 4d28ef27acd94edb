#include "harness/engines/mariadb/dsn.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <optional>
#include <utility>
#include <vector>

#include "harness/model/dsn_uri.h"

namespace racelab::mariadb {
namespace {

std::string SchemeOf(const std::string& dsn) {
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

Status Refused(const std::string& what) {
  return Status::Usage("--dsn: the MariaDB URL is malformed: " + what +
                       " (the connection string is not shown: it may contain a password)");
}

// The URL's parts as written (still percent-encoded), each found by the rule in the header.
struct RawUrl {
  std::string scheme;
  std::optional<std::string> user, password;  // user info
  std::string host_port;                      // "h", "h:3307", "[::1]:3307", ""
  std::optional<std::string> path;            // after '/', before '?'
  std::vector<std::pair<std::string, std::string>> query;
};

Result<RawUrl> Split(const std::string& dsn) {
  RawUrl u;
  u.scheme = SchemeOf(dsn);
  if (u.scheme.empty()) return Status::Usage("--dsn: not a mariadb:// or mysql:// URL");
  const UriUserInfo info = FindUriUserInfo(dsn, u.scheme.size());
  if (info.ambiguous) return Refused(std::string(kAmbiguousUriProblem));
  std::string rest = dsn.substr(u.scheme.size());
  if (info.at) {
    std::string userinfo = dsn.substr(u.scheme.size(), *info.at - u.scheme.size());
    rest = dsn.substr(*info.at + 1);
    const size_t colon = userinfo.find(':');
    u.user = userinfo.substr(0, colon);
    if (colon != std::string::npos) u.password = userinfo.substr(colon + 1);
  }
  std::string query;
  bool has_query = false;
  if (size_t q = rest.find('?'); q != std::string::npos) {
    query = rest.substr(q + 1);
    has_query = true;
    rest.resize(q);
  }
  if (size_t slash = rest.find('/'); slash != std::string::npos) {
    u.path = rest.substr(slash + 1);
    rest.resize(slash);
  }
  u.host_port = rest;
  for (size_t start = 0; has_query && start <= query.size();) {
    size_t end = query.find('&', start);
    if (end == std::string::npos) end = query.size();
    const std::string pair = query.substr(start, end - start);
    const size_t eq = pair.find('=');
    if (pair.empty()) {  // "?" alone, "&&", a trailing '&'
      start = end + 1;
      if (end == query.size()) break;
      continue;
    }
    if (eq == std::string::npos) {
      return Refused(fmt::format(
          "the {} query parameter has no '=' (write key=value; an '&' in a value is %26)",
          Ordinal(u.query.size() + 1)));
    }
    u.query.emplace_back(pair.substr(0, eq), pair.substr(eq + 1));
    start = end + 1;
    if (end == query.size()) break;
  }
  return u;
}

// The parts of `u` decoded and checked into a ConnectTarget.
Result<ConnectTarget> Resolve(const RawUrl& u) {
  ConnectTarget t;
  if (u.user && !Decode(*u.user, &t.user)) return Refused("the user name has a malformed %-escape");
  if (u.password && !Decode(*u.password, &t.password))
    return Refused("the password has a malformed %-escape");
  std::string port;
  const std::string& host = u.host_port;
  if (!host.empty() && host[0] == '[') {  // [IPv6]:port
    const size_t close = host.find(']');
    if (close == std::string::npos) return Refused("an IPv6 host address has no closing ']'");
    t.host = host.substr(1, close - 1);
    const std::string after = host.substr(close + 1);
    if (!after.empty() && after[0] != ':')
      return Refused("an IPv6 host address is followed by something other than ':port'");
    if (!after.empty()) port = after.substr(1);
    if (after == ":") return Refused("the port is empty");
  } else {
    const size_t colon = host.rfind(':');
    if (!Decode(host.substr(0, colon), &t.host))
      return Refused("the host name has a malformed %-escape");
    if (colon != std::string::npos) {
      port = host.substr(colon + 1);
      if (port.empty()) return Refused("the port is empty");
    }
  }
  if (!port.empty()) {
    char* end = nullptr;
    const long n = std::strtol(port.c_str(), &end, 10);
    if (!std::isdigit(static_cast<unsigned char>(port[0])) || *end != '\0' || n < 1 || n > 65535)
      return Refused("the port is not a number from 1 to 65535");
    t.port = static_cast<unsigned>(n);
  }
  if (u.path && !Decode(*u.path, &t.database))
    return Refused("the database name has a malformed %-escape");
  for (size_t i = 0; i < u.query.size(); ++i) {
    const auto& [key, raw] = u.query[i];
    std::string value;
    const std::string which = fmt::format("the {} query parameter", Ordinal(i + 1));
    if (!Decode(raw, &value)) return Refused(which + " has a malformed %-escape");
    if (key == "socket") {
      t.socket = value;
    } else if (key == "user") {
      t.user = value;
    } else if (key == "password") {
      t.password = value;
    } else {
      // The name is not shown: with a '&' or '?' in a password it may be a piece of the password.
      return Refused(
          which +
          " names an option racelab does not know (known: socket, user, password; the name is "
          "not shown: it may be part of a value)");
    }
  }
  if (t.host.empty() && t.socket.empty()) t.host = "localhost";
  if (t.user.empty()) t.user = "root";
  if (t.port == 0 && t.socket.empty()) t.port = 3306;
  return t;
}

}  // namespace

bool IsMariaDbDsn(const std::string& dsn) { return !SchemeOf(dsn).empty(); }

bool LooksLikeMariaDbDsn(std::string_view arg) { return IsMariaDbDsn(std::string(arg)); }

bool MariaDbDsnMayHoldPassword(std::string_view dsn) { return IsMariaDbDsn(std::string(dsn)); }

Result<ConnectTarget> ParseMariaDbDsn(const std::string& dsn) {
  Result<RawUrl> raw = Split(dsn);
  if (!raw.ok()) return raw.status();
  return Resolve(*raw);
}

std::string RedactMariaDbDsn(const std::string& dsn) {
  Result<RawUrl> raw = Split(dsn);
  if (!raw.ok() || !Resolve(*raw).ok()) return std::string(kUnparseableDsnText);
  const RawUrl& u = *raw;
  std::string out = u.scheme;
  if (u.user) out += *u.user + (u.password ? ":***" : "") + "@";
  out += u.host_port;
  if (u.path) out += "/" + *u.path;
  for (size_t i = 0; i < u.query.size(); ++i) {
    const auto& [key, value] = u.query[i];
    out += (i == 0 ? "?" : "&") + key + "=" + (key == "password" ? std::string("***") : value);
  }
  return out;
}

}  // namespace racelab::mariadb
