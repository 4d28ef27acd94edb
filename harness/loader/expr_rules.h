// Internal to harness/loader: the range each kind of Expr must evaluate to. Shared by the loader
// (which checks every Expr with the param defaults, so a bad file fails at load time with its line)
// and the planner (which evaluates with the final parameter values). Thread-safety: pure functions.
#pragma once

#include <string>

#include "harness/loader/expr.h"
#include "harness/model/status.h"

namespace racelab::internal {

enum class NumberRule {
  kAny,            // any finite number (blocked min_ms / max_ms)
  kNonNegative,    // >= 0 (sleep_ms, initial_ms, cap_ms)
  kAtLeastOne,     // >= 1 (timeout_ms, retry factor)
  kCount,          // integer >= 0 (winners, SQLSTATE counts, rows, lock_waits)
  kPositiveCount,  // integer >= 1 (session count, retry attempts)
};

// EvalNumber(text, params), then checks `rule`. The error message has no location, e.g.
// "'${workers}' is not a number (evaluated 'abc': unexpected 'abc')" or "'0' must be an integer >=
// 1".
Result<double> EvalWithRule(const std::string& text, const ParamMap& params, NumberRule rule);

// True when `text` is [A-Za-z_][A-Za-z0-9_]* (param and capture names).
bool IsIdentifier(const std::string& text);

}  // namespace racelab::internal
