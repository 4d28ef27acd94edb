// DSN handling: validation and redaction of libpq connection strings (URI or key=value).
//
// One redaction path: every password is found by PARSING the connection string the way libpq does
// (PQconninfoParse; URI user info and query parameters with percent-encoding; key=value with quotes
// and backslash escapes — PostgreSQL docs §34.1.1), never by searching text for the password, so a
// one-letter password or one equal to a common word cannot mangle a message or be revealed by it.
// A string libpq cannot parse is never echoed at all.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/model/dsn_uri.h"
#include "harness/model/status.h"

namespace racelab::pg {

// Shown in place of a password, and of a whole connection string libpq cannot parse.
inline constexpr std::string_view kRedacted = "***";
inline constexpr std::string_view kUnparseableDsn = kUnparseableDsnText;

// The DSN in key=value form with any password replaced by ***, e.g. "postgresql://u:pw@h/db" ->
// "user=u password=*** host=h dbname=db" (libpq's PQconninfoParse decides the keys). A dbname that
// is itself a connection string is redacted the same way. kUnparseableDsn when libpq cannot parse
// it, or when it cannot be parsed safely: a URI whose '@' is ambiguous (harness/model/dsn_uri.h),
// as in postgresql://u:pa/ss@h/db, where libpq would read the password's pieces as host, port and
// dbname.
std::string RedactDsn(const std::string& dsn);

// kUsage error when libpq cannot parse `dsn`, or it cannot be parsed safely (RedactDsn). The
// message says which part is malformed (e.g. "the password in the URI has a malformed
// percent-escape", "key=value pair 3 has no '='") and never quotes a value or libpq's own message
// (which quotes the raw text, password included).
Status ValidateDsn(const std::string& dsn);

// Whether a command-line argument is a connection string that may carry a password: a
// postgres:// or postgresql:// URI, or key=value text libpq parses and that sets `password`.
bool LooksLikeDsn(std::string_view arg);

// Whether a connection string can carry a password at all: a URI (user info or query), or text that
// contains the keyword `password` (libpq keywords are case-sensitive). "dbname=app" cannot.
bool MayHoldPassword(std::string_view dsn);

// A message from libpq or the server about a connection made with `dsn`, with every double-quoted
// value that is the DSN's password (as given, or as written in the DSN) replaced by "***", and the
// DSN itself, if quoted whole, replaced by its redaction. Words outside quotes are never touched.
std::string RedactLibpqMessage(const std::string& message, const std::string& dsn);

// `dsn` (which must parse) as key=value text with `overrides` (keyword, value) replacing or adding
// options, e.g. {{"user", "racelab_role_…"}, {"password", "…"}}. kUsage when `dsn` does not parse.
Result<std::string> ConninfoWithOverrides(
    const std::string& dsn, const std::vector<std::pair<std::string, std::string>>& overrides);

// Quotes a key=value value the way libpq reads it (PostgreSQL docs §34.1.1.1): as is when it has no
// space, quote or backslash and is not empty, else in single quotes with \' and \\ escaped.
std::string QuoteConninfoValue(std::string_view value);

}  // namespace racelab::pg

namespace racelab::internal {

// Which part of a connection string libpq refused, without any value: used by ValidateDsn.
// Exposed for tests.
std::string DescribeDsnParseError(std::string_view dsn);

}  // namespace racelab::internal
