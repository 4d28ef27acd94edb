#include "bench/claim_sql.h"

#include <cctype>
#include <optional>
#include <sstream>

namespace racelab::bench {
namespace {

std::optional<IsolationLevel> LevelOfSlug(const std::string& slug) {
  for (IsolationLevel level : AllIsolationLevels())
    if (LevelSlug(level) == slug) return level;
  return std::nullopt;
}

std::vector<std::string> Split(const std::string& name) {
  std::vector<std::string> parts;
  std::stringstream in(name);
  for (std::string part; std::getline(in, part, '/');) parts.push_back(part);
  return parts;
}

}  // namespace

std::string LevelSlug(IsolationLevel level) {
  std::string s(IsolationName(level));
  for (char& c : s) c = c == ' ' ? '_' : c;
  return s;
}

std::string BeginSql(IsolationLevel level) {
  std::string s(IsolationName(level));
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return "BEGIN ISOLATION LEVEL " + s;
}

std::string StrategyUpdateSql(const std::string& id) {
  return "UPDATE runs SET status = 'running', attempts = attempts + 1 WHERE id = " + id +
         " RETURNING attempts";
}

std::vector<std::string> StrategyStatements(Strategy s) {
  switch (s) {
    case Strategy::kGuardedCas:
      return {kStrategyCasSql};
    case Strategy::kAdvisory:
      return {kAdvisoryLockSql, PickSql(s), StrategyUpdateSql("$1")};
    case Strategy::kNaive:
    case Strategy::kForUpdate:
    case Strategy::kNowait:
    case Strategy::kSkipLocked:
      return {PickSql(s), StrategyUpdateSql("$1")};
  }
  return {};
}

std::map<std::string, std::string> SqlContext(const std::vector<std::string>& families) {
  std::map<std::string, std::string> out;
  for (const std::string& family : families) {
    const std::vector<std::string> parts = Split(family);
    std::optional<IsolationLevel> level;
    if (parts.size() >= 2 && parts[0] == "guarded_cas_claim") {
      level = LevelOfSlug(parts[1]);
      if (level) out["claim_sql"] = kClaimSql;
    } else if (parts.size() >= 3 && parts[0] == "strategy") {
      for (Strategy s : kAllStrategies) {
        if (parts[1] != StrategyName(s) || !(level = LevelOfSlug(parts[2]))) continue;
        std::string joined;
        for (const std::string& statement : StrategyStatements(s))
          joined += (joined.empty() ? "" : "; ") + statement;
        out["strategy_sql_" + parts[1]] = joined;
      }
    }
    if (level) out["begin_sql_" + LevelSlug(*level)] = BeginSql(*level);
  }
  return out;
}

}  // namespace racelab::bench
