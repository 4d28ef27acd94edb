#include "harness/engines/postgresql/template.h"

#include <filesystem>

#include "harness/engines/embedded/process.h"
#include "harness/engines/embedded/template_dir.h"

namespace racelab::internal {
namespace {

namespace fs = std::filesystem;

// Runs initdb into `data_dir` (an empty folder owned by `user`), its output in `log_path`.
Status RunInitdb(const PgBinaries& bins, const std::string& data_dir, const std::string& log_path,
                 const embedded::ServerUser& user) {
  return embedded::RunToCompletion({bins.initdb(), "-D", data_dir, "-U", "racelab", "--auth=trust",
                                    "-E", "UTF8", "--no-locale", "-N"},
                                   log_path, user, kInitdbTimeout, "initdb");
}

}  // namespace

Result<TemplateDir> EnsureTemplate(const PgBinaries& bins, const std::string& base_dir,
                                   const embedded::ServerUser& user) {
  embedded::TemplateMaker maker;
  maker.path = base_dir + "/template-" + bins.major;
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
