// Spec permutations: the orders a spec file runs (the planner's expansion of an IsolationSpec).
//
// A spec with `permutation` lines runs those, in file order. One without runs every interleaving of
// its sessions' steps that keeps each session's own steps in order, in isolationtester's order
// (depth first, the lowest-numbered session's next step first): sessions of n1, n2, … steps give
// (n1+n2+…)! / (n1!·n2!·…) orders. Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "harness/loader/limits.h"
#include "harness/model/isolation_spec.h"
#include "harness/model/status.h"

namespace racelab {

// Most orders one spec may expand to: beyond it a spec without permutation lines is a usage error
// at the step that takes the count past it (limits.h "Spec files").
inline constexpr size_t kMaxSpecPermutations = limits::kMaxSpecPermutations;

// How many orders ExpandSpecPermutations(spec) gives, counted without building them (the
// multinomial coefficient when the spec has no permutation lines), with the same errors. Errors
// (kUsage, "FILE:LINE:COL: …"): more than kMaxSpecPermutations interleavings, named at the step
// that takes the count past it; more than limits::kMaxSpecPlanSteps steps in all the orders
// together.
Result<size_t> CountSpecPermutations(const IsolationSpec& spec);

// The orders to run, built iteratively (no recursion: a session may have any number of steps).
// Errors: those of CountSpecPermutations, before anything is built.
Result<std::vector<StepOrder>> ExpandSpecPermutations(const IsolationSpec& spec);

// `order` (one of `spec`'s) as the spec's permutation line writes it: each step's name (quoted when
// it is not a plain identifier, or is a keyword) with its markers "(*)", "(s1a)", "(s1a notices
// 2)", several joined by ", "; steps joined by one space. `markers` false: the names only.
std::string WrittenPermutation(const IsolationSpec& spec, const StepOrder& order,
                               bool markers = true);

// The indices in `orders` (ExpandSpecPermutations(spec)) of the orders that `selectors`
// (`--permutation` values) name, ascending. A selector names an order by its 1-based number, by the
// permutation as the spec writes it (markers included; blanks between tokens and quoting of plain
// names do not matter), or by its step names alone (as isolationtester's "starting permutation:"
// line prints them; these name every order with those steps, whatever its markers). Empty
// `selectors`: every order. Errors (kUsage), before anything runs: a selector that names no order —
//   "FILE: --permutation 7 names none of its 4 permutations; give a number from 1 to 4, the
//   permutation as the spec writes it (markers included) or its step names alone:" then one line
//   per order "  N: WRITTEN" (at most kMaxListedPermutations, then how many more).
Result<std::vector<size_t>> SelectSpecPermutations(const IsolationSpec& spec,
                                                   const std::vector<StepOrder>& orders,
                                                   const std::vector<std::string>& selectors);

// Most permutations one selection error lists.
inline constexpr size_t kMaxListedPermutations = 40;

}  // namespace racelab
