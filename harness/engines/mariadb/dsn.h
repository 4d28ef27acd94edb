// MariaDB connection URLs: `mariadb://[user[:password]@][host][:port][/database][?socket=/path]`
// (`mysql://` is the same). Percent-escapes are decoded in every part. No host or host
// "localhost" with a `socket` parameter connects over that Unix socket; otherwise TCP (port 3306 by
// default, MariaDB's).
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
// password (a mariadb:// URL always may: user:password@).
bool LooksLikeMariaDbDsn(std::string_view arg);
bool MariaDbDsnMayHoldPassword(std::string_view dsn);

// Errors: kUsage naming what is wrong, never with the password.
Result<ConnectTarget> ParseMariaDbDsn(const std::string& dsn);

// The DSN with its password replaced by "***" (for reports and messages).
std::string RedactMariaDbDsn(const std::string& dsn);

}  // namespace racelab::mariadb
