// The rule every engine's connection URI (postgresql://, mariadb://, mysql://) shares for finding
// its user info, so that no engine's parser can read a piece of a password as a host, a port, a
// database or a query parameter, and redaction (README "Passwords") never shows such a piece.
//
// A URI's user info ends at its '@'. A password written with a raw '/'
// (`postgresql://u:pa/ss@h/db`) or '@' (`mariadb://u:p@ss@h`) makes that '@' ambiguous: libpq would
// read host "u", port "pa" and database "ss@h/db". racelab therefore accepts a URI only when it has
// at most one '@' and that '@' comes before the first '/' after "scheme://"; any other URI is
// refused whole (nothing of it shown). A '@' anywhere else (in a database name or a query value) is
// written %40, a '/' in user info %2F. Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace racelab {

// Shown in place of a connection string that cannot be parsed safely, whatever the engine.
inline constexpr std::string_view kUnparseableDsnText = "<unparseable DSN>";

struct UriUserInfo {
  bool ambiguous = false;    // more than one '@', or an '@' after the first '/': refuse the URI
  std::optional<size_t> at;  // index of the '@' that ends the user info; nullopt: no user info
};

// Where the user info of `uri` ends; `body` is the index just after "scheme://".
UriUserInfo FindUriUserInfo(std::string_view uri, size_t body);

// Why an ambiguous URI is refused, without any piece of it (for an error message).
inline constexpr std::string_view kAmbiguousUriProblem =
    "the URI has an '@' that is not the single one before the host (more than one '@', or one "
    "after a "
    "'/'): write '@' as %40 and '/' as %2F in a user name, a password, a database name or a query "
    "value";

// "1st", "2nd", "3rd", "11th", "21st": which query parameter of a DSN an error means (the
// parameter's name or value could be a piece of a password, so messages name its place instead).
std::string Ordinal(size_t n);

}  // namespace racelab
