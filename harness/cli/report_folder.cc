#include "harness/cli/report_folder.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harness/model/terminal_text.h"
#include "reports/reporter.h"

namespace racelab::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPrevious = "previous";

// What the racelab.json in `dir` says of its run: "2026-12-02T00:41:46Z, 123 results"; `ran_trials`
// false only when it is readable and has no result.
struct EarlierRun {
  bool ran_trials = true;
  std::string what;
};

EarlierRun ReadEarlierRun(const fs::path& dir) {
  std::ifstream f(dir / "racelab.json");
  if (!f) return {true, "no racelab.json to date it"};
  nlohmann::json j = nlohmann::json::parse(f, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return {true, "its racelab.json unreadable"};
  const std::string created = j.value("created_at", std::string("date unknown"));
  const size_t results = j.contains("results") && j["results"].is_array() ? j["results"].size() : 0;
  if (results == 0) return {false, created};
  return {true, fmt::format("{}, {} result{}", created, results, results == 1 ? "" : "s")};
}

std::vector<std::string> ReportFilesIn(const fs::path& dir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const std::string& name : ReportFolder::ReportFileNames()) {
    if (fs::is_regular_file(dir / name, ec)) found.push_back(name);
  }
  return found;
}

// A folder as the user gave it, without a trailing '/' (the messages add one).
std::string Shown(const fs::path& p) {
  std::string text = p.string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return SanitizeForTerminal(text, false);
}

}  // namespace

std::vector<std::string> ReportFolder::ReportFileNames() {
  std::vector<std::string> names;
  for (const std::string& format : ReporterNames()) {
    auto r = MakeReporter(format);
    if (r.ok() && !(*r)->file_name().empty()) names.emplace_back((*r)->file_name());
  }
  // Written into the same folder by `racelab compare --out` and `run --baseline`
  // (harness/compare/compare_command.cc).
  names.emplace_back("racelab-compare.md");
  names.emplace_back("racelab-compare.junit.xml");
  return names;
}

Result<std::unique_ptr<ReportFolder>> ReportFolder::Open(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return Status::Usage(fmt::format("--out {}: cannot create the folder: {}", dir, ec.message()));
  const fs::path probe = fs::path(dir) / ".racelab-write-check";
  std::ofstream f(probe);
  const bool writable = static_cast<bool>(f);
  f.close();
  fs::remove(probe, ec);
  if (!writable)
    return Status::Usage(fmt::format("--out {}: cannot write files in this folder", dir));
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return Status::Usage(
        fmt::format("--out {}: cannot open the folder: {}", dir, std::strerror(errno)));
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    close(fd);
    if (err == EWOULDBLOCK) {
      return Status::Usage(
          fmt::format("--out {}: another racelab run is writing its reports there; give this run a "
                      "folder of its own "
                      "(--out DIR), or wait for that run to end",
                      dir));
    }
    return Status::Usage(
        fmt::format("--out {}: cannot hold the folder: {}", dir, std::strerror(err)));
  }
  std::unique_ptr<ReportFolder> folder(new ReportFolder(dir, fd));
  folder->earlier_ = ReportFilesIn(dir);
  return folder;
}

ReportFolder::~ReportFolder() { close(fd_); }  // closing the folder ends the flock

Status ReportFolder::MakeRoom(std::ostream& note) {
  if (made_room_) return Status::Ok();
  made_room_ = true;
  if (earlier_.empty()) return Status::Ok();
  const fs::path dir(dir_);
  const fs::path previous = dir / kPrevious;
  const EarlierRun earlier = ReadEarlierRun(dir);
  const std::vector<std::string> in_previous = ReportFilesIn(previous);
  if (!earlier.ran_trials) {
    // Nothing of value to keep: an error report. previous/ keeps the last run that ran trials.
    note << fmt::format(
        "racelab: replacing the reports in {}/ of an earlier run that ran no trial ({}){}\n",
        Shown(dir), SanitizeForTerminal(earlier.what, false),
        in_previous.empty()
            ? ""
            : fmt::format("; {}/ keeps the run before it ({})", Shown(previous),
                          SanitizeForTerminal(ReadEarlierRun(previous).what, false)));
    return Status::Ok();
  }
  std::error_code ec;
  fs::create_directories(previous, ec);
  if (ec) {
    return Status::Internal(
        fmt::format("cannot move the earlier run's reports aside into {}/: {}; this run's "
                    "reports were not written (give it --out DIR)",
                    previous.string(), ec.message()));
  }
  std::string replaced;
  if (!in_previous.empty())
    replaced = fmt::format(", replacing those of {}", ReadEarlierRun(previous).what);
  for (const std::string& name : in_previous) fs::remove(previous / name, ec);
  for (const std::string& name : earlier_) {
    fs::rename(dir / name, previous / name, ec);
    if (ec) {
      return Status::Internal(
          fmt::format("cannot move {} into {}/: {}; this run's reports were not written "
                      "(give it --out DIR)",
                      (dir / name).string(), previous.string(), ec.message()));
    }
  }
  note << fmt::format("racelab: {}/ held the reports of an earlier run ({}): moved to {}/{}\n",
                      Shown(dir), SanitizeForTerminal(earlier.what, false), Shown(previous),
                      SanitizeForTerminal(replaced, false));
  return Status::Ok();
}

}  // namespace racelab::cli
