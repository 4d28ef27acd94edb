// The planner's part of `order:` (docs/scenario-format.md "Ordered steps and permutations"): one
// PlanItem per permutation, whose sessions run only the permutation's steps, in its order, with a
// hand-over wherever the permutation passes from one session to another (harness/run/order_gate.h).
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "harness/model/plan.h"
#include "harness/model/scenario.h"
#include "harness/model/status.h"

namespace racelab {

// The name of the parameter that tells a permutation's results apart in the reports (its value is
// PermutationName); a scenario may not declare a param of that name.
inline constexpr const char* kOrderParam = "order";

// One entry as written: "a.write", "a.write(*)", "a.write(*, b.commit)".
std::string EntryName(const OrderEntry& entry);
// The entries joined by spaces: "a.claim b.claim(*) a.commit b.commit".
std::string PermutationName(const Permutation& perm);

// Rewrites `item` (planned from an ordered scenario, every session's steps as in the file) to run
// `perm`: each session runs the steps `perm` names, in its order, each as often as it is named;
// PlanItem::order_entries and the steps' order_entry/await_entry/await_ended say who waits for whom
// (isolationtester's rule, markers included); params gain order=<PermutationName>.
// Errors: kUsage when a session the permutation names has more than one instance (count from
// --set).
Status ApplyPermutation(const Permutation& perm, PlanItem* item);

// `--permutation` on a run of scenario files: keeps, of each ordered scenario's items, the
// permutations `only` names — by 1-based number in the file's `order:` or by PermutationName
// ("a.begin b.begin(*) …", with its markers as written) — and leaves items of unordered scenarios
// alone. `only` empty: nothing changes. kUsage when no ordered item matches (the message lists
// every ordered scenario's permutations, each as FILE:LINE:COL: order[i]: NAME (--permutation
// i+1)), or when no selected scenario has `order:`. Otherwise `notes` (optional) gets, for a
// person, per ordered scenario what runs and what is skipped (each permutation as in the error; a
// scenario none of whose permutations matches is skipped whole), then the scenarios without
// `order:`, which run whole.
Status KeepPermutations(const std::vector<std::string>& only, std::vector<PlanItem>* items,
                        std::vector<std::string>* notes = nullptr);

}  // namespace racelab
