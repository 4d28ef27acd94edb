// The planner's part of `order:` (docs/scenario-format.md "Ordered steps and permutations"): one
// PlanItem per permutation, whose sessions run only the permutation's steps, in its order, with a
// hand-over wherever the permutation passes from one session to another (harness/run/order_gate.h).
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "harness/model/plan.h"
#include "harness/model/scenario.h"
#include "harness/model/status.h"

namespace racelab {

// The name of the parameter that tells a permutation's results apart in the reports (its value is
// PermutationName); a scenario may not declare a param of that name.
inline constexpr const char* kOrderParam = "order";

// "a.claim b.claim a.commit b.commit".
std::string PermutationName(const Permutation& perm);

// Rewrites `item` (planned from an ordered scenario, every session's steps as in the file) to run
// `perm`: each session keeps the steps `perm` names, in its order; PlanItem::handovers and the steps'
// await_handover/signal_handover say who waits for whom; params gain order=<PermutationName>.
// Errors: kUsage when a session the permutation names has more than one instance (count from --set).
Status ApplyPermutation(const Permutation& perm, PlanItem* item);

}  // namespace racelab
