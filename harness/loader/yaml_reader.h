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
  bool has_errors() const { return !errors_.empty(); }
  size_t error_count() const { return errors_.size(); }
  // All errors sorted by position, one per line: "FILE:LINE:COL: PATH: message".
  Status ToStatus() const;

  // A mapping whose keys are all in `allowed` (empty: any key) and that has every key in
  // `required`. Unknown and duplicate keys are reported and left out.
  std::optional<Fields> Map(const Ref& ref, const std::vector<std::string_view>& allowed,
                            const std::vector<std::string_view>& required = {});
  std::optional<std::vector<Ref>> Seq(const Ref& ref);

  // A scalar (quoted or not) as written; an empty value is an error unless `allow_empty`.
  std::optional<std::string> Text(const Ref& ref, bool allow_empty = false);
  // A number or an expression such as "${workers} - 1" (validated by the caller).
  std::optional<std::string> ExprText(const Ref& ref);
  std::optional<bool> Bool(const Ref& ref);
  // A sequence of scalars, or one scalar taken as a one-element list.
  std::optional<std::vector<std::string>> TextList(const Ref& ref);
  // The same, with each item's Ref so that errors about one item point at it.
  std::optional<std::vector<std::pair<std::string, Ref>>> TextItems(const Ref& ref);

 private:
  struct Problem {
    int line;
    int column;
    std::string path;
    std::string message;
  };
  std::string file_;
  std::vector<Problem> errors_;
};

// The YAML type as a person says it: "a mapping", "a list", "text", "nothing".
std::string_view Describe(const YAML::Node& node);

// The closest of `candidates` to `word` when it is a likely typo, else "".
std::string Suggest(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace racelab::internal
