#include "harness/run/program_folders.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "harness/engines/embedded/files.h"
#include "harness/engines/embedded/run_folders.h"

namespace racelab::internal {
namespace {

namespace fs = std::filesystem;

constexpr auto kGroupGoneDeadline = std::chrono::seconds(2);

// The folders named racelab-exec-* under `base` that this user owns.
std::vector<std::string> ProgramFolders(const std::string& base) {
  std::vector<std::string> out;
  std::error_code ec;
  fs::directory_iterator it(base, ec), end;
  for (; !ec && it != end; it.increment(ec)) {  // error_code: folders may vanish concurrently
    const std::string name = it->path().filename().string();
    std::error_code entry_ec;
    if (name.rfind(kProgramFolderPrefix, 0) != 0 || !it->is_directory(entry_ec)) continue;
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0 || st.st_uid != ::geteuid()) continue;
    out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The process group id of `pid` (/proc/<pid>/stat field 5), or -1.
pid_t GroupOf(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t paren = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (paren == std::string::npos) return -1;
  std::istringstream rest(stat.substr(paren + 1));
  std::string state;
  long ppid = 0, pgrp = -1;
  if (!(rest >> state >> ppid >> pgrp)) return -1;
  return static_cast<pid_t>(pgrp);
}

// Whether a live member of group `pgid` has `marker` ("RACELAB_PAUSE=<folder>/pause.sock") in its
// environment: the group is still the program's, not a reused id.
bool GroupIsTheProgram(pid_t pgid, const std::string& marker) {
  std::error_code ec;
  fs::directory_iterator it("/proc", ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string pid = it->path().filename().string();
    if (pid.empty() || !std::all_of(pid.begin(), pid.end(), ::isdigit)) continue;
    if (GroupOf(pid) != pgid) continue;
    std::ifstream in("/proc/" + pid + "/environ");
    std::string entry;
    while (std::getline(in, entry, '\0')) {
      if (entry == marker) return true;
    }
  }
  return false;
}

bool GroupAlive(pid_t pgid) { return ::kill(-pgid, 0) == 0 || errno == EPERM; }

// Ends what is left of `folder`'s program; false when its group would not go.
bool EndProgram(const std::string& folder) {
  const long pgid = std::atol(embedded::ReadSmallFile(folder + "/pgid").c_str());
  if (pgid <= 1) return true;  // never started, or no record of its group
  const std::string marker = "RACELAB_PAUSE=" + folder + "/pause.sock";
  if (!GroupIsTheProgram(static_cast<pid_t>(pgid), marker)) return true;
  ::kill(-static_cast<pid_t>(pgid), SIGKILL);
  const auto until = std::chrono::steady_clock::now() + kGroupGoneDeadline;
  while (GroupAlive(static_cast<pid_t>(pgid)) && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return !GroupAlive(static_cast<pid_t>(pgid));
}

}  // namespace

std::string ProgramFolderBase() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && tmp[0] == '/' ? std::string(tmp) : std::string("/tmp");
}

std::vector<std::string> DeadProgramFolders(const std::string& base) {
  std::vector<std::string> dead;
  for (const std::string& folder : ProgramFolders(base)) {
    std::error_code ec;
    if (!fs::exists(folder + "/owner.pid", ec)) continue;  // being made, or not racelab's
    if (embedded::OwnerGone(folder)) dead.push_back(folder);
  }
  return dead;
}

int CleanDeadProgramFolders(const std::string& base) {
  int removed = 0;
  for (const std::string& folder : DeadProgramFolders(base)) {
    if (!EndProgram(folder)) continue;  // try again next time
    if (embedded::RemoveTree(folder)) ++removed;
  }
  return removed;
}

}  // namespace racelab::internal
