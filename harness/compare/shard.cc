#include "harness/compare/shard.h"

#include <fmt/format.h>

#include <charconv>
#include <sstream>

namespace racelab::compare {
namespace {

constexpr size_t kMaxShards = 1000;

bool ParseCount(std::string_view text, size_t* out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

Result<Shard> ParseShard(const std::string& text) {
  const size_t slash = text.find('/');
  Shard s;
  if (slash == std::string::npos || !ParseCount(std::string_view(text).substr(0, slash), &s.k) ||
      !ParseCount(std::string_view(text).substr(slash + 1), &s.n) || s.n < 1 || s.n > kMaxShards ||
      s.k < 1 || s.k > s.n) {
    return Status::Usage(fmt::format("--shard '{}': expected K/N with 1 <= K <= N <= {} (e.g. 2/4)",
                                     text, kMaxShards));
  }
  return s;
}

std::optional<Shard> ShardOfCommand(const std::string& command) {
  std::istringstream in(command);
  std::string word, previous;
  while (in >> word) {
    std::string value;
    if (previous == "--shard")
      value = word;
    else if (word.rfind("--shard=", 0) == 0)
      value = word.substr(8);
    previous = word;
    if (value.empty()) continue;
    auto s = ParseShard(value);
    if (s.ok()) return *s;
  }
  return std::nullopt;
}

}  // namespace racelab::compare
