// Spec convert: an isolation spec's permutations -> one equivalent racelab scenario (YAML text)
// with `order:` (`racelab convert`, docs/scenario-format.md "PostgreSQL isolation spec files").
//
// Each spec session becomes a session whose steps are its setup (step `setup`), its steps and its
// teardown (step `teardown`), every one with `on_error: continue` (isolationtester goes on after an
// error). Each permutation becomes one entry of `order:`: every session's setup, the permutation's
// steps with their markers `(*)` and `(other)` — isolationtester's rule, which `order:` follows
// (the next step starts once the one before it ended or is seen waiting) — then every session's
// teardown. A step listed twice is listed twice. What the format cannot carry is listed in comments
// at the top of the YAML: the marker `notices N` (dropped: the runner counts no NOTICE), the rows
// steps return, several setup blocks (joined), the public schema. Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "harness/loader/spec_permutations.h"
#include "harness/model/isolation_spec.h"

namespace racelab {

struct ConvertedScenario {
  std::string name;  // the scenario's name: the spec file's stem in [a-z0-9-]
  std::string yaml;
};

// One selected permutation: its 1-based number among ExpandSpecPermutations(spec), and the order.
struct NumberedOrder {
  size_t number = 0;
  const StepOrder* order = nullptr;
};

// The scenario running `orders` (at least one), in the order given.
ConvertedScenario ConvertSpec(const IsolationSpec& spec, const std::vector<NumberedOrder>& orders);

}  // namespace racelab
