// A trial as plain text, for places that show no tables or markup: JUnit <system-out> (Jenkins and
// GitLab show it verbatim in a test's page).
//
// Layout: one heading line ("trial 2 of 20: fail, 12.345 ms"), the trial error if any, then one
// line per step, times in ms since the trial's start:
//   "  1.234 ms  worker.1  claim: 40001 could not serialize access … [blocked 2.000 ms by
//   worker.2]"
// then barrier releases, final values and the failed checks. Trials are numbered from 1.
// Thread-safety: pure function.
#pragma once

#include <string>

#include "harness/model/summary.h"

namespace racelab::internal {

std::string TrialStepsText(const TrialVerdict& trial, int trials_in_result);

}  // namespace racelab::internal
