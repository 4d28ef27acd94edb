// MariaDB connection URLs: `mariadb://[user[:password]@][host][:port][/database][?key=value&…]`
// (`mysql://` is the same). Query parameters: `socket` (a Unix socket path), `user` and `password`
// (instead of, or overriding, the user info). Percent-escapes are decoded in every part. No host or
// host "localhost" with a `socket` parameter connects over that Unix socket; otherwise TCP (port
// 3306 by default, MariaDB's).
//
// One parse serves connecting, messages and redaction: the user info ends at the URL's single '@',
// which must come before the first '/' (harness/model/dsn_uri.h, the rule PostgreSQL URIs follow
// too), so a password with a raw '/', '?', ':' or '#' is read whole and no piece of it can become a
// host, port, database or parameter. A URL that does not parse is never shown, and an error about
// it names the part that is wrong, never a value (a value could be a piece of the password).
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "harness/engines/mariadb/connection.h"
#include "harness/model/status.h"

namespace racelab::mariadb {

// Whether `dsn` starts with mariadb:// or mysql://.
bool IsMariaDbDsn(const std::string& dsn);
// The same for a command-line argument (OpenEngine's LooksLikeDsn), and whether it may carry a
// password (a mariadb:// URL always may: user:password@, ?password=).
bool LooksLikeMariaDbDsn(std::string_view arg);
bool MariaDbDsnMayHoldPassword(std::string_view dsn);

// Errors: kUsage "--dsn: <which part is wrong> (the connection string is not shown: …)", never with
// any value of the URL.
Result<ConnectTarget> ParseMariaDbDsn(const std::string& dsn);

// The DSN as written with every password (user info and `password=` parameter) replaced by "***",
// e.g. "mariadb://u:***@h:3307/db?password=***"; "<unparseable DSN>" when ParseMariaDbDsn refuses
// it.
std::string RedactMariaDbDsn(const std::string& dsn);

}  // namespace racelab::mariadb
