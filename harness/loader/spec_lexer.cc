#include "harness/loader/spec_lexer.h"

#include <fmt/format.h>

namespace racelab::spec_internal {
namespace {

// specscanner.l: space is [ \t\r\f] (not the newline), identifiers take bytes 0x80-0xff too.
bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f'; }
bool IsIdentStart(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return (u >= 'A' && u <= 'Z') || (u >= 'a' && u <= 'z') || u == '_' || u >= 0x80;
}
bool IsIdentCont(char c) { return IsIdentStart(c) || (c >= '0' && c <= '9') || c == '$'; }

Tok KeywordOrName(const std::string& word) {
  if (word == "notices") return Tok::kNotices;
  if (word == "permutation") return Tok::kPermutation;
  if (word == "session") return Tok::kSession;
  if (word == "setup") return Tok::kSetup;
  if (word == "step") return Tok::kStep;
  if (word == "teardown") return Tok::kTeardown;
  return Tok::kName;
}

}  // namespace

std::string WriteName(const std::string& name) {
  bool plain = !name.empty() && IsIdentStart(name[0]) && KeywordOrName(name) == Tok::kName;
  for (char c : name) plain = plain && IsIdentCont(c);
  if (plain) return name;
  std::string quoted = "\"";
  for (char c : name) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string Describe(const Token& t) {
  switch (t.kind) {
    case Tok::kEnd:
      return "end of file";
    case Tok::kNotices:
    case Tok::kPermutation:
    case Tok::kSession:
    case Tok::kSetup:
    case Tok::kStep:
    case Tok::kTeardown:
      return fmt::format("keyword '{}'", t.text);
    case Tok::kName:  // cut, as a long name is an error of its own (limits.h kMaxNameBytes)
      return t.text.size() <= 63 ? fmt::format("name \"{}\"", t.text)
                                 : fmt::format("name \"{}…\"", t.text.substr(0, 63));
    case Tok::kSql:
      return "a { SQL } block";
    case Tok::kInteger:
      return fmt::format("number {}", t.text);
    case Tok::kComma:
      return "','";
    case Tok::kLParen:
      return "'('";
    case Tok::kRParen:
      return "')'";
    case Tok::kStar:
      return "'*'";
  }
  return "?";
}

void SpecLexer::Advance() {
  if (AtEnd()) return;
  if (text_[pos_] == '\n') {
    ++line_;
    column_ = 1;
  } else {
    ++column_;
  }
  ++pos_;
}

Status SpecLexer::Error(int line, int column, const std::string& what) const {
  return Status::Usage(fmt::format("{}:{}:{}: {}", file_, line, column, what));
}

Result<Token> SpecLexer::Next() {
  // Blanks, newlines and comments (# to the end of the line).
  for (;;) {
    if (AtEnd()) return Token{Tok::kEnd, "", line_, column_};
    char c = Peek();
    if (IsBlank(c) || c == '\n') {
      Advance();
    } else if (c == '#') {
      while (!AtEnd() && Peek() != '\n' && Peek() != '\r') Advance();
    } else {
      break;
    }
  }
  Token tok;
  tok.line = line_;
  tok.column = column_;
  char c = Peek();
  if (IsIdentStart(c)) {
    size_t start = pos_;
    while (!AtEnd() && IsIdentCont(Peek())) Advance();
    tok.text = text_.substr(start, pos_ - start);
    tok.kind = KeywordOrName(tok.text);
    return tok;
  }
  if (c >= '0' && c <= '9') {
    size_t start = pos_;
    while (!AtEnd() && Peek() >= '0' && Peek() <= '9') Advance();
    tok.text = text_.substr(start, pos_ - start);
    tok.kind = Tok::kInteger;
    return tok;
  }
  if (c == '"') {
    Advance();
    for (;;) {
      if (AtEnd()) return Error(tok.line, tok.column, "unterminated quoted name");
      char q = Peek();
      if (q == '\n') return Error(line_, column_, "unexpected newline in quoted name");
      if (q == '"') {
        if (Peek(1) == '"') {  // "" is one quote
          tok.text += '"';
          Advance();
          Advance();
          continue;
        }
        Advance();
        break;
      }
      tok.text += q;
      Advance();
    }
    if (tok.text.empty()) return Error(tok.line, tok.column, "empty quoted name \"\"");
    tok.kind = Tok::kName;
    return tok;
  }
  if (c == '{') {
    Advance();
    while (!AtEnd() && IsBlank(Peek())) Advance();
    size_t start = pos_;
    while (!AtEnd() && Peek() != '}') Advance();
    if (AtEnd()) {
      return Error(tok.line, tok.column,
                   "unterminated SQL block: '{' without '}' (a step's SQL cannot contain '}')");
    }
    size_t end = pos_;
    while (end > start && IsBlank(text_[end - 1])) --end;
    tok.text = text_.substr(start, end - start);
    Advance();  // the '}'
    tok.kind = Tok::kSql;
    return tok;
  }
  Advance();
  switch (c) {
    case ',':
      tok.kind = Tok::kComma;
      return tok;
    case '(':
      tok.kind = Tok::kLParen;
      return tok;
    case ')':
      tok.kind = Tok::kRParen;
      return tok;
    case '*':
      tok.kind = Tok::kStar;
      return tok;
    default:
      break;
  }
  unsigned char u = static_cast<unsigned char>(c);
  std::string shown =
      (u >= 0x20 && u < 0x7f) ? fmt::format("'{}'", c) : fmt::format("byte 0x{:02x}", u);
  return Error(tok.line, tok.column, fmt::format("unexpected character {}", shown));
}

}  // namespace racelab::spec_internal
