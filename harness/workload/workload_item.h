// The workload model of `racelab bench` (docs/bench.md "What one transaction is"): a scenario's
// plan item turned into rounds that a benchmark repeats, and the invariant every round is judged
// by.
//
// A round is one trial of the runner without its forcing: every session of the item is one client
// on its own connection; each runs its session's steps once — one transaction, retried by the
// role's `retry:` — with no barrier and no `await_blocked` (those force an interleaving; a workload
// lets the clients race). Everything else runs as written: `sleep_ms` (a hold), `when`, captures.
// Before each round the workspace is put back as the runner does for a trial (`reset:` where the
// scenario has one and the engine checks it, else a fresh workspace and `setup:`), so each round
// offers the same queued work; after it the scenario's final queries run.
//
// The invariant (ClaimCheck): a claim scenario (an `outcome.win` step) must not hand one unit of
// work to two clients in a round: with an `outcome.claim` column, no two winners may claim the same
// value; without one, the round has one unit and at most one winner. A round with more is a double
// claim. A scenario without `outcome.win` has no invariant here ("n/a").
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "harness/model/plan.h"
#include "harness/model/status.h"
#include "harness/model/trial_result.h"

namespace racelab::workload {

// `item` as rounds: barrier and await_blocked steps dropped, the order of an ordered item
// (`order:`) not followed, `trials` left to the driver. Errors: kUsage when a session would be left
// with no step.
Result<PlanItem> WorkloadItem(const PlanItem& item);

// What WorkloadItem dropped, for the output: "barriers go, claimed; await_blocked" or "nothing".
std::string DroppedSteps(const PlanItem& item);

// One round's claims judged (SessionResult::won and ::claim must have been filled: EvaluateTrial).
struct ClaimCheck {
  bool applies = false;  // the item has an outcome.win step
  int winners = 0;
  int double_claims = 0;  // winners beyond one per claimed value (per round without a claim column)
};
ClaimCheck CheckClaims(const PlanItem& item, const std::vector<SessionResult>& sessions);

}  // namespace racelab::workload
