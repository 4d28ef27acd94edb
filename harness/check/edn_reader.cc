#include "harness/check/edn_reader.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>

namespace racelab::check {

const EdnValue* EdnValue::Get(std::string_view key) const {
  for (size_t i = 0; i + 1 < items.size(); i += 2)
    if (items[i].IsKeyword(key)) return &items[i + 1];
  return nullptr;
}

std::string EdnDescribe(const EdnValue& v) {
  switch (v.kind) {
    case EdnValue::Kind::kNil:
      return "nil";
    case EdnValue::Kind::kBool:
      return v.boolean ? "true" : "false";
    case EdnValue::Kind::kInt:
      return "integer " + std::to_string(v.integer);
    case EdnValue::Kind::kKeyword:
      return "keyword :" + v.text;
    case EdnValue::Kind::kSymbol:
      return "symbol " + v.text;
    case EdnValue::Kind::kString:
      return "string";
    case EdnValue::Kind::kVector:
      return "vector";
    case EdnValue::Kind::kList:
      return "list";
    case EdnValue::Kind::kMap:
      return "map";
    case EdnValue::Kind::kSet:
      return "set";
  }
  return "?";
}

std::string EdnText(const EdnValue& v) {
  switch (v.kind) {
    case EdnValue::Kind::kInt:
      return std::to_string(v.integer);
    case EdnValue::Kind::kKeyword:
      return ":" + v.text;
    case EdnValue::Kind::kSymbol:
    case EdnValue::Kind::kString:
      return v.text;
    default:
      return EdnDescribe(v);
  }
}

std::string EdnReader::ErrorAt(uint32_t line, uint32_t column, std::string_view message) const {
  return fmt::format("{}:{}:{}: {}", file_, line, column, message);
}

Status EdnReader::Error(std::string_view message) const {
  return Status::Usage(ErrorAt(line_, column_, message));
}

void EdnReader::Advance() {
  if (text_[pos_] == '\n') {
    ++line_;
    column_ = 1;
  } else {
    ++column_;
  }
  ++pos_;
}

Status EdnReader::SkipSpace(int form_depth) {
  // Discards are counted, not recursed into: `#_ #_ a b` drops a and b, and 100,000 of them in a
  // row cost no stack. A discarded form is read at the depth of the items around it, so the
  // nesting limit holds inside discards too.
  size_t pending = 0;
  while (true) {
    if (AtEnd()) {
      if (pending > 0) return Error("#_ discards nothing: the text ends");
      return Status::Ok();
    }
    const char c = Peek();
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',') {
      Advance();
    } else if (c == ';') {
      while (!AtEnd() && Peek() != '\n') Advance();
    } else if (c == '#' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '_') {
      Advance();
      Advance();
      ++pending;
    } else if (pending > 0) {
      auto discarded = Read(form_depth);
      if (!discarded.ok()) return discarded.status();
      --pending;
    } else {
      return Status::Ok();
    }
  }
}

Result<std::optional<EdnValue>> EdnReader::Next() {
  if (Status s = SkipSpace(0); !s.ok()) return s;
  if (AtEnd()) return std::optional<EdnValue>();
  auto v = Read(0);
  if (!v.ok()) return v.status();
  return std::optional<EdnValue>(std::move(v).value());
}

Result<EdnValue> EdnReader::Read(int depth) {
  if (depth > kMaxDepth) return Error(fmt::format("nested deeper than {}", kMaxDepth));
  EdnValue v;
  v.line = line_;
  v.column = column_;
  const char c = Peek();
  if (c == '[' || c == '(' || c == '{') {
    v.kind = c == '['   ? EdnValue::Kind::kVector
             : c == '(' ? EdnValue::Kind::kList
                        : EdnValue::Kind::kMap;
    Advance();
    return ReadSeq(std::move(v), c == '[' ? ']' : c == '(' ? ')' : '}', depth);
  }
  if (c == '#' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '{') {
    v.kind = EdnValue::Kind::kSet;
    Advance();
    Advance();
    return ReadSeq(std::move(v), '}', depth);
  }
  if (c == ']' || c == ')' || c == '}') return Error(fmt::format("unexpected '{}'", c));
  if (c == '"') return ReadString(std::move(v));
  if (c == '#') return Error("tagged elements (#…) are not part of a history");
  if (c == '\\') return Error("characters (\\c) are not part of a history");
  return ReadAtom(std::move(v));
}

