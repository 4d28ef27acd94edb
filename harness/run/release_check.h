// Whether a barrier release could be, and was, simultaneous — so a report never presents as
// "started together" a race whose participants were not (docs/performance.md "Barrier release
// skew").
//
// A release is marked not simultaneous when
//   - the barrier had more participants than online CPUs: some of them were not running when it
//     came, and the scheduler, not racelab, decided who went first; or
//   - its skew (first-to-last send after the release) exceeded kSimultaneousSkewUs: some
//   participant
//     was descheduled or woke late (a loaded machine).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "harness/model/trial_result.h"

namespace racelab {

// Skew above which a release is reported as not simultaneous, µs. 100 µs is a few round trips on a
// local socket, and the barrier's own measured p95 on a loaded 2-core machine is 20–30 µs.
inline constexpr int64_t kSimultaneousSkewUs = 100;

// Fills BarrierRelease::simultaneous and ::not_simultaneous. `parties` maps a barrier name to its
// participant count (a name missing from it is judged by its skew alone); `online_cpus` >= 1.
void JudgeReleases(std::vector<BarrierRelease>* releases, const std::map<std::string, int>& parties,
                   int online_cpus);

}  // namespace racelab
