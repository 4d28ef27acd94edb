// ConnectionId: who a database connection is when an engine has several nodes (docs/architecture.md
// "Words": node, connection). Plain data; the engine interface (harness/engine/session.h) hands it
// out, run/, waits and faults key on it.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>

namespace racelab {

// The one node of a single-server engine (PostgreSQL, MariaDB, SQLite): a role without `node:` runs
// there, and `node: server` names it (docs/scenario-format.md "Nodes").
inline constexpr const char* kServerNode = "server";

// Who a connection is: its node (Engine::nodes()) and the id the server gives it there
// (Session::session_id()). Ids are unique per server only, so run/, waits and faults key on both
// (docs/architecture.md "Words": node, connection).
struct ConnectionId {
  std::string node;
  int64_t id = 0;
  friend bool operator<(const ConnectionId& a, const ConnectionId& b) {
    return std::tie(a.node, a.id) < std::tie(b.node, b.id);
  }
  friend bool operator==(const ConnectionId& a, const ConnectionId& b) {
    return a.id == b.id && a.node == b.node;
  }
  friend bool operator!=(const ConnectionId& a, const ConnectionId& b) { return !(a == b); }
};

}  // namespace racelab
