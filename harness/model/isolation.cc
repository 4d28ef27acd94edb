#include "harness/model/isolation.h"

#include <algorithm>
#include <cctype>

namespace racelab {

std::string_view IsolationName(IsolationLevel level) {
  switch (level) {
    case IsolationLevel::kReadUncommitted:
      return "read uncommitted";
    case IsolationLevel::kReadCommitted:
      return "read committed";
    case IsolationLevel::kRepeatableRead:
      return "repeatable read";
    case IsolationLevel::kSerializable:
      return "serializable";
  }
  return "read committed";
}

std::optional<IsolationLevel> ParseIsolation(std::string_view text) {
  std::string norm;
  for (char c : text) {
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    norm.push_back(l == '-' || l == '_' ? ' ' : l);
  }
  if (norm == "read uncommitted" || norm == "ru") return IsolationLevel::kReadUncommitted;
  if (norm == "read committed" || norm == "rc") return IsolationLevel::kReadCommitted;
  if (norm == "repeatable read" || norm == "rr") return IsolationLevel::kRepeatableRead;
  if (norm == "serializable" || norm == "ser") return IsolationLevel::kSerializable;
  return std::nullopt;
}

const std::vector<IsolationLevel>& AllIsolationLevels() {
  static const std::vector<IsolationLevel> kAll = {IsolationLevel::kReadCommitted,
                                                   IsolationLevel::kRepeatableRead,
                                                   IsolationLevel::kSerializable};
  return kAll;
}

}  // namespace racelab
