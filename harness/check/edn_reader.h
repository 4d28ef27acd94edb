// A reader of the subset of EDN (github.com/edn-format/edn) that Elle's histories use: maps {},
// vectors [], lists (), sets #{}, keywords (:ok), symbols, integers, strings, nil, true/false,
// comments (;) and #_ discards; commas are whitespace. Floats, characters, tagged elements
// (#inst …) and ratios are refused with the place they start.
// Reads one top-level form at a time, so a history of a million operations is never one tree.
// Errors: "FILE:LINE:COL: what" (kUsage). Thread-safety: one reader per thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/model/status.h"

namespace racelab::check {

struct EdnValue {
  enum class Kind { kNil, kBool, kInt, kKeyword, kSymbol, kString, kVector, kList, kMap, kSet };
  Kind kind = Kind::kNil;
  bool boolean = false;
  int64_t integer = 0;
  std::string text;             // keyword (without ':'), symbol, string (unescaped)
  std::vector<EdnValue> items;  // vector, list, set; a map's keys and values alternate
  uint32_t line = 0, column = 0;

  bool IsKeyword(std::string_view k) const { return kind == Kind::kKeyword && text == k; }
  // A map's value of keyword `key`; nullptr when absent. REQUIRES: kind == kMap.
  const EdnValue* Get(std::string_view key) const;
};

// "integer", "keyword :ok", "vector", …: a value's kind for messages.
std::string EdnDescribe(const EdnValue& v);
// The value written as EDN (for keys in explanations: 1, :x, "x").
std::string EdnText(const EdnValue& v);

class EdnReader {
 public:
  // `text` must outlive the reader; `file` names it in errors.
  EdnReader(std::string file, std::string_view text) : file_(std::move(file)), text_(text) {}
  // The next top-level form; nullopt at the end of the text.
  Result<std::optional<EdnValue>> Next();
  // "FILE:LINE:COL: message".
  std::string ErrorAt(uint32_t line, uint32_t column, std::string_view message) const;

 private:
  static constexpr int kMaxDepth = 64;
  // Skips white space, comments and #_ discards; `form_depth`: the depth a discarded form is at.
  Status SkipSpace(int form_depth);
  Result<EdnValue> Read(int depth);
  Result<EdnValue> ReadSeq(EdnValue v, char close, int depth);
  Result<EdnValue> ReadString(EdnValue v);
  Result<EdnValue> ReadAtom(EdnValue v);
  Status Error(std::string_view message) const;
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return text_[pos_]; }
  void Advance();

  std::string file_;
  std::string_view text_;
  size_t pos_ = 0;
  uint32_t line_ = 1, column_ = 1;
};

}  // namespace racelab::check
