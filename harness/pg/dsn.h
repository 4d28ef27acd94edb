// DSN handling: validation and redaction of libpq connection strings (URI or key=value).
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "harness/model/status.h"

namespace racelab {

// The DSN with any password removed, in key=value form (libpq's PQconninfoParse decides what the
// keys are, so both "postgresql://u:pw@h/db" and "host=h password=pw" are handled). A DSN libpq cannot
// parse is returned as "<unparseable DSN>" — never echoed, since it may contain a password.
std::string RedactDsn(const std::string& dsn);

// kUsage error (without the DSN's password) when libpq cannot parse `dsn`.
Status ValidateDsn(const std::string& dsn);

// Replaces the password in free text (e.g. a libpq error message or argv) when it appears verbatim.
std::string RedactPasswordIn(const std::string& text, const std::string& dsn);

}  // namespace racelab
