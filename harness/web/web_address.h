// Where `racelab step --web [HOST:]PORT` listens (docs/step.md "In a browser"): the address parsed,
// whether it is this machine only (loopback), and the checks a request passes before it is served
// — its Host header names the address it was sent to (a page of another site that rebinds a name
// to 127.0.0.1 cannot drive the walk), and its token matches when one is set.
//
// Thread-safety: plain functions on values.
#pragma once

#include <string>

#include "harness/model/status.h"

namespace racelab::web {

struct WebAddress {
  std::string host = "127.0.0.1";  // a name or a numeric address, IPv6 without its brackets
  int port = 0;                    // 0: any free port (the server says which)
};

// "8080", ":8080", "127.0.0.1:8080", "localhost:0", "[::1]:8080", "0.0.0.0:8080". kUsage with what
// is wrong: no port, a port outside 0-65535, an empty host.
Result<WebAddress> ParseWebAddress(const std::string& text);

// 127.0.0.0/8, ::1 and "localhost": reachable from this machine only.
bool IsLoopbackHost(const std::string& host);

// A request's Host header against the address served: for a loopback address it must name a
// loopback host and the port served ("127.0.0.1:8080", "localhost:8080", "[::1]:8080"); for any
// other address every Host passes (the token guards it).
bool HostHeaderAllowed(const std::string& host_header, const WebAddress& served);

// Compares two strings in time that depends on their lengths only.
bool SameToken(const std::string& a, const std::string& b);

}  // namespace racelab::web
