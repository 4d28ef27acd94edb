#include "harness/loader/yaml_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <tuple>
#include <unordered_set>

namespace racelab::internal {
namespace {

// Errors about an empty value (`key:` with nothing after it) point at the key: yaml-cpp marks such
// a node at the start of the next line.
YAML::Mark MarkOf(const YAML::Node& node, const YAML::Mark& fallback) {
  if (!node.IsDefined() || node.IsNull() || node.Mark().is_null()) return fallback;
  return node.Mark();
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      size_t cost = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                            std::tolower(static_cast<unsigned char>(b[j - 1]))
                        ? 0
                        : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

const Ref* Fields::Get(std::string_view key) const {
  for (const Entry& entry : entries) {
    if (entry.key == key) return &entry.value;
  }
  return nullptr;
}

std::string JoinPath(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}

std::string IndexPath(const std::string& path, size_t index) {
  return fmt::format("{}[{}]", path, index);
}

std::string JoinNames(const std::vector<std::string>& names) {
  return names.empty() ? std::string("(none)") : fmt::format("{}", fmt::join(names, ", "));
}

std::string_view Describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return "text";
    default:
      return "nothing";
  }
}

std::string Clip(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t end = max_bytes;
  // Back up to the first byte of a UTF-8 character (continuation bytes are 10xxxxxx).
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return std::string(text.substr(0, end)) + "…";
}

std::string Suggest(std::string_view word, const std::vector<std::string>& candidates) {
  // Bounds the work: no typo of a name, nor worth comparing with thousands of names.
  if (word.size() > limits::kMaxNameBytes || candidates.size() > 1000) return "";
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const std::string& candidate : candidates) {
    size_t distance = EditDistance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

SourceLoc YamlReader::Loc(const YAML::Mark& mark) const {
  if (mark.is_null()) return SourceLoc{file_, 0, 0};
  return SourceLoc{file_, mark.line + 1, mark.column + 1};
}

void YamlReader::Error(const YAML::Mark& mark, const std::string& path, std::string message) {
  Error(Loc(mark), path, std::move(message));
}

void YamlReader::Error(const SourceLoc& loc, const std::string& path, std::string message) {
  Problem problem{loc.line, loc.column, Clip(path, kMaxMessageBytes),
                  Clip(message, kMaxMessageBytes)};
  // The same problem found again (a file read once per engine) is one problem.
  for (const Problem& p : errors_) {
    if (p.line == problem.line && p.column == problem.column && p.path == problem.path &&
        p.message == problem.message) {
      return;
    }
  }
  if (error_count_++ >= limits::kMaxErrors) return;
  errors_.push_back(std::move(problem));
}

Status YamlReader::ToStatus() const {
  std::vector<Problem> sorted = errors_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Problem& a, const Problem& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  std::string text;
  for (const Problem& p : sorted) {
    if (!text.empty()) text += '\n';
    text += p.path.empty()
                ? fmt::format("{}:{}:{}: {}", file_, p.line, p.column, p.message)
                : fmt::format("{}:{}:{}: {}: {}", file_, p.line, p.column, p.path, p.message);
  }
  if (error_count_ > errors_.size()) {
    text += fmt::format("\n{}: … and more errors (the loader stops after the first {})", file_,
                        errors_.size());
  }
  return Status::Usage(text);
}

std::optional<Fields> YamlReader::Map(const Ref& ref, const std::vector<std::string_view>& allowed,
                                      const std::vector<std::string_view>& required,
                                      size_t max_entries) {
  if (!ref.node.IsMap()) {
    Error(ref, fmt::format("expected a mapping (key: value), found {}", Describe(ref.node)));
    return std::nullopt;
  }
  if (ref.node.size() > max_entries) {
    Error(ref,
          fmt::format("has {} entries; at most {} are allowed here", ref.node.size(), max_entries));
    return std::nullopt;
  }
  std::vector<std::string> valid(allowed.begin(), allowed.end());
  Fields fields{ref, {}};
  std::unordered_set<std::string> seen;  // keys kept so far: a linear duplicate check
  for (const auto& pair : ref.node) {    // yaml-cpp yields pairs by value: copy the handles
    if (full()) break;
    const YAML::Node key = pair.first;
    const YAML::Node value = pair.second;
    if (!key.IsScalar()) {
      Error(key.Mark(), ref.path, "keys must be plain names");
      continue;
    }
    const std::string& name = key.Scalar();
    if (name.size() > limits::kMaxNameBytes) {
      Error(key.Mark(), ref.path,
            fmt::format("key '{}' is {} bytes long; a key may have at most {}", Clip(name),
                        name.size(), limits::kMaxNameBytes));
      continue;
    }
    std::string path = JoinPath(ref.path, name);
    if (!valid.empty() && std::find(valid.begin(), valid.end(), name) == valid.end()) {
      std::string hint = Suggest(name, valid);
      Error(key.Mark(), path,
            fmt::format("unknown key '{}' ({}expected one of: {})", name,
                        hint.empty() ? "" : fmt::format("did you mean '{}'? ", hint),
                        JoinNames(valid)));
      continue;
    }
    if (!seen.insert(name).second) {
      Error(key.Mark(), path, fmt::format("duplicate key '{}'", name));
      continue;
    }
    fields.entries.push_back({name, key.Mark(), Ref{value, MarkOf(value, key.Mark()), path}});
  }
  for (std::string_view key : required) {
    if (fields.Get(key) == nullptr) {
      Error(ref.mark, JoinPath(ref.path, key), fmt::format("missing required key '{}'", key));
    }
  }
  return fields;
}

std::optional<std::vector<Ref>> YamlReader::Seq(const Ref& ref, size_t max_items) {
  if (!ref.node.IsSequence()) {
    Error(ref, fmt::format("expected a list, found {}", Describe(ref.node)));
    return std::nullopt;
  }
  if (ref.node.size() > max_items) {
    Error(ref,
          fmt::format("has {} items; at most {} are allowed here", ref.node.size(), max_items));
    return std::nullopt;
  }
  std::vector<Ref> items;
  for (size_t i = 0; i < ref.node.size(); ++i) {
    YAML::Node item = ref.node[i];
    items.push_back(Ref{item, MarkOf(item, ref.mark), IndexPath(ref.path, i)});
  }
  return items;
}

std::optional<std::string> YamlReader::Text(const Ref& ref, bool allow_empty, size_t max_bytes) {
  if (ref.node.IsNull() && allow_empty) return std::string();
  if (!ref.node.IsScalar()) {
    Error(ref, fmt::format("expected text, found {}", Describe(ref.node)));
    return std::nullopt;
  }
  const std::string& text = ref.node.Scalar();
  if (text.empty() && !allow_empty) {
    Error(ref, "must not be empty");
    return std::nullopt;
  }
  if (text.find('\0') != std::string::npos) {  // libpq sends C strings: it would cut the text
    Error(ref, "contains a NUL byte (\\0)");
    return std::nullopt;
  }
  if (text.size() > max_bytes) {
    Error(ref, fmt::format("'{}' is {} bytes long; at most {} are allowed here", Clip(text),
                           text.size(), max_bytes));
    return std::nullopt;
  }
  size_t before = text_bytes_;
  text_bytes_ += text.size();
  if (text_bytes_ > limits::kMaxTotalTextBytes) {
    if (before <= limits::kMaxTotalTextBytes) {  // said once
      Error(ref, fmt::format("the texts of this file add up to more than {} bytes (an alias "
                             "counts each time it is used)",
                             limits::kMaxTotalTextBytes));
    }
    return std::nullopt;
  }
  return text;
}

std::optional<std::string> YamlReader::ExprText(const Ref& ref) {
  if (ref.node.IsScalar() && ref.node.Scalar().size() > limits::kMaxLineBytes) {
    Error(ref,
          fmt::format("expression '{}' is {} bytes long; at most {} are allowed",
                      Clip(ref.node.Scalar()), ref.node.Scalar().size(), limits::kMaxLineBytes));
    return std::nullopt;
  }
  if (!ref.node.IsScalar() || ref.node.Scalar().empty()) {
    Error(ref, fmt::format("expected a number or an expression such as \"${{workers}} - 1\", "
                           "found {}",
                           ref.node.IsScalar() ? "empty text" : Describe(ref.node)));
    return std::nullopt;
  }
  return ref.node.Scalar();
}

std::optional<bool> YamlReader::Bool(const Ref& ref) {
  if (ref.node.IsScalar()) {
    const std::string& text = ref.node.Scalar();
    if (text == "true" || text == "True" || text == "TRUE") return true;
    if (text == "false" || text == "False" || text == "FALSE") return false;
  }
  Error(ref, "expected true or false");
  return std::nullopt;
}

std::optional<std::vector<std::string>> YamlReader::TextList(const Ref& ref, size_t max_items,
                                                             size_t max_bytes) {
  std::optional<std::vector<std::pair<std::string, Ref>>> items =
      TextItems(ref, max_items, max_bytes);
  if (!items) return std::nullopt;
  std::vector<std::string> texts;
  for (auto& [text, unused] : *items) texts.push_back(std::move(text));
  return texts;
}

std::optional<std::vector<std::pair<std::string, Ref>>> YamlReader::TextItems(const Ref& ref,
                                                                              size_t max_items,
                                                                              size_t max_bytes) {
  std::vector<Ref> refs;
  if (ref.node.IsScalar()) {
    refs.push_back(ref);
  } else if (std::optional<std::vector<Ref>> items = Seq(ref, max_items)) {
    refs = std::move(*items);
  } else {
    return std::nullopt;
  }
  std::vector<std::pair<std::string, Ref>> out;
  bool ok = true;
  for (const Ref& item : refs) {
    if (full()) return std::nullopt;
    std::optional<std::string> text = Text(item, false, max_bytes);
    if (text) out.emplace_back(*text, item);
    ok = ok && text.has_value();
  }
  if (!ok) return std::nullopt;
  return out;
}

}  // namespace racelab::internal
