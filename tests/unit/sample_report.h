// A hand-built RunReport for reporter tests: no database, fixed timings, fixed created_at.
//
// Two results: guarded-cas-claim at read committed (pass) and naive-select-then-update at
// serializable (fail: one deliberately awkward final-state expectation fails in 1 of 2 trials).
// Both have events, lock waits with blockers, barrier releases, captures and final values; the
// strings include characters that every format must escape (< & " ' |). Golden files under
// tests/golden/ are written from it.
// Thread-safety: plain values.
#pragma once

#include <memory>

#include "harness/model/plan.h"
#include "harness/model/summary.h"

namespace racelab::testing {

// Owns the PlanItems the summaries point to (ResultSummary::item), so keep it alive with the
// report. Not copyable or movable: the report's pointers refer to `plan`.
struct SampleRun {
  SampleRun() = default;
  SampleRun(const SampleRun&) = delete;
  SampleRun& operator=(const SampleRun&) = delete;

  Plan plan;
  RunReport report;
};

std::unique_ptr<SampleRun> MakeSampleRun();

}  // namespace racelab::testing
