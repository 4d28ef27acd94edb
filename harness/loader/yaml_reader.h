// Internal to harness/loader: typed, located access to a parsed YAML tree for the scenario loader.
//
// Every accessor reports what is wrong to the YamlReader (file:line:col, field path, message) and
// returns nullopt/false, so the loader can go on and report every problem of a file at once.
// Thread-safety: a YamlReader belongs to one load; not shared.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/loader/limits.h"
#include "harness/model/scenario.h"
#include "harness/model/status.h"

namespace racelab::internal {

// A node, where errors about it point (its own mark, or its key's when the value is empty), and its
// field path, e.g. "sessions[1].steps[3].barrier".
struct Ref {
  YAML::Node node;
  YAML::Mark mark;
  std::string path;
};

// The entries of a mapping, in file order.
struct Fields {
  struct Entry {
    std::string key;
    YAML::Mark key_mark;
    Ref value;
  };
  Ref self;
  std::vector<Entry> entries;

  const Ref* Get(std::string_view key) const;
};

std::string JoinPath(const std::string& path, std::string_view key);  // "a", "b" -> "a.b"
std::string IndexPath(const std::string& path, size_t index);         // "a", 2 -> "a[2]"
std::string JoinNames(const std::vector<std::string>& names);         // "a, b, c"

class YamlReader {
 public:
  explicit YamlReader(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }
  SourceLoc Loc(const YAML::Mark& mark) const;

  void Error(const YAML::Mark& mark, const std::string& path, std::string message);
  void Error(const Ref& ref, std::string message) { Error(ref.mark, ref.path, std::move(message)); }
  void Error(const SourceLoc& loc, const std::string& path, std::string message);
  // Errors are kept up to limits::kMaxErrors (each message clipped to kMaxMessageBytes); later ones
  // are only counted. full(): the budget is spent, so loops over a file's entries may stop early.
  bool has_errors() const { return error_count_ != 0; }
  size_t error_count() const { return error_count_; }
  bool full() const { return error_count_ >= limits::kMaxErrors; }
  // The kept errors sorted by position, one per line: "FILE:LINE:COL: PATH: message", then
  // "FILE: … and more errors (the loader stops after the first 20)" when there were more.
  Status ToStatus() const;

  // A mapping whose keys are all in `allowed` (empty: any key) and that has every key in
  // `required`. Unknown, duplicate and over-long (> limits::kMaxNameBytes) keys are reported and
  // left out; more than `max_entries` entries is an error. Linear in the number of entries.
  std::optional<Fields> Map(const Ref& ref, const std::vector<std::string_view>& allowed,
                            const std::vector<std::string_view>& required = {},
                            size_t max_entries = limits::kMaxListItems);
  // A list of at most `max_items` items.
  std::optional<std::vector<Ref>> Seq(const Ref& ref, size_t max_items = limits::kMaxListItems);

  // A scalar (quoted or not) as written, at most `max_bytes` long; an empty value is an error
  // unless `allow_empty`. Every text read counts towards limits::kMaxTotalTextBytes (an alias
  // counts each time it is read).
  std::optional<std::string> Text(const Ref& ref, bool allow_empty = false,
                                  size_t max_bytes = limits::kMaxLineBytes);
  // Text of at most limits::kMaxNameBytes.
  std::optional<std::string> Name(const Ref& ref) {
    return Text(ref, false, limits::kMaxNameBytes);
  }
  // A number or an expression such as "${workers} - 1" (validated by the caller).
  std::optional<std::string> ExprText(const Ref& ref);
  std::optional<bool> Bool(const Ref& ref);
  // A sequence of scalars, or one scalar taken as a one-element list; at most `max_items` items of
  // at most `max_bytes` each.
  std::optional<std::vector<std::string>> TextList(const Ref& ref,
                                                   size_t max_items = limits::kMaxListItems,
                                                   size_t max_bytes = limits::kMaxLineBytes);
  // The same, with each item's Ref so that errors about one item point at it.
  std::optional<std::vector<std::pair<std::string, Ref>>> TextItems(
      const Ref& ref, size_t max_items = limits::kMaxListItems,
      size_t max_bytes = limits::kMaxLineBytes);

 private:
  struct Problem {
    int line;
    int column;
    std::string path;
    std::string message;
  };
  std::string file_;
  std::vector<Problem> errors_;
  size_t error_count_ = 0;
  size_t text_bytes_ = 0;  // total of every Text() read so far
};

// Longest message of one error; longer ones are cut with "…" (values are quoted in messages).
inline constexpr size_t kMaxMessageBytes = 600;

// `text` cut to at most `max_bytes` (at a UTF-8 character boundary) with "…" appended when cut: for
// quoting values in messages.
std::string Clip(std::string_view text, size_t max_bytes = 80);

// The YAML type as a person says it: "a mapping", "a list", "text", "nothing".
std::string_view Describe(const YAML::Node& node);

// The closest of `candidates` to `word` when it is a likely typo, else "".
std::string Suggest(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace racelab::internal
