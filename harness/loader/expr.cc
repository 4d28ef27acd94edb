#include "harness/loader/expr.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>
#include <unordered_set>

#include "harness/loader/limits.h"

namespace racelab {
namespace {

// Calls `fn(begin, end, name)` for each "${name}" in `text` (begin/end delimit the whole
// reference).
template <typename Fn>
void ForEachReference(const std::string& text, Fn fn) {
  size_t pos = 0;
  while ((pos = text.find("${", pos)) != std::string::npos) {
    size_t close = text.find('}', pos + 2);
    if (close == std::string::npos) return;
    fn(pos, close + 1, text.substr(pos + 2, close - pos - 2));
    pos = close + 1;
  }
}

// Recursive-descent evaluator over "+ - * / ( )" and unsigned decimal literals.
//   expr  := term (('+' | '-') term)*
//   term  := unary (('*' | '/') unary)*
//   unary := ('-' | '+')* primary            (a loop, not recursion)
//   primary := NUMBER | '(' expr ')'
// Recursion happens only at '(' and is bounded: nesting deeper than limits::kMaxExprDepth (counting
// parentheses and runs of unary signs) is an error, so the stack depth does not depend on the
// input.
class ExprParser {
 public:
  explicit ExprParser(std::string_view text) : text_(text) {}

  // Returns the value, or nullopt with error() set.
  std::optional<double> Run() {
    SkipSpace();
    if (pos_ == text_.size()) return Fail("empty expression");
    std::optional<double> value = Expr();
    if (!value) return std::nullopt;
    SkipSpace();
    if (pos_ != text_.size()) return Unexpected();
    return value;
  }
  const std::string& error() const { return error_; }
  bool division_by_zero() const { return division_by_zero_; }

 private:
  std::optional<double> Expr() {
    std::optional<double> left = Term();
    while (left) {
      SkipSpace();
      if (!Peek('+') && !Peek('-')) break;
      char op = text_[pos_++];
      std::optional<double> right = Term();
      if (!right) return std::nullopt;
      left = op == '+' ? *left + *right : *left - *right;
    }
    return left;
  }

  std::optional<double> Term() {
    std::optional<double> left = Unary();
    while (left) {
      SkipSpace();
      if (!Peek('*') && !Peek('/')) break;
      char op = text_[pos_++];
      std::optional<double> right = Unary();
      if (!right) return std::nullopt;
      if (op == '/' && *right == 0.0) {
        division_by_zero_ = true;
        return Fail("division by zero");
      }
      left = op == '*' ? *left * *right : *left / *right;
    }
    return left;
  }

  std::optional<double> Unary() {
    bool negative = false;
    int signs = 0;
    for (SkipSpace(); Peek('-') || Peek('+'); SkipSpace()) {
      negative = negative != (text_[pos_++] == '-');
      ++signs;
    }
    // A run of signs counts as one level per sign, like the nesting it stands for.
    if (signs > 0 && depth_ + signs > limits::kMaxExprDepth) return TooDeep();
    std::optional<double> value = Primary();
    if (!value) return std::nullopt;
    return negative ? -*value : *value;
  }

  std::optional<double> Primary() {
    SkipSpace();
    if (Peek('(')) {
      if (depth_ + 1 > limits::kMaxExprDepth) return TooDeep();
      ++pos_;
      ++depth_;
      std::optional<double> value = Expr();
      --depth_;
      if (!value) return std::nullopt;
      SkipSpace();
      if (!Peek(')')) return pos_ == text_.size() ? Fail("missing ')'") : Unexpected();
      ++pos_;
      return value;
    }
    size_t start = pos_;
    while (pos_ < text_.size() && (std::isdigit(Byte(pos_)) || text_[pos_] == '.')) ++pos_;
    if (start == pos_) return Unexpected();
    double value = 0;
    const char* first = text_.data() + start;
    const char* last = text_.data() + pos_;
    auto [ptr, ec] = std::from_chars(first, last, value, std::chars_format::fixed);
    if (ec != std::errc() || ptr != last) {
      pos_ = start;
      return Fail(fmt::format("bad number '{}'", std::string_view(first, last - first)));
    }
    return value;
  }

