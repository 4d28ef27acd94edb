// Says which part of a connection string libpq refused, without quoting any of it: libpq's own
// parse errors quote the raw text ("invalid percent-encoded token: \"p%zzss\""), password included,
// and may be translated, so racelab re-reads the string with libpq's grammar (conninfo_parse and
// conninfo_uri_parse_options in src/interfaces/libpq/fe-connect.c, PostgreSQL 15) and names the
// part by its role and position only. Names written by the user are not shown either: an unquoted
// password with a space ("password=a b") makes a fragment of it look like a key.
#include <fmt/format.h>
#include <libpq-fe.h>

#include <cctype>
#include <set>
#include <string>

#include "harness/engines/postgresql/dsn.h"
#include "harness/model/dsn_uri.h"

namespace racelab::internal {
namespace {

const std::set<std::string>& Keywords() {
  static const std::set<std::string> kKeywords = [] {
    std::set<std::string> out = {"ssl"};  // URI-only alias of sslmode=require
    PQconninfoOption* defaults = PQconndefaults();
    for (PQconninfoOption* o = defaults; o != nullptr && o->keyword != nullptr; ++o)
      out.insert(o->keyword);
    if (defaults != nullptr) PQconninfoFree(defaults);
    return out;
  }();
  return kKeywords;
}

bool IsHex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// "" when the percent-escapes of a URI component are valid, else why not (§34.1.1.2).
std::string PercentProblem(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') continue;
    if (i + 2 >= s.size() || !IsHex(s[i + 1]) || !IsHex(s[i + 2])) {
      return "a malformed percent-escape (% must be followed by two hex digits; write % itself as "
             "%25)";
    }
    if (s[i + 1] == '0' && s[i + 2] == '0') return "the forbidden escape %00";
    i += 2;
  }
  return "";
}

std::string DescribeUri(std::string_view uri) {
  std::string_view rest = uri.substr(uri.find("://") + 3);
  size_t stop = rest.find_first_of("@/");
  if (stop != std::string_view::npos && rest[stop] == '@') {
    std::string_view info = rest.substr(0, stop);
    size_t colon = info.find(':');
    if (std::string p = PercentProblem(info.substr(0, colon)); !p.empty())
      return "the user name in the URI has " + p;
    if (colon != std::string_view::npos) {
      if (std::string p = PercentProblem(info.substr(colon + 1)); !p.empty())
        return "the password in the URI has " + p;
    }
    rest.remove_prefix(stop + 1);
  }
  // host[:port][,host[:port]…]
  for (;;) {
    if (!rest.empty() && rest[0] == '[') {
      size_t close = rest.find(']');
      if (close == std::string_view::npos)
        return "an IPv6 host address in the URI has no closing ']'";
      if (close == 1) return "an IPv6 host address in the URI is empty";
      rest.remove_prefix(close + 1);
      if (!rest.empty() && std::string_view(":/?,").find(rest[0]) == std::string_view::npos) {
        return "an IPv6 host address in the URI is followed by something other than ':', '/', '?' "
               "or ','";
      }
    } else {
      size_t end = rest.find_first_of(":/?,");
      if (std::string p = PercentProblem(rest.substr(0, end)); !p.empty())
        return "a host name in the URI has " + p;
      rest.remove_prefix(end == std::string_view::npos ? rest.size() : end);
    }
    if (!rest.empty() && rest[0] == ':') {
      size_t end = rest.find_first_of("/?,");
      if (std::string p =
              PercentProblem(rest.substr(1, end == std::string_view::npos ? end : end - 1));
          !p.empty()) {
        return "a port in the URI has " + p;
      }
      rest.remove_prefix(end == std::string_view::npos ? rest.size() : end);
    }
    if (rest.empty() || rest[0] != ',') break;
    rest.remove_prefix(1);
  }
  if (!rest.empty() && rest[0] == '/') {
    size_t end = rest.find('?');
    if (std::string p =
            PercentProblem(rest.substr(1, end == std::string_view::npos ? end : end - 1));
        !p.empty()) {
      return "the database name in the URI has " + p;
    }
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end);
  }
  if (!rest.empty() && rest[0] == '?') {
    rest.remove_prefix(1);
    for (size_t n = 1;; ++n) {
      size_t amp = rest.find('&');
      std::string_view param = rest.substr(0, amp);
      size_t eq = param.find('=');
      const std::string which = fmt::format("the {} query parameter", Ordinal(n));
      if (eq == std::string_view::npos)
        return which + " has no '=' (write key=value; an '&' in a value is %26)";
      if (param.find('=', eq + 1) != std::string_view::npos) {
        return which + " has more than one '=' (an '=' in a value is written %3D)";
      }
      if (std::string p = PercentProblem(param); !p.empty()) return which + " has " + p;
      std::string key(param.substr(0, eq));
      if (!Keywords().count(key) && PercentProblem(key).empty() &&
          key.find('%') == std::string::npos) {
        return which +
               " names an option libpq does not know (the name is not shown: it may be part of a "
               "value with an unescaped '&')";
      }
      if (amp == std::string_view::npos) break;
      rest.remove_prefix(amp + 1);
    }
  }
  return "the URI is malformed";
}

