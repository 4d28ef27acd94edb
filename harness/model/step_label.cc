#include "harness/model/step_label.h"

#include <cctype>
#include <vector>

#include "harness/model/step_kind.h"

namespace racelab::internal {
namespace {

bool IsWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' ||
         (static_cast<unsigned char>(c) & 0x80) != 0;
}

std::string Upper(std::string_view word) {
  std::string out(word);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// The statement's words outside parentheses, in order; a parenthesised group is one token "(…)";
// comments and string literals are dropped; a double-quoted identifier is one word.
std::vector<std::string> TopLevelWords(std::string_view sql) {
  std::vector<std::string> words;
  size_t i = 0;
  int depth = 0;
  while (i < sql.size()) {
    const char c = sql[i];
    if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      while (i < sql.size() && sql[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < sql.size() && sql[i + 1] == '*') {
      const size_t end = sql.find("*/", i + 2);
      i = end == std::string_view::npos ? sql.size() : end + 2;
    } else if (c == '\'') {
      ++i;
      while (i < sql.size() && sql[i] != '\'') ++i;
      ++i;
    } else if (c == '(') {
      if (depth++ == 0) words.emplace_back("(…)");
      ++i;
    } else if (c == ')') {
      depth = depth > 0 ? depth - 1 : 0;
      ++i;
    } else if (depth > 0) {
      ++i;
    } else if (c == '"' || IsWordChar(c)) {
      const size_t start = i;
      if (c == '"') {
        const size_t end = sql.find('"', i + 1);
        i = end == std::string_view::npos ? sql.size() : end + 1;
      }
      while (i < sql.size() && IsWordChar(sql[i])) ++i;
      words.emplace_back(sql.substr(start, i - start));
    } else if (c == ';') {
      break;  // the first statement names the step
    } else {
      ++i;
    }
  }
  return words;
}

// The word after the first `keyword` (case-insensitive) at or after `from`; "" when none.
std::string After(const std::vector<std::string>& words, std::string_view keyword, size_t from) {
  for (size_t i = from; i + 1 < words.size(); ++i) {
    if (Upper(words[i]) == keyword) return words[i + 1];
  }
  return "";
}

bool Has(const std::vector<std::string>& words, std::string_view a, std::string_view b) {
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    if (Upper(words[i]) == a && Upper(words[i + 1]) == b) return true;
  }
  return false;
}

std::string SelectLabel(const std::vector<std::string>& words) {
  const std::string table = After(words, "FROM", 1);
  if (table.empty()) {
    // SELECT pg_advisory_lock(…): the first expression names it.
    if (words.size() < 2) return "SELECT";
    const bool call = words.size() > 2 && words[2] == "(…)";
    return "SELECT " + words[1] + (call ? "(…)" : "");
  }
  std::string label = "SELECT … FROM " + table;
  if (Has(words, "FOR", "UPDATE")) label += " FOR UPDATE";
  if (Has(words, "FOR", "SHARE")) label += " FOR SHARE";
  if (Has(words, "SKIP", "LOCKED")) label += " SKIP LOCKED";
  return label;
}

}  // namespace

bool IsGeneratedStepName(std::string_view name, StepKind kind) {
  const std::string_view key = InfoOf(kind).file_key;
  if (name.size() <= key.size() || name.substr(0, key.size()) != key) return false;
  for (char c : name.substr(key.size())) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return name[key.size()] != '0';
}

std::string SqlLabel(std::string_view sql) {
  const std::vector<std::string> words = TopLevelWords(sql);
  if (words.empty()) return "";
  const std::string verb = Upper(words[0]);
  if (verb == "SELECT") return SelectLabel(words);
  if (verb == "UPDATE") {
    const std::string table = words.size() > 1 && Upper(words[1]) == "ONLY"
                                  ? After(words, "ONLY", 1)
                              : words.size() > 1 ? words[1]
                                                 : "";
    return table.empty() ? verb : verb + " " + table;
  }
  if (verb == "INSERT" || verb == "REPLACE") {
    const std::string table = After(words, "INTO", 1);
    return table.empty() ? verb : verb + " INTO " + table;
  }
  if (verb == "DELETE") {
    const std::string table = After(words, "FROM", 1);
    return table.empty() ? verb : verb + " FROM " + table;
  }
  if (verb == "WITH") {
    // WITH … UPDATE runs / SELECT …: the main statement after the CTEs names it.
    for (size_t i = 1; i < words.size(); ++i) {
      const std::string w = Upper(words[i]);
      if (w == "SELECT" || w == "UPDATE" || w == "INSERT" || w == "DELETE") {
        std::vector<std::string> rest(words.begin() + static_cast<long>(i), words.end());
        std::string joined;
        for (const std::string& r : rest) joined += r + " ";
        return "WITH … " + SqlLabel(joined);
      }
    }
    return "WITH …";
  }
  // SET, LOCK TABLE runs, CALL f(…), PRAGMA …: the first three words.
  std::string label = verb;
  for (size_t i = 1; i < words.size() && i < 3; ++i) {
    label += (words[i] == "(…)" ? "" : " ") + words[i];
  }
  return label;
}

std::string StepLabel(std::string_view name, StepKind kind, std::string_view sql) {
  if (!IsGeneratedStepName(name, kind)) return std::string(name);
  switch (kind) {
    case StepKind::kSql: {
      std::string label = SqlLabel(sql);
      return label.empty() ? std::string(name) : label;
    }
    case StepKind::kBegin:
    case StepKind::kCommit:
    case StepKind::kRollback:
      return Upper(InfoOf(kind).report_name);
    case StepKind::kBarrier:
    case StepKind::kSleep:
    case StepKind::kAwaitBlocked:
    case StepKind::kAwaitEnded:
    case StepKind::kTerminate:
    case StepKind::kProbe:
    case StepKind::kProgram:
      break;
  }
  return std::string(InfoOf(kind).report_name);
}

std::string StepLabel(const StepEvent& e) {
  const std::string label = StepLabel(e.step, e.kind, e.sql);
  return e.attempt > 1 ? label + " #" + std::to_string(e.attempt) : label;
}

}  // namespace racelab::internal
