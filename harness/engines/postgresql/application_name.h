// The application_name racelab sends in a connection's start-up packet: what pg_stat_activity shows
// for it. PostgreSQL keeps at most NAMEDATALEN - 1 = 63 bytes of it, and only printable ASCII (it
// replaces other bytes; PostgreSQL docs §20.8.1 application_name) — but the whole start-up packet
// must fit in 10,000 bytes, or the server closes the connection before it answers. So every label
// (a session's, from a scenario or a spec file) is cut and cleaned here first, on every connection
// path (Connection::Open, SpecDatabase).
// Thread-safety: pure function.
#pragma once

#include <string>
#include <string_view>

namespace racelab::pg {

// NAMEDATALEN - 1: the bytes of an identifier (and of application_name) PostgreSQL keeps.
inline constexpr size_t kMaxApplicationNameBytes = 63;

// `label` with every byte outside printable ASCII (0x20–0x7e) replaced by '?', cut to its first
// kMaxApplicationNameBytes bytes.
inline std::string ApplicationName(std::string_view label) {
  std::string out(label.substr(0, kMaxApplicationNameBytes));
  for (char& c : out) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u > 0x7e) c = '?';
  }
  return out;
}

}  // namespace racelab::pg
