#include "harness/engines/postgresql/dsn.h"

#include <libpq-fe.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "harness/model/dsn_uri.h"

namespace racelab::pg {
namespace {

using Options = std::vector<std::pair<std::string, std::string>>;  // keyword, value; as given

struct ConninfoFree {
  void operator()(PQconninfoOption* o) const { PQconninfoFree(o); }
};

bool IsUri(std::string_view s);
bool IsConnectionString(std::string_view v);

// The options set in `dsn`, in libpq's keyword order, or nullopt when libpq cannot parse it or it
// cannot be parsed safely: a URI whose '@' is ambiguous (harness/model/dsn_uri.h: libpq would read
// pieces of the password as host, port and dbname), a port that is not a number (list), or a dbname
// that is such a connection string.
std::optional<Options> Parse(const std::string& dsn) {
  if (IsUri(dsn) && FindUriUserInfo(dsn, dsn.find("://") + 3).ambiguous) return std::nullopt;
  char* err = nullptr;
  std::unique_ptr<PQconninfoOption, ConninfoFree> opts(PQconninfoParse(dsn.c_str(), &err));
  if (err != nullptr) PQfreemem(err);  // may quote the password: never shown
  if (!opts) return std::nullopt;
  Options out;
  for (PQconninfoOption* o = opts.get(); o->keyword != nullptr; ++o) {
    if (o->val != nullptr) out.emplace_back(o->keyword, o->val);
  }
  for (const auto& [key, value] : out) {
    if (key == "dbname" && IsConnectionString(value) && !Parse(value)) return std::nullopt;
    // A port that is not a number list is a piece of something else — "postgresql://u:secret" reads
    // host u, port secret — and libpq's error would quote it.
    if (key == "port" && value.find_first_not_of("0123456789,") != std::string::npos)
      return std::nullopt;
  }
  return out;
}

bool IsUri(std::string_view s) {
  return s.substr(0, 13) == "postgresql://" || s.substr(0, 11) == "postgres://";
}

// Whether a dbname value is itself a connection string (libpq expands such a dbname, §34.1.2).
bool IsConnectionString(std::string_view v) {
  return IsUri(v) || v.find('=') != std::string_view::npos;
}

std::string Join(const Options& options) {
  std::string out;
  for (const auto& [key, value] : options) {
    if (!out.empty()) out += ' ';
    out += key + '=';
    if (key == "password") {
      out += kRedacted;
    } else if (key == "dbname" && IsConnectionString(value)) {
      out += QuoteConninfoValue(RedactDsn(value));
    } else {
      out += QuoteConninfoValue(value);
    }
  }
  return out;
}

// Every password in `options` (a dbname that is a connection string included), as libpq stores it.
void CollectPasswords(const Options& options, std::vector<std::string>* out) {
  for (const auto& [key, value] : options) {
    if (key == "password" && !value.empty()) out->push_back(value);
    if (key == "dbname" && IsConnectionString(value)) {
      if (auto nested = Parse(value)) CollectPasswords(*nested, out);
    }
  }
}

}  // namespace

std::string QuoteConninfoValue(std::string_view v) {
  bool needs = v.empty();
  for (char c : v)
    needs = needs || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' ||
            c == '\'' || c == '\\';
  if (!needs) return std::string(v);
  std::string out = "'";
  for (char c : v) {
    if (c == '\'' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "'";
}

std::string RedactDsn(const std::string& dsn) {
  auto options = Parse(dsn);
  if (!options) return std::string(kUnparseableDsn);
  return Join(*options);
}

Status ValidateDsn(const std::string& dsn) {
  if (Parse(dsn)) return Status::Ok();
  return Status::Usage(
      "--dsn: libpq cannot parse the connection string: " + internal::DescribeDsnParseError(dsn) +
      " (the connection string is not shown: it may contain a password)");
}

bool LooksLikeDsn(std::string_view arg) {
  if (IsUri(arg)) return true;
  if (arg.find('=') == std::string_view::npos) return false;
  auto options = Parse(std::string(arg));
  if (!options) return false;
  std::vector<std::string> passwords;
  CollectPasswords(*options, &passwords);
  return !passwords.empty() || std::any_of(options->begin(), options->end(),
                                           [](const auto& kv) { return kv.first == "password"; });
}

bool MayHoldPassword(std::string_view dsn) {
  return IsUri(dsn) || dsn.find("password") != std::string_view::npos;
}

std::string RedactLibpqMessage(const std::string& message, const std::string& dsn) {
  std::vector<std::string> secrets;
  if (auto options = Parse(dsn)) CollectPasswords(*options, &secrets);
  secrets.push_back(dsn);
  // Walk the message by its double-quoted segments; a segment whose content is a secret (or
  // contains the whole DSN) is replaced. Text outside quotes is libpq's own wording and stays as it
  // is.
  std::string out;
  size_t pos = 0;
  while (pos < message.size()) {
    size_t open = message.find('"', pos);
    size_t close = open == std::string::npos ? std::string::npos : message.find('"', open + 1);
    if (close == std::string::npos) {
      out.append(message, pos, std::string::npos);
      break;
    }
    out.append(message, pos, open + 1 - pos);
    std::string_view inside(message.data() + open + 1, close - open - 1);
    bool secret = std::any_of(secrets.begin(), secrets.end(), [&](const std::string& s) {
      return inside == s ||
             (s == dsn && !dsn.empty() && inside.find(dsn) != std::string_view::npos);
    });
    if (secret) {
      out += kRedacted;
    } else {
      out.append(inside);
    }
    out += '"';
    pos = close + 1;
  }
  return out;
}

Result<std::string> ConninfoWithOverrides(const std::string& dsn, const Options& overrides) {
  auto options = Parse(dsn);
  if (!options) return ValidateDsn(dsn);
  for (const auto& [key, value] : overrides) {
    auto it = std::find_if(options->begin(), options->end(),
                           [&](const auto& kv) { return kv.first == key; });
    if (it != options->end()) {
      it->second = value;
    } else {
      options->emplace_back(key, value);
    }
  }
  std::string out;
  for (const auto& [key, value] : *options)
    out += (out.empty() ? "" : " ") + key + "=" + QuoteConninfoValue(value);
  return out;
}

}  // namespace racelab::pg
