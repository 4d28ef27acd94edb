// Spec permutations: the orders a spec file runs (the planner's expansion of an IsolationSpec).
//
// A spec with `permutation` lines runs those, in file order. One without runs every interleaving of
// its sessions' steps that keeps each session's own steps in order, in isolationtester's order
// (depth first, the lowest-numbered session's next step first): sessions of n1, n2, … steps give
// (n1+n2+…)! / (n1!·n2!·…) orders. Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "harness/model/isolation_spec.h"
#include "harness/model/status.h"

namespace racelab {

// Most orders one spec may expand to: beyond it a spec without permutation lines is a usage error
// that says how many it would have.
inline constexpr size_t kMaxSpecPermutations = 10000;

// The orders to run. Errors (kUsage): more than kMaxSpecPermutations interleavings.
Result<std::vector<StepOrder>> ExpandSpecPermutations(const IsolationSpec& spec);

}  // namespace racelab