  std::optional<double> Unexpected() {
    if (pos_ >= text_.size()) return Fail("unexpected end");
    size_t end = pos_ + 1;
    if (std::isalnum(Byte(pos_)) || text_[pos_] == '_') {
      while (end < text_.size() && (std::isalnum(Byte(end)) || text_[end] == '_')) ++end;
    }
    return Fail(fmt::format("unexpected '{}'", text_.substr(pos_, end - pos_)));
  }

  std::optional<double> TooDeep() {
    return Fail(
        fmt::format("nested deeper than {} levels of parentheses or signs", limits::kMaxExprDepth));
  }

  std::optional<double> Fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
    return std::nullopt;
  }
  unsigned char Byte(size_t i) const { return static_cast<unsigned char>(text_[i]); }
  bool Peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(Byte(pos_))) ++pos_;
  }

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;  // parentheses open at pos_
  std::string error_;
  bool division_by_zero_ = false;
};

}  // namespace

std::string SubstituteParams(const std::string& text, const ParamMap& params) {
  std::string out;
  size_t copied = 0;
  ForEachReference(text, [&](size_t begin, size_t end, const std::string& name) {
    auto it = params.find(name);
    if (it == params.end()) return;
    out.append(text, copied, begin - copied);
    out += it->second;
    copied = end;
  });
  out.append(text, copied, std::string::npos);
  return out;
}

size_t SubstitutedSize(const std::string& text, const ParamMap& params) {
  size_t size = text.size();
  ForEachReference(text, [&](size_t begin, size_t end, const std::string& name) {
    auto it = params.find(name);
    if (it != params.end()) size = size - (end - begin) + it->second.size();
  });
  return size;
}

std::vector<std::string> ReferencedNames(const std::string& text) {
  std::vector<std::string> names;
  std::unordered_set<std::string> seen;
  ForEachReference(text, [&](size_t, size_t, const std::string& name) {
    if (seen.insert(name).second) names.push_back(name);
  });
  return names;
}

Result<double> EvalNumber(const std::string& text, const ParamMap& params) {
  std::string substituted = SubstituteParams(text, params);
  std::vector<std::string> unknown = ReferencedNames(substituted);
  if (!unknown.empty()) {
    return Status::Usage(
        fmt::format("'{}' is not a number (unknown parameter ${{{}}})", text, unknown.front()));
  }
  if (substituted.size() > limits::kMaxLineBytes) {
    return Status::Usage(
        fmt::format("'{}' is too long once params are substituted ({} bytes; an "
                    "expression may have at most {})",
                    text.size() > 80 ? text.substr(0, 80) + "…" : text, substituted.size(),
                    limits::kMaxLineBytes));
  }
  ExprParser evaluator(substituted);
  std::optional<double> value = evaluator.Run();
  if (evaluator.division_by_zero()) {
    return Status::Usage(
        substituted == text
            ? fmt::format("'{}': division by zero", text)
            : fmt::format("'{}': division by zero (evaluated '{}')", text, substituted));
  }
  if (!value) {
    if (substituted == text) {
      return Status::Usage(fmt::format("'{}' is not a number ({})", text, evaluator.error()));
    }
    return Status::Usage(fmt::format("'{}' is not a number (evaluated '{}': {})", text, substituted,
                                     evaluator.error()));
  }
  if (!std::isfinite(*value)) {
    return Status::Usage(fmt::format("'{}' is not a finite number", text));
  }
  return *value;
}

Result<long> EvalInteger(const std::string& text, const ParamMap& params) {
  Result<double> value = EvalNumber(text, params);
  if (!value.ok()) return value.status();
  double rounded = std::round(*value);
  if (std::fabs(*value - rounded) > 1e-9) {
    return Status::Usage(fmt::format("'{}' is not an integer (evaluates to {})", text, *value));
  }
  if (std::fabs(rounded) > limits::kMaxInteger) {
    return Status::Usage(fmt::format("'{}' is out of range (evaluates to {})", text, *value));
  }
  return static_cast<long>(rounded);
}

}  // namespace racelab
