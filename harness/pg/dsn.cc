#include "harness/pg/dsn.h"

#include <libpq-fe.h>

#include <regex>
#include <string_view>

namespace racelab {
namespace {

// Quotes a key=value value the way libpq reads it (PostgreSQL docs §34.1.1.1).
std::string QuoteValue(std::string_view v) {
  bool needs = v.empty();
  for (char c : v) needs = needs || c == ' ' || c == '\'' || c == '\\';
  if (!needs) return std::string(v);
  std::string out = "'";
  for (char c : v) {
    if (c == '\'' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "'";
}

std::string PasswordOf(const std::string& dsn) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(dsn.c_str(), &err);
  if (err != nullptr) PQfreemem(err);
  std::string password;
  if (opts == nullptr) return password;
  for (PQconninfoOption* o = opts; o->keyword != nullptr; ++o) {
    if (o->val != nullptr && std::string_view(o->keyword) == "password") password = o->val;
  }
  PQconninfoFree(opts);
  return password;
}

}  // namespace

std::string RedactDsn(const std::string& dsn) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(dsn.c_str(), &err);
  if (err != nullptr) PQfreemem(err);
  if (opts == nullptr) return "<unparseable DSN>";
  std::string out;
  for (PQconninfoOption* o = opts; o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    std::string_view key(o->keyword);
    if (!out.empty()) out += ' ';
    out += std::string(key) + '=' + (key == "password" ? std::string("***") : QuoteValue(o->val));
  }
  PQconninfoFree(opts);
  return out;
}

Status ValidateDsn(const std::string& dsn) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(dsn.c_str(), &err);
  std::string message = err != nullptr ? err : "";
  if (err != nullptr) PQfreemem(err);
  if (opts != nullptr) {
    PQconninfoFree(opts);
    return Status::Ok();
  }
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  return Status::Usage("--dsn: libpq cannot parse the connection string: " +
                       RedactPasswordIn(message, dsn));
}

std::string RedactPasswordIn(const std::string& text, const std::string& dsn) {
  std::string password = PasswordOf(dsn);
  if (password.empty()) {
    // Unparseable DSN: mask what looks like a password (URI user:pw@ and password=…).
    static const std::regex kUri(R"((://[^:/@\s]*:)[^@\s]*@)");
    static const std::regex kKey(R"((password\s*=\s*)('[^']*'|\S+))", std::regex::icase);
    return std::regex_replace(std::regex_replace(text, kUri, "$1***@"), kKey, "$1***");
  }
  std::string out = text;
  for (size_t pos = out.find(password); pos != std::string::npos; pos = out.find(password, pos + 3)) {
    out.replace(pos, password.size(), "***");
  }
  return out;
}

}  // namespace racelab
