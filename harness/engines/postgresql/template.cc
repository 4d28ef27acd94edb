#include "harness/engines/postgresql/template.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <vector>

#include "harness/engines/embedded/process.h"
#include "harness/engines/embedded/template_dir.h"

namespace racelab::internal {
namespace {

namespace fs = std::filesystem;

// Runs initdb into `data_dir` (an empty folder owned by `user`), its output in `log_path`.
Status RunInitdb(const PgBinaries& bins, const std::string& data_dir, const std::string& log_path,
                 const embedded::ServerUser& user) {
  return embedded::RunToCompletion({bins.initdb(), "-D", data_dir, "-U", "racelab", "--auth=trust",
                                    "-E", "UTF8", "--no-locale", "-N", kWalSegmentOption},
                                   log_path, user, kInitdbTimeout, "initdb");
}

// Whether `name` is a template folder of an earlier racelab: template-<major> (16 MB WAL segments),
// without this version's suffix.
bool IsObsoleteTemplate(const std::string& name) {
  const std::string prefix = "template-";
  if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size()) return false;
  return std::all_of(name.begin() + static_cast<long>(prefix.size()), name.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

}  // namespace

std::vector<std::string> ListObsoleteTemplates(const std::string& base_dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(base_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && IsObsoleteTemplate(it->path().filename().string())) out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

int CleanObsoleteTemplates(const std::string& base_dir) {
  int removed = 0;
  for (const std::string& path : ListObsoleteTemplates(base_dir)) {
    std::error_code ec;
    if (fs::remove_all(path, ec) > 0 && !ec) ++removed;
    fs::remove(path + ".lock", ec);
  }
  return removed;
}

Result<TemplateDir> EnsureTemplate(const PgBinaries& bins, const std::string& base_dir,
                                   const embedded::ServerUser& user) {
  embedded::TemplateMaker maker;
  maker.path = base_dir + "/template-" + bins.major + kTemplateSuffix;
  maker.complete = [](const std::string& data_dir) {
    std::error_code ec;
    return fs::exists(fs::path(data_dir) / "PG_VERSION", ec);
  };
  maker.make = [&](const std::string& data_dir, const std::string& work_dir) {
    return RunInitdb(bins, data_dir, work_dir + "/initdb.log", user);
  };
  maker.lock_timeout = kInitdbTimeout + std::chrono::seconds(30);
  Result<embedded::TemplateDir> made = embedded::EnsureTemplate(maker, user);
  if (!made.ok()) return made.status();
  return TemplateDir{made->data_dir, made->made};
}

}  // namespace racelab::internal
