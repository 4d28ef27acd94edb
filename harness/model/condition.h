// The run-time language of a sql step: its `when` condition, and ${capture} references in its SQL.
// One parser for the loader (which checks the syntax and names at load time) and the worker (which
// evaluates). Both scan the text once, left to right, without recursion or backtracking: time and
// stack are linear in the length (a 50,000-character condition is parsed in microseconds; the
// std::regex this replaces recursed per character and overflowed the stack).
// Grammar (docs/scenario-format.md, "when"):
//   NAME == 'text' | NAME != 'text'                                     a captured value, as text
//   NAME OP number, OP one of == != < <= > >=                           a captured value, as a
//   number defined(NAME) | !defined(NAME)                                      was NAME captured?
//   rows(STEP) OP INTEGER, OP one of == != < <= > >=                    rows of an earlier step
//   sqlstate(STEP) == 'CODE' | sqlstate(STEP) != 'CODE'                 how an earlier step failed
//   failed(STEP) | !failed(STEP)                                        did it fail at all?
// NAME is [A-Za-z_][A-Za-z0-9_]*, STEP [A-Za-z][A-Za-z0-9_-]*; spaces are allowed between tokens.
// 'text' has no escapes (it may not contain a quote) and may hold ${capture} references; a
// number is -?[0-9.]+ with at most one '.'.
// Thread-safety: pure functions.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace racelab {

struct WhenCondition {
  enum class Kind {
    kCompare,   // NAME op literal
    kDefined,   // defined(NAME), or !defined(NAME) when `negated`
    kRows,      // rows(STEP) op integer
    kSqlstate,  // sqlstate(STEP) op 'CODE' (op == or !=); `literal` holds CODE
    kFailed,    // failed(STEP), or !failed(STEP) when `negated`
  };
  Kind kind = Kind::kCompare;
  std::string name;  // kCompare, kDefined: the capture; kRows, kSqlstate, kFailed: the step
  // "==", "!=" (kCompare with text, kSqlstate); any of == != < <= > >= (kCompare with a number,
  // kRows); "" (kDefined, kFailed)
  std::string op;
  bool negated = false;  // kDefined, kFailed
  bool is_text = false;  // kCompare: the literal was 'quoted text'
  std::string literal;   // kCompare: the text between the quotes, or the number as written
  double number = 0;     // kCompare with a number; kRows: the integer
};

// Parses `text` (params already substituted). On error returns nullopt and sets *error to what is
// wrong, without location, e.g. "expected == or != after the name".
std::optional<WhenCondition> ParseWhen(std::string_view text, std::string* error);

// True when `value op number` holds for an op of WhenCondition (== != < <= > >=).
bool CompareNumbers(double value, const std::string& op, double number);

// Replaces each ${NAME} (NAME = [A-Za-z_][A-Za-z0-9_]*) in `text` with lookup(NAME), as raw text;
// any other "${" is left as written. Returns false, with *missing = NAME, at the first NAME
// lookup() has no value for (nullopt); *out is then incomplete.
bool SubstituteRefs(std::string_view text,
                    const std::function<std::optional<std::string>(const std::string&)>& lookup,
                    std::string* out, std::string* missing);

}  // namespace racelab
