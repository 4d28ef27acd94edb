#include "harness/cli/target_notice.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace racelab::cli {

const std::vector<std::string>& PgTargetVariables() {
  static const std::vector<std::string> kNames = {
      "PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGSERVICE", "PGSERVICEFILE"};
  return kNames;
}

std::vector<std::string> SetPgTargetVariables(
    const std::function<const char*(const char*)>& getenv) {
  std::vector<std::string> set;
  for (const std::string& name : PgTargetVariables()) {
    const char* value = getenv(name.c_str());
    if (value != nullptr && *value != '\0') set.push_back(name);
  }
  return set;
}

std::string EmbeddedDespitePgEnvironment(const std::vector<std::string>& set) {
  if (set.empty()) return "";
  return fmt::format(
      "racelab: {} {} set but no --dsn was given: this run uses a throwaway embedded PostgreSQL, "
      "not the "
      "server {} (to run there: --dsn postgresql://, which takes everything from {})",
      fmt::join(set, ", "), set.size() == 1 ? "is" : "are",
      set.size() == 1 ? "it names" : "they name", set.size() == 1 ? "it" : "them");
}

}  // namespace racelab::cli
