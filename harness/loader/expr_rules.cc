#include "harness/loader/expr_rules.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

namespace racelab::internal {

Result<double> EvalWithRule(const std::string& text, const ParamMap& params, NumberRule rule) {
  bool integer = rule == NumberRule::kCount || rule == NumberRule::kPositiveCount;
  double value = 0;
  if (integer) {
    Result<long> n = EvalInteger(text, params);
    if (!n.ok()) return n.status();
    value = static_cast<double>(*n);
  } else {
    Result<double> x = EvalNumber(text, params);
    if (!x.ok()) return x.status();
    value = *x;
  }
  const char* need = nullptr;
  switch (rule) {
    case NumberRule::kAny:
      break;
    case NumberRule::kNonNegative:
      if (value < 0) need = "must be >= 0";
      break;
    case NumberRule::kAtLeastOne:
      if (value < 1) need = "must be >= 1";
      break;
    case NumberRule::kCount:
      if (value < 0) need = "must be an integer >= 0";
      break;
    case NumberRule::kPositiveCount:
      if (value < 1) need = "must be an integer >= 1";
      break;
  }
  if (need == nullptr) return value;
  std::string shown = fmt::format("{}", value);
  if (shown == text) return Status::Usage(fmt::format("'{}' {}", text, need));
  return Status::Usage(fmt::format("'{}' {} (evaluates to {})", text, need, shown));
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
