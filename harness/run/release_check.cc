#include "harness/run/release_check.h"

#include <fmt/format.h>

namespace racelab {

void JudgeReleases(std::vector<BarrierRelease>* releases, const std::map<std::string, int>& parties,
                   int online_cpus) {
  for (BarrierRelease& r : *releases) {
    r.simultaneous = true;
    r.not_simultaneous.clear();
    auto it = parties.find(r.barrier);
    if (it != parties.end() && it->second > online_cpus) {
      r.simultaneous = false;
      r.not_simultaneous =
          fmt::format("{} participants on {} online CPUs", it->second, online_cpus);
    }
    if (r.skew_us > kSimultaneousSkewUs) {
      r.simultaneous = false;
      const std::string skew = fmt::format("skew {} µs > {} µs", r.skew_us, kSimultaneousSkewUs);
      r.not_simultaneous = r.not_simultaneous.empty() ? skew : r.not_simultaneous + "; " + skew;
    }
  }
}

}  // namespace racelab
