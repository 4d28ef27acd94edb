// Run folders of the embedded servers: <base>/run-<racelab pid>-<n>, one per started server,
// holding its data folder, socket and logs, removed when the server stops. Shared by
// harness/engines/postgresql (the cluster) and harness/engines/mariadb (the server).
//
// <run_dir>/owner.pid holds "<pid>\n<start time>\n": the racelab process that owns the run and its
// start time (clock ticks since boot, /proc/<pid>/stat field 22), so a pid reused by an unrelated
// process is not mistaken for the owner. A run folder without the file yet is judged by the pid in
// its name. A racelab killed with SIGKILL leaves its run folder (its server got SIGKILL too, by
// PR_SET_PDEATHSIG, unless it was stopped); CleanRunFolders() on the next start removes it.
// Thread-safety: stateless, safe to call concurrently from threads and processes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "harness/engines/embedded/process.h"
#include "harness/model/status.h"

namespace racelab::embedded {

// $RACELAB_TMPDIR, else $TMPDIR, else `preferred` when not empty, else /tmp, + "/racelab-<euid>",
// + "/" + `sub` when not empty.
std::string DefaultBaseDir(const std::string& sub, const std::string& preferred = "");

// $RACELAB_TMPDIR, when set, must name a folder that exists, by an absolute path: racelab makes
// only its own racelab-<euid> folder in it, never the folders above (a typo, or a relative path
// resolved against whatever folder racelab runs in, would otherwise leave a tree with a cached
// template that nobody looks for). kUsage naming the variable and the path otherwise; Ok when it is
// unset or empty.
Status CheckTmpdirVariable();

// "/dev/shm" when it is a tmpfs (statfs) that this process may write into and that has at least
// `min_free_bytes` free for an unprivileged user, else "". A server's files there live in memory:
// no disk, and no file system that is slow to create files (docs/performance.md "Time to the first
// result: where it goes").
std::string MemoryTmpDir(unsigned long long min_free_bytes);

// `dir` made absolute and lexically normal, without a trailing '/'.
std::string NormalizeBaseDir(const std::string& dir);

// Creates <base_dir>/run-<pid>-<n> (0700, owned by `user`), skipping names already taken (e.g. left
// by an earlier process with the same pid). `check` (may be empty) vets each candidate name first,
// e.g. that a socket path inside it fits sockaddr_un; its error is returned.
// Errors: kInternal (file system, no free name), or `check`'s.
Result<std::string> CreateRunDir(const std::string& base_dir, const ServerUser& user,
                                 const std::function<Status(const std::string&)>& check = {});

// Writes owner.pid for the current process into `run_dir`, atomically.
Status WriteOwnerFile(const std::string& run_dir);

// Whether the racelab process that owns `run_dir` is gone (exited, a zombie, or its pid reused).
// False when it cannot tell (then the folder is left alone).
bool OwnerGone(const std::string& run_dir);

// Removes the run folders under `base_dir` whose owner is gone, calling `stop_server(run_dir)`
// first: it must end what is left of that folder's server, bounded in time, and return false when
// something would not go (the folder is then kept for a later call). Returns how many folders it
// removed. Safe to call while other racelab processes run (folders may vanish meanwhile).
int CleanRunFolders(const std::string& base_dir,
                    const std::function<bool(const std::string& run_dir)>& stop_server);

// Whether a run folder under `base_dir` belongs to a live racelab (or one it cannot judge): the
// base folder is in use.
bool HasLiveRunFolder(const std::string& base_dir);

// The run folders under `base_dir` whose owner is gone — what CleanRunFolders would remove — as
// absolute paths, sorted; nothing is touched (`racelab clean --dry-run`).
std::vector<std::string> DeadRunFolders(const std::string& base_dir);

}  // namespace racelab::embedded
