// Node check: the plan meets the engine. A role may name its node (`node: standby1`,
// docs/scenario-format.md "Nodes"); which nodes exist is the engine's to say (Engine::nodes()),
// known only once it is opened — the loader and planner cannot connect. CheckNodes runs then,
// before any item runs, and a node the engine does not have is a usage error (exit 2) naming the
// file, line, column and field, e.g.
//   "x.yaml:7:11: sessions[1].node: postgresql has no node 'standby1' (its nodes: server)".
// Thread-safety: a pure function.
#pragma once

#include <string>
#include <vector>

#include "harness/model/plan.h"
#include "harness/model/status.h"

namespace racelab {

// OK when every session of `items` is on one of `nodes` (a session without `node:` is on the first,
// the engine's default); else kUsage for the first that is not. `engine` names the engine in the
// message.
Status CheckNodes(const std::vector<PlanItem>& items, const std::string& engine,
                  const std::vector<std::string>& nodes);

}  // namespace racelab
