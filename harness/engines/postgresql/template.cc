#include "harness/engines/postgresql/template.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <vector>

#include "harness/engines/embedded/process.h"
#include "harness/engines/embedded/run_folders.h"
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

// Whether `name` is a template folder of this version: template-<major>-wal1.
bool IsCurrentTemplate(const std::string& name) {
  const std::string suffix = kTemplateSuffix;
  if (name.size() <= suffix.size() ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return false;
  }
  return IsObsoleteTemplate(name.substr(0, name.size() - suffix.size()));
}

// This version's complete templates under `base_dir`, sorted; none while a live run has a folder
// there.
std::vector<std::string> CurrentTemplatesOfUnusedBase(const std::string& base_dir) {
  std::vector<std::string> out;
  if (embedded::HasLiveRunFolder(base_dir)) return out;
  std::error_code ec;
  for (fs::directory_iterator it(base_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && IsCurrentTemplate(it->path().filename().string()))
      out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<std::string> ListUnusedTemplates(const std::string& base_dir) {
  std::vector<std::string> out;
  for (const std::string& path : CurrentTemplatesOfUnusedBase(base_dir)) {
    if (embedded::TemplateFree(path)) out.push_back(path);
  }
  return out;
}

int CleanUnusedTemplates(const std::string& base_dir) {
  int removed = 0;
  for (const std::string& path : CurrentTemplatesOfUnusedBase(base_dir)) {
    if (embedded::RemoveTemplateUnlessHeld(path)) ++removed;
  }
  return removed;
}

std::vector<std::string> ListObsoleteTemplates(const std::string& base_dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(base_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && IsObsoleteTemplate(it->path().filename().string()))
      out.push_back(it->path().string());
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
                                   const embedded::ServerUser& user, embedded::TemplateLock* hold) {
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
  Result<embedded::TemplateDir> made = embedded::EnsureTemplate(maker, user, hold);
  if (!made.ok()) return made.status();
  return TemplateDir{made->data_dir, made->made};
}

}  // namespace racelab::internal