Result<EdnValue> EdnReader::ReadSeq(EdnValue v, char close, int depth) {
  const uint32_t line = v.line, column = v.column;
  while (true) {
    if (Status s = SkipSpace(depth + 1); !s.ok()) return s;
    if (AtEnd()) {
      return Status::Usage(ErrorAt(
          line, column, fmt::format("this {} is never closed ('{}')", EdnDescribe(v), close)));
    }
    if (Peek() == close) {
      Advance();
      break;
    }
    auto item = Read(depth + 1);
    if (!item.ok()) return item.status();
    v.items.push_back(std::move(item).value());
  }
  if (v.kind == EdnValue::Kind::kMap && v.items.size() % 2 != 0)
    return Status::Usage(ErrorAt(line, column, "a map with a key and no value"));
  return v;
}

Result<EdnValue> EdnReader::ReadString(EdnValue v) {
  v.kind = EdnValue::Kind::kString;
  Advance();
  while (true) {
    if (AtEnd()) return Status::Usage(ErrorAt(v.line, v.column, "this string is never closed"));
    char c = Peek();
    if (c == '"') {
      Advance();
      return v;
    }
    if (c == '\\') {
      Advance();
      if (AtEnd()) continue;
      c = Peek();
      static constexpr std::string_view kFrom = "tnr\\\"", kTo = "\t\n\r\\\"";
      const size_t at = kFrom.find(c);
      if (at == std::string_view::npos) return Error(fmt::format("unknown escape \\{}", c));
      v.text += kTo[at];
    } else {
      v.text += c;
    }
    Advance();
  }
}

Result<EdnValue> EdnReader::ReadAtom(EdnValue v) {
  const size_t start = pos_;
  static constexpr std::string_view kEnd = " \t\r\n,;[](){}\"";
  while (!AtEnd() && kEnd.find(Peek()) == std::string_view::npos) Advance();
  const std::string_view token = text_.substr(start, pos_ - start);
  const auto fail = [&](std::string_view what) {
    return Status::Usage(ErrorAt(v.line, v.column, fmt::format("{}: {}", what, token)));
  };
  if (token == "nil") return v;
  if (token == "true" || token == "false") {
    v.kind = EdnValue::Kind::kBool;
    v.boolean = token == "true";
    return v;
  }
  if (token[0] == ':') {
    if (token.size() == 1) return fail("a keyword without a name");
    v.kind = EdnValue::Kind::kKeyword;
    v.text = token.substr(1);
    return v;
  }
  const bool sign = token[0] == '-' || token[0] == '+';
  if (std::isdigit(static_cast<unsigned char>(token[0])) ||
      (sign && token.size() > 1 && std::isdigit(static_cast<unsigned char>(token[1])))) {
    std::string_view digits = token[0] == '+' ? token.substr(1) : token;
    if (!digits.empty() && digits.back() == 'N') digits.remove_suffix(1);  // 12N: a bigint
    int64_t n = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec == std::errc::result_out_of_range) return fail("an integer out of 64-bit range");
    if (ec != std::errc() || end != digits.data() + digits.size())
      return fail("not an integer (floats and ratios are not part of a history)");
    v.kind = EdnValue::Kind::kInt;
    v.integer = n;
    return v;
  }
  v.kind = EdnValue::Kind::kSymbol;
  v.text = token;
  return v;
}

}  // namespace racelab::check
