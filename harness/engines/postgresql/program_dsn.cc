#include "harness/engines/postgresql/program_dsn.h"

#include <libpq-fe.h>

#include <memory>

#include "harness/engines/postgresql/application_name.h"
#include "harness/engines/postgresql/dsn.h"

namespace racelab::pg {

std::string EscapeOptionWord(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == ' ' || c == '\\' || c == '\t') out += '\\';
    out += c;
  }
  return out;
}

Result<std::string> ProgramConninfo(
    const std::string& base, const std::string& workspace, const std::string& label,
    IsolationLevel level, const std::vector<std::pair<std::string, std::string>>& settings) {
  std::string options;
  {
    char* err = nullptr;
    std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)> parsed(
        PQconninfoParse(base.c_str(), &err), &PQconninfoFree);
    if (err != nullptr) PQfreemem(err);
    if (!parsed) return Status::Usage("the connection string for programs does not parse");
    for (PQconninfoOption* o = parsed.get(); o->keyword != nullptr; ++o) {
      if (std::string(o->keyword) == "options" && o->val != nullptr) options = o->val;
    }
  }
  auto add = [&options](const std::string& name, const std::string& value) {
    options +=
        (options.empty() ? "" : " ") + std::string("-c ") + name + "=" + EscapeOptionWord(value);
  };
  add("search_path", workspace);
  add("default_transaction_isolation", std::string(IsolationName(level)));
  for (const auto& [name, value] : settings) add(name, value);
  return ConninfoWithOverrides(
      base, {{"application_name", ApplicationName("racelab:" + label)}, {"options", options}});
}

}  // namespace racelab::pg
