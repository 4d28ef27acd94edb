// What a postmaster leaves behind when it is killed, for EmbeddedCluster and CleanOrphans(): its
// postmaster.pid and SysV shared memory. The run folders and their owner file are the embedded
// servers' shared bookkeeping (harness/engines/embedded/run_folders.h).
// Thread-safety: stateless, safe to call concurrently.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "harness/model/status.h"

namespace racelab::internal {

// What data/postmaster.pid says: line 1 the postmaster pid, line 7 "<shm key> <shm id>".
struct PostmasterPidFile {
  pid_t pid = -1;
  int shm_id = -1;  // the SysV segment the postmaster created (-1: none recorded)
};
std::optional<PostmasterPidFile> ReadPostmasterPid(const std::string& data_dir);

// A postmaster killed with SIGKILL leaves its small SysV shared memory segment behind; removes it
// if it is the one `pm` created (its creator pid matches). Call after the postmaster is gone: the
// kernel frees a removed segment when its last attached process (a backend) has exited.
void RemoveLeftoverShm(const PostmasterPidFile& pm);

// Whether the segment `pm` names no longer exists, is marked for removal, or is not the one `pm`
// created (its id was reused).
bool ShmGone(const PostmasterPidFile& pm);

// The record of a server's shared memory outside its run folder: <base>/ipc-<run folder name>,
// holding the postmaster.pid fields "<pid> <shm id>\n". Written once the server is ready, removed
// once the segment is gone. It outlives the run folder when the segment could not be removed when
// the run ended (e.g. the server was killed and a backend still held it), so that CleanOrphans()
// (the next run, `racelab clean`) still finds the segment.
std::string IpcRecordPath(const std::string& run_dir);
Status WriteIpcRecord(const std::string& run_dir, const PostmasterPidFile& pm);
// Removes the segments of records whose run folder is gone (killing what is left of their server
// first), and the records whose segment is gone. Returns how many records it removed.
int SweepIpcRecords(const std::string& base_dir);

}  // namespace racelab::internal
