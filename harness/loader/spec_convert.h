// Spec convert: one permutation of an isolation spec -> an equivalent racelab scenario (YAML text),
// as far as the scenario format can say it (`racelab convert`, docs/scenario-format.md "PostgreSQL
// isolation spec files").
//
// The total order becomes barriers: where the order hands over from session A's step to session B's,
// A meets a fresh barrier right after its step and B right before its own. A step that blocks cannot
// reach a barrier after itself, so for a blocking step A meets the barrier right *before* it and B then
// waits with `await_blocked: A` (a lock wait the monitor sees). Which steps block is known only from a
// run: the steps named in `blocking` (from the spec's expected output, see BlockingStepsFromExpected)
// plus every step with a marker. Session setup and teardown become the session's first and last sql
// steps, met by barriers so that every setup runs before the first step and every teardown after the
// last. Every step gets `on_error: continue` (isolationtester goes on after an error). The YAML begins
// with comments that say what it could not carry over.
// Thread-safety: pure functions.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "harness/loader/spec_permutations.h"
#include "harness/model/isolation_spec.h"
#include "harness/model/status.h"

namespace racelab {

struct ConvertedScenario {
  std::string name;  // the scenario's name: "<file stem>-<permutation number>" in [a-z0-9-]
  std::string yaml;
};

// `number` is the permutation's 1-based number among `ExpandSpecPermutations(spec)`; `blocking` the
// names of the steps that wait on a lock in this permutation.
ConvertedScenario ConvertSpecPermutation(const IsolationSpec& spec, const StepOrder& order, size_t number,
                                         const std::set<std::string>& blocking);

// The steps reported "<waiting ...>" in each permutation of an isolationtester output (expected/X.out):
// one set per "starting permutation:" block, in file order. kUsage when the output's permutations are
// not `orders` (a different spec, or another variant).
Result<std::vector<std::set<std::string>>> BlockingStepsFromExpected(const IsolationSpec& spec,
                                                                     const std::vector<StepOrder>& orders,
                                                                     const std::string& expected_text,
                                                                     const std::string& expected_file);

}  // namespace racelab
