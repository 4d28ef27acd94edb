// CountRange: a planned count that an expectation checks — exactly n, or within bounds (issue 11
// item 4a: outcomes that vary between trials). `winners`, `lock_waits`, each `sqlstates` count,
// `step_rows[].sessions` and `errors[].sessions` are CountRanges (harness/model/plan.h); the file
// writes one as an expression (`winners: 1`, exactly) or as `{at_least: E, at_most: E}` with one or
// both bounds (docs/scenario-format.md "Counts that vary between trials").
//
// A bound is an integer count >= 0; min <= max (the planner refuses the file otherwise).
// Thread-safety: a plain value.
#pragma once

#include <optional>
#include <string>

namespace racelab {

struct CountRange {
  long min = 0;             // at least this many (0: no lower bound)
  std::optional<long> max;  // at most this many; nullopt: no upper bound

  CountRange() = default;
  // Exactly n. Implicit, so that an exact count reads as one: `expect.winners = 1`.
  CountRange(long n) : min(n), max(n) {}  // NOLINT(google-explicit-constructor)
  static CountRange Between(long at_least, std::optional<long> at_most) {
    CountRange r;
    r.min = at_least;
    r.max = at_most;
    return r;
  }

  bool exact() const { return max && *max == min; }
  bool Holds(long n) const { return n >= min && (!max || n <= *max); }

  // How a check text states it: "= 1" (exact, today's texts), ">= 1 and <= 2", ">= 1", "<= 2".
  std::string Text() const {
    if (exact()) return "= " + std::to_string(min);
    if (max && min > 0) return ">= " + std::to_string(min) + " and <= " + std::to_string(*max);
    if (max) return "<= " + std::to_string(*max);
    return ">= " + std::to_string(min);
  }

  friend bool operator==(const CountRange& a, const CountRange& b) {
    return a.min == b.min && a.max == b.max;
  }
  friend bool operator!=(const CountRange& a, const CountRange& b) { return !(a == b); }
};

}  // namespace racelab
