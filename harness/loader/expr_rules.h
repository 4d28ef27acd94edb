// Internal to harness/loader: the range each kind of Expr must evaluate to. Shared by the loader
// (which checks every Expr with the param defaults, so a bad file fails at load time with its line)
// and the planner (which evaluates with the final parameter values). Thread-safety: pure functions.
#pragma once

#include <string>

#include "harness/loader/expr.h"
#include "harness/model/status.h"

namespace racelab::internal {

// Ranges name their bounds in harness/loader/limits.h.
enum class NumberRule {
  kAnyMs,         // -kMaxDurationMs..kMaxDurationMs (blocked min_ms / max_ms)
  kDurationMs,    // 0..kMaxDurationMs (sleep_ms, retry initial_ms, cap_ms)
  kTimeoutMs,     // 1..kMaxDurationMs (await_blocked timeout_ms)
  kFactor,        // 1..kMaxRetryFactor (retry factor)
  kCount,         // integer 0..kMaxInteger (winners, SQLSTATE counts, rows, lock_waits)
  kAttempts,      // integer 1..kMaxRetryAttempts (retry attempts)
  kSessionCount,  // integer 1..kMaxSessionInstances (a session's count)
  kFraction,      // 0..1 (one_of min_fraction)
};

// EvalNumber(text, params), then checks `rule`. The error message has no location, e.g.
// "'${workers}' is not a number (evaluated 'abc': unexpected 'abc')" or "'0' must be an integer
// from 1 to 1000".
Result<double> EvalWithRule(const std::string& text, const ParamMap& params, NumberRule rule);

// True when `text` is [A-Za-z_][A-Za-z0-9_]* (param and capture names).
bool IsIdentifier(const std::string& text);

}  // namespace racelab::internal
