#include "harness/model/condition.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace racelab {
namespace {

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return IsIdentStart(c) || std::isdigit(static_cast<unsigned char>(c)); }
bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// A cursor over the condition; every method advances at most once over each character.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool AtEnd() const { return pos_ == text_.size(); }
  std::string_view Rest() const { return text_.substr(pos_); }
  // `word`, optional spaces, then '(' — e.g. "rows (" — else nothing is taken.
  bool TakeCall(std::string_view word) {
    size_t mark = pos_;
    if (Take(word)) {
      SkipSpace();
      if (Take("(")) return true;
    }
    pos_ = mark;
    return false;
  }
  bool Take(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  // [A-Za-z_][A-Za-z0-9_]*; with `step_name`, [A-Za-z][A-Za-z0-9_-]*.
  std::string Name(bool step_name) {
    size_t start = pos_;
    if (pos_ < text_.size() &&
        (step_name ? std::isalpha(static_cast<unsigned char>(text_[pos_])) != 0
                   : IsIdentStart(text_[pos_]))) {
      ++pos_;
      while (pos_ < text_.size() && (IsIdentChar(text_[pos_]) || (step_name && text_[pos_] == '-')))
        ++pos_;
    }
    return std::string(text_.substr(start, pos_ - start));
  }
  // == != <= >= < > (only == and != unless `ordering`).
  std::string Op(bool ordering) {
    for (std::string_view op : {"==", "!=", "<=", ">=", "<", ">"}) {
      if (!ordering && op != "==" && op != "!=") continue;
      if (Take(op)) return std::string(op);
    }
    return "";
  }
  // -?[0-9.]+ with at most one '.'; false (position unchanged) if there is none.
  bool Number(bool integer, std::string* written, double* value, std::string* error) {
    size_t start = pos_;
    if (!integer && pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    size_t digits = pos_;
    while (pos_ < text_.size() && (IsDigit(text_[pos_]) || (!integer && text_[pos_] == '.')))
      ++pos_;
    if (pos_ == digits) {
      pos_ = start;
      return false;
    }
    *written = std::string(text_.substr(start, pos_ - start));
    if (std::count(written->begin(), written->end(), '.') > 1) {
      *error = "bad number '" + *written + "'";
      return false;
    }
    const char* first = written->data();
    const char* last = first + written->size();
    auto [ptr, ec] = std::from_chars(first, last, *value, std::chars_format::fixed);
    if (ec != std::errc() || ptr != last || !std::isfinite(*value)) {
      *error = "bad number '" + *written + "'";
      return false;
    }
    return true;
  }
  // 'text' (no escapes): false with *error when unterminated; false without error if no quote here.
  bool Quoted(std::string* out, std::string* error) {
    if (!Take("'")) return false;
    size_t close = text_.find('\'', pos_);
    if (close == std::string_view::npos) {
      *error = "unterminated 'text'";
      return false;
    }
    *out = std::string(text_.substr(pos_, close - pos_));
    pos_ = close + 1;
    return true;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

std::optional<WhenCondition> Fail(std::string* error, std::string message) {
  *error = std::move(message);
  return std::nullopt;
}

}  // namespace

std::optional<WhenCondition> ParseWhen(std::string_view text, std::string* error) {
  Scanner s(text);
  WhenCondition c;
  s.SkipSpace();
  bool bang = s.Take("!");
  if (bang) s.SkipSpace();
  if (s.TakeCall("defined")) {
    c.kind = WhenCondition::Kind::kDefined;
    c.negated = bang;
    s.SkipSpace();
    c.name = s.Name(false);
    if (c.name.empty()) return Fail(error, "expected a captured name in defined(…)");
    s.SkipSpace();
    if (!s.Take(")")) return Fail(error, "expected ')' after defined(" + c.name);
  } else if (s.TakeCall("failed")) {
    c.kind = WhenCondition::Kind::kFailed;
    c.negated = bang;
    s.SkipSpace();
    c.name = s.Name(true);
    if (c.name.empty()) return Fail(error, "expected a step name in failed(…)");
    s.SkipSpace();
    if (!s.Take(")")) return Fail(error, "expected ')' after failed(" + c.name);
  } else if (bang) {
    return Fail(error, "'!' goes only before defined(NAME) or failed(STEP)");
  } else if (s.TakeCall("sqlstate")) {
    c.kind = WhenCondition::Kind::kSqlstate;
    s.SkipSpace();
    c.name = s.Name(true);
    if (c.name.empty()) return Fail(error, "expected a step name in sqlstate(…)");
    s.SkipSpace();
    if (!s.Take(")")) return Fail(error, "expected ')' after sqlstate(" + c.name);
    s.SkipSpace();
    c.op = s.Op(false);
    if (c.op.empty()) return Fail(error, "expected == or != after sqlstate(" + c.name + ")");
    s.SkipSpace();
    if (!s.Quoted(&c.literal, error)) {
      return error->empty()
                 ? Fail(error, "expected a quoted SQLSTATE after " + c.op + ", e.g. '40001'")
                 : std::nullopt;
    }
    if (c.literal.size() != 5 || !std::all_of(c.literal.begin(), c.literal.end(), [](char ch) {
          return std::isupper(static_cast<unsigned char>(ch)) || IsDigit(ch);
        })) {
      return Fail(error, "'" + c.literal +
                             "' is not a SQLSTATE (5 characters, digits and capital letters, "
                             "e.g. '40001', '40P01')");
    }
  } else if (s.TakeCall("rows")) {
    c.kind = WhenCondition::Kind::kRows;
    s.SkipSpace();
    c.name = s.Name(true);
    if (c.name.empty()) return Fail(error, "expected a step name in rows(…)");
    s.SkipSpace();
    if (!s.Take(")")) return Fail(error, "expected ')' after rows(" + c.name);
    s.SkipSpace();
    c.op = s.Op(true);
    if (c.op.empty()) return Fail(error, "expected == != < <= > or >= after rows(" + c.name + ")");
    s.SkipSpace();
    std::string written;
    if (!s.Number(true, &written, &c.number, error)) {
      return error->empty() ? Fail(error, "expected a row count (an integer >= 0) after " + c.op)
                            : std::nullopt;
    }
  } else {
    c.kind = WhenCondition::Kind::kCompare;
    c.name = s.Name(false);
    if (c.name.empty()) return Fail(error, "expected a captured name first");
    s.SkipSpace();
    c.op = s.Op(true);
    if (c.op.empty()) return Fail(error, "expected == != < <= > or >= after the name");
    s.SkipSpace();
    if (s.Quoted(&c.literal, error)) {
      c.is_text = true;
      if (c.op != "==" && c.op != "!=") {
        return Fail(
            error,
            c.op + " compares numbers: write a number after it, or use == or != with 'text'");
      }
    } else if (!error->empty()) {
      return std::nullopt;
    } else if (!s.Number(false, &c.literal, &c.number, error)) {
      return error->empty() ? Fail(error, "expected 'quoted text' or a number after the operator")
                            : std::nullopt;
    }
  }
  s.SkipSpace();
  if (!s.AtEnd()) {
    std::string_view rest = s.Rest();
    return Fail(error, "unexpected '" + std::string(rest.substr(0, 40)) +
                           (rest.size() > 40 ? "…" : "") + "' at the end");
  }
  return c;
}

bool CompareNumbers(double value, const std::string& op, double number) {
  bool equal = std::abs(value - number) < 1e-9;
  if (op == "==") return equal;
  if (op == "!=") return !equal;
  if (op == "<") return value < number && !equal;
  if (op == "<=") return value < number || equal;
  if (op == ">") return value > number && !equal;
  if (op == ">=") return value > number || equal;
  return false;
}

bool SubstituteRefs(std::string_view text,
                    const std::function<std::optional<std::string>(const std::string&)>& lookup,
                    std::string* out, std::string* missing) {
  out->clear();
  size_t copied = 0;
  size_t pos = 0;
  while ((pos = text.find("${", pos)) != std::string_view::npos) {
    size_t end = pos + 2;
    if (end < text.size() && IsIdentStart(text[end])) {
      while (end < text.size() && IsIdentChar(text[end])) ++end;
    }
    if (end == pos + 2 || end >= text.size() || text[end] != '}') {  // not ${NAME}: left as written
      pos += 2;
      continue;
    }
    std::string name(text.substr(pos + 2, end - pos - 2));
    std::optional<std::string> value = lookup(name);
    if (!value) {
      *missing = name;
      return false;
    }
    out->append(text.substr(copied, pos - copied));
    out->append(*value);
    copied = pos = end + 1;
  }
  out->append(text.substr(copied));
  return true;
}

}  // namespace racelab
