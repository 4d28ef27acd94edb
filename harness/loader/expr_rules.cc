#include "harness/loader/expr_rules.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

#include "harness/loader/limits.h"

namespace racelab::internal {

Result<double> EvalWithRule(const std::string& text, const ParamMap& params, NumberRule rule) {
  struct Range {
    bool integer;
    double min;
    double max;
  };
  constexpr double kMs = static_cast<double>(limits::kMaxDurationMs);
  static const std::string kMsText = fmt::format("{} (24 h)", limits::kMaxDurationMs);
  Range range{};
  std::string what;
  switch (rule) {
    case NumberRule::kAnyMs:
      range = {false, -kMs, kMs};
      what = fmt::format("a number of ms from -{} to {}", limits::kMaxDurationMs, kMsText);
      break;
    case NumberRule::kDurationMs:
      range = {false, 0, kMs};
      what = fmt::format("a number of ms from 0 to {}", kMsText);
      break;
    case NumberRule::kTimeoutMs:
      range = {false, 1, kMs};
      what = fmt::format("a number of ms from 1 to {}", kMsText);
      break;
    case NumberRule::kFactor:
      range = {false, 1, limits::kMaxRetryFactor};
      what = fmt::format("a number from 1 to {}", limits::kMaxRetryFactor);
      break;
    case NumberRule::kFraction:
      range = {false, 0, 1};
      what = "a fraction from 0 to 1 (0.9 = 90 % of the trials)";
      break;
    case NumberRule::kCount:
      range = {true, 0, limits::kMaxInteger};
      what = "an integer >= 0";
      break;
    case NumberRule::kAttempts:
      range = {true, 1, static_cast<double>(limits::kMaxRetryAttempts)};
      what = fmt::format("an integer from 1 to {}", limits::kMaxRetryAttempts);
      break;
    case NumberRule::kSessionCount:
      range = {true, 1, static_cast<double>(limits::kMaxSessionInstances)};
      what = fmt::format("an integer from 1 to {}", limits::kMaxSessionInstances);
      break;
  }
  double value = 0;
  if (range.integer) {
    Result<long> n = EvalInteger(text, params);
    if (!n.ok()) return n.status();
    value = static_cast<double>(*n);
  } else {
    Result<double> x = EvalNumber(text, params);
    if (!x.ok()) return x.status();
    value = *x;
  }
  if (value >= range.min && value <= range.max) return value;
  std::string shown = fmt::format("{}", value);
  if (shown == text) return Status::Usage(fmt::format("'{}' must be {}", text, what));
  return Status::Usage(fmt::format("'{}' must be {} (evaluates to {})", text, what, shown));
}

bool IsIdentifier(const std::string& text) {
  if (text.empty()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    bool ok = std::isalpha(c) || c == '_' || (i > 0 && std::isdigit(c));
    if (!ok || c >= 0x80) return false;
  }
  return true;
}

}  // namespace racelab::internal
