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

// A marker with the step it names resolved.
struct OrderedBlocker {
  SpecBlocker::Kind kind = SpecBlocker::Kind::kOnce;
  int session = -1;  // kStep, kNotices: the session of the named step
  int step = -1;     // kStep, kNotices: the named step's index in that session
  int notices = 0;   // kNotices
};

// One step of a total order: which session runs which of its steps, and its markers.
struct OrderedStep {
  int session = 0;  // index into IsolationSpec::sessions
  int step = 0;     // index into that session's steps
  std::vector<OrderedBlocker> blockers;
};

struct StepOrder {
  std::string name;                // "s1a s2a s1c …": the step names, as isolationtester prints them
  std::vector<OrderedStep> steps;
};

// Most orders one spec may expand to: beyond it a spec without permutation lines is a usage error
// that says how many it would have.
inline constexpr size_t kMaxSpecPermutations = 10000;

// The orders to run. Errors (kUsage): more than kMaxSpecPermutations interleavings.
Result<std::vector<StepOrder>> ExpandSpecPermutations(const IsolationSpec& spec);

}  // namespace racelab
