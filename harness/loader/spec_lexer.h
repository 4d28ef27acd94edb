// SpecLexer: the tokens of a PostgreSQL isolationtester spec file
// (src/test/isolation/specscanner.l), each with its 1-based line and column. Used by the spec
// parser and the permutation selection. Thread-safety: one lexer per thread.
#pragma once

#include <string>

#include "harness/model/status.h"

namespace racelab::spec_internal {

enum class Tok {
  kEnd,
  kNotices,
  kPermutation,
  kSession,
  kSetup,
  kStep,
  kTeardown,  // keywords (case-sensitive)
  kName,      // plain or double-quoted identifier; `text` holds it unquoted
  kSql,       // `{ … }`; `text` holds the inside, blanks after `{` and before `}` cut
  kInteger,   // digits; `text` holds them
  kComma,
  kLParen,
  kRParen,
  kStar,
};

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;
  int line = 0;
  int column = 0;
};

// What a token is called in an error message: "keyword 'step'", "name \"s1\"", "end of file", ….
std::string Describe(const Token& token);

// `name` as a spec file writes it: as is when it lexes as a plain identifier that is no keyword,
// else double-quoted with each '"' doubled.
std::string WriteName(const std::string& name);

class SpecLexer {
 public:
  SpecLexer(const std::string& text, const std::string& file) : text_(text), file_(file) {}
  // The next token, or kUsage "FILE:LINE:COL: …" (unterminated SQL block or quoted name, a newline
  // in a quoted name, an unexpected character).
  Result<Token> Next();

 private:
  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  void Advance();  // one byte, keeping line/column
  Status Error(int line, int column, const std::string& what) const;

  const std::string& text_;
  std::string file_;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

}  // namespace racelab::spec_internal
