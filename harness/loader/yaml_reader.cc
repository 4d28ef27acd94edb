#include "harness/loader/yaml_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <tuple>

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

std::string Suggest(std::string_view word, const std::vector<std::string>& candidates) {
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
  SourceLoc loc = Loc(mark);
  errors_.push_back(Problem{loc.line, loc.column, path, std::move(message)});
}

void YamlReader::Error(const SourceLoc& loc, const std::string& path, std::string message) {
  errors_.push_back(Problem{loc.line, loc.column, path, std::move(message)});
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
  return Status::Usage(text);
}

std::optional<Fields> YamlReader::Map(const Ref& ref, const std::vector<std::string_view>& allowed,
                                      const std::vector<std::string_view>& required) {
  if (!ref.node.IsMap()) {
    Error(ref, fmt::format("expected a mapping (key: value), found {}", Describe(ref.node)));
    return std::nullopt;
  }
  std::vector<std::string> valid(allowed.begin(), allowed.end());
  Fields fields{ref, {}};
  for (const auto& pair : ref.node) {  // yaml-cpp yields pairs by value: copy the handles
    const YAML::Node key = pair.first;
    const YAML::Node value = pair.second;
    if (!key.IsScalar()) {
      Error(key.Mark(), ref.path, "keys must be plain names");
      continue;
    }
    const std::string& name = key.Scalar();
    std::string path = JoinPath(ref.path, name);
    if (!valid.empty() && std::find(valid.begin(), valid.end(), name) == valid.end()) {
      std::string hint = Suggest(name, valid);
      Error(key.Mark(), path,
            fmt::format("unknown key '{}' ({}expected one of: {})", name,
                        hint.empty() ? "" : fmt::format("did you mean '{}'? ", hint),
                        JoinNames(valid)));
      continue;
    }
    if (fields.Get(name) != nullptr) {
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

std::optional<std::vector<Ref>> YamlReader::Seq(const Ref& ref) {
  if (!ref.node.IsSequence()) {
    Error(ref, fmt::format("expected a list, found {}", Describe(ref.node)));
    return std::nullopt;
  }
  std::vector<Ref> items;
  for (size_t i = 0; i < ref.node.size(); ++i) {
    YAML::Node item = ref.node[i];
    items.push_back(Ref{item, MarkOf(item, ref.mark), IndexPath(ref.path, i)});
  }
  return items;
}

std::optional<std::string> YamlReader::Text(const Ref& ref, bool allow_empty) {
  if (ref.node.IsNull() && allow_empty) return std::string();
  if (!ref.node.IsScalar()) {
    Error(ref, fmt::format("expected text, found {}", Describe(ref.node)));
    return std::nullopt;
  }
  if (ref.node.Scalar().empty() && !allow_empty) {
    Error(ref, "must not be empty");
    return std::nullopt;
  }
  return ref.node.Scalar();
}

std::optional<std::string> YamlReader::ExprText(const Ref& ref) {
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

std::optional<std::vector<std::string>> YamlReader::TextList(const Ref& ref) {
  std::optional<std::vector<std::pair<std::string, Ref>>> items = TextItems(ref);
  if (!items) return std::nullopt;
  std::vector<std::string> texts;
  for (auto& [text, unused] : *items) texts.push_back(std::move(text));
  return texts;
}

std::optional<std::vector<std::pair<std::string, Ref>>> YamlReader::TextItems(const Ref& ref) {
  std::vector<Ref> refs;
  if (ref.node.IsScalar()) {
    refs.push_back(ref);
  } else if (std::optional<std::vector<Ref>> items = Seq(ref)) {
    refs = std::move(*items);
  } else {
    return std::nullopt;
  }
  std::vector<std::pair<std::string, Ref>> out;
  bool ok = true;
  for (const Ref& item : refs) {
    std::optional<std::string> text = Text(item);
    if (text) out.emplace_back(*text, item);
    ok = ok && text.has_value();
  }
  if (!ok) return std::nullopt;
  return out;
}

}  // namespace racelab::internal
