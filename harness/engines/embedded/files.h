// File-system helpers for the embedded servers: the base folder, copies that belong to the server
// user, atomic small files, log tails, finding a program. Shared by harness/engines/postgresql and
// harness/engines/mariadb.
// Thread-safety: stateless, safe to call concurrently (on different targets for the writers).
#pragma once

#include <string>

#include "harness/engines/embedded/process.h"
#include "harness/model/status.h"

namespace racelab::embedded {

// Creates `dir` (and its parents) if needed. `dir` itself must be a real folder (not a symlink)
// owned by the current user; when `user.drop`, it is made traversable (o+x) for the server user,
// and every parent must already be. Errors: kInternal / kUsage (explains which folder and why).
Status PrepareBaseDir(const std::string& dir, const ServerUser& user);

// Creates the folder `dir` (its parent must exist) with `mode`, owned by `user`. Errors: kInternal;
// EEXIST is reported as an error too (callers pick unique names).
Status MakeOwnedDir(const std::string& dir, unsigned mode, const ServerUser& user);

// Copies the tree `from` into the new folder `to` (must not exist), keeping permission bits; every
// copy is owned by `user` (lchown when racelab runs as root). Symlinks are copied as symlinks.
Status CopyTreeAs(const std::string& from, const std::string& to, const ServerUser& user);

// Writes `content` to `path` via a temporary file and rename(), so readers see all or nothing.
Status WriteFileAtomic(const std::string& path, const std::string& content);

// The whole file (small files only), empty if unreadable.
std::string ReadSmallFile(const std::string& path);

// The last `max_lines` lines of a log file (at most 4 KB), for error messages; "(empty log)" if
// none.
std::string TailOfFile(const std::string& path, int max_lines = 20);

// The first `max_lines` lines of a log file (its first 1 MB) that say ERROR or FATAL (any case),
// each ending in '\n'; empty if none. A failing mariadb-install-db or initdb prints its cause
// early and ends with generic advice, which TailOfFile alone would show.
std::string ErrorLinesOfFile(const std::string& path, int max_lines = 10);

// Removes a tree, ignoring errors (something else may be removing it at the same time). Returns
// true when `path` no longer exists.
bool RemoveTree(const std::string& path);

// The first folder on $PATH (default "/usr/local/bin:/usr/bin:/bin") holding an executable regular
// file `name`; empty if none.
std::string FindOnPath(const std::string& name);

}  // namespace racelab::embedded
