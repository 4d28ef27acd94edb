// The private folders of exec sessions' programs (harness/run/program.h), and the sweep of those a
// killed racelab left behind (`racelab clean`, docs/race-your-own-code.md "What racelab leaves").
//
// Each Program makes <base>/racelab-exec-<racelab pid>-XXXXXX (mkdtemp, 0700; <base>: $TMPDIR when
// it is an absolute path, else /tmp) holding its pause socket, owner.pid (the racelab process and
// its start time, as an embedded server's run folder has: harness/engines/embedded/run_folders.h)
// and pgid (the program's process group). A racelab ended by SIGKILL cannot remove the folder nor
// kill the group; the sweep does both once owner.pid proves its racelab gone. It kills a group only
// while a member of it still carries this folder's RACELAB_PAUSE in its environment
// (/proc/<pid>/environ), so a process group id reused by an unrelated program is left alone.
// Thread-safety: stateless; safe from any thread and alongside other racelab processes.
#pragma once

#include <string>
#include <vector>

namespace racelab::internal {

inline constexpr const char* kProgramFolderPrefix = "racelab-exec-";

// $TMPDIR when it is an absolute path, else "/tmp".
std::string ProgramFolderBase();

// The program folders under `base` whose racelab is gone, as absolute paths, sorted; nothing is
// touched (`racelab clean --dry-run`). A folder without owner.pid yet is not listed.
std::vector<std::string> DeadProgramFolders(const std::string& base = ProgramFolderBase());

// For each dead folder: kills what is left of its program's process group (SIGKILL, waiting up to
// 2 s for the group to go), then removes the folder. A folder whose group would not go is kept
// for a later call. Returns how many folders it removed.
int CleanDeadProgramFolders(const std::string& base = ProgramFolderBase());

}  // namespace racelab::internal