std::string DescribeKeyValue(std::string_view s) {
  auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  size_t i = 0;
  for (size_t n = 1;; ++n) {
    while (i < s.size() && space(s[i])) ++i;
    if (i >= s.size()) break;
    const std::string which = fmt::format("key=value pair {}", n);
    size_t key_start = i;
    while (i < s.size() && s[i] != '=' && !space(s[i])) ++i;
    std::string key(s.substr(key_start, i - key_start));
    while (i < s.size() && space(s[i])) ++i;
    if (i >= s.size() || s[i] != '=') {
      return which +
             " has no '=' (a value with spaces is quoted: password='a b'; a bare database name is "
             "written dbname=NAME)";
    }
    ++i;
    while (i < s.size() && space(s[i])) ++i;
    if (i < s.size() && s[i] == '\'') {
      ++i;
      for (;;) {
        if (i >= s.size())
          return which +
                 " has a quoted value with no closing quote (a quote inside is written \\')";
        if (s[i] == '\\') {
          i += 2;
          continue;
        }
        if (s[i++] == '\'') break;
      }
    } else {
      while (i < s.size() && !space(s[i])) i += s[i] == '\\' ? 2 : 1;
    }
    if (!Keywords().count(key)) {
      return which +
             " names an option libpq does not know (the name is not shown: it may be part of an "
             "unquoted value with a space)";
    }
  }
  return "the key=value text is malformed";
}

}  // namespace

std::string DescribeDsnParseError(std::string_view dsn) {
  const bool uri = dsn.substr(0, 13) == "postgresql://" || dsn.substr(0, 11) == "postgres://";
  if (uri && FindUriUserInfo(dsn, dsn.find("://") + 3).ambiguous)
    return std::string(kAmbiguousUriProblem);
  // libpq parses the text, but its dbname is itself a connection string that cannot be parsed
  // safely (dsn.h RedactDsn): name the part, then what is wrong with the nested one.
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(std::string(dsn).c_str(), &err);
  if (err != nullptr) PQfreemem(err);
  std::string nested;
  bool bad_port = false;
  for (PQconninfoOption* o = opts; o != nullptr && o->keyword != nullptr; ++o) {
    if (std::string_view(o->keyword) == "dbname" && o->val != nullptr) nested = o->val;
    if (std::string_view(o->keyword) == "port" && o->val != nullptr)
      bad_port =
          std::string_view(o->val).find_first_not_of("0123456789,") != std::string_view::npos;
  }
  if (opts != nullptr) PQconninfoFree(opts);
  if (opts != nullptr && bad_port) {
    return "the port is not a number (in a URI, a password is written after user: and before '@'; "
           "a '/' in it is "
           "%2F)";
  }
  if (opts != nullptr && !nested.empty() && nested != dsn)
    return "the dbname is itself a connection string, and " + DescribeDsnParseError(nested);
  return uri ? DescribeUri(dsn) : DescribeKeyValue(dsn);
}

}  // namespace racelab::internal
