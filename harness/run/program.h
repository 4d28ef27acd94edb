// Program: one exec session's process for one trial (docs/race-your-own-code.md) — started in a
// process group of its own, its output captured (bounded), its pause points read from a Unix
// socket, and the whole group killed when the trial is over, at its deadline, on abandonment and
// on Ctrl-C: nothing it started in its group survives the Program.
//
// Started with posix_spawn (POSIX_SPAWN_SETPGROUP, a cleared signal mask and default handlers: the
// runner's threads block SIGINT/SIGTERM for the signal thread, and a child inherits the mask), not
// Boost.Process: 1.74 has no process-group option but an executor extension, and its pipes and
// exit notification want an io_context of their own, while one poll() here waits on the output
// pipes and the pause socket together, in slices that see the trial's abort and the stop flag.
//
// The pause protocol: RACELAB_PAUSE names a socket in a private folder (0700, under $TMPDIR or
// /tmp), removed with the Program. The program connects (as often as it likes), writes `NAME\n`
// and blocks until it reads `go\n`. A half-closed connection (socat, `nc -N`) still gets its go.
//
// Thread-safety: one thread (the session's worker) uses a Program.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "harness/model/status.h"
#include "harness/model/stop_flag.h"
#include "harness/model/trial_result.h"
#include "harness/run/trial_clock.h"

namespace racelab::internal {

struct ProgramSpec {
  std::string program;                                   // absolute path of the executable
  std::vector<std::string> argv;                         // argv[0] as written
  std::string dir;                                       // its working directory
  std::vector<std::pair<std::string, std::string>> env;  // set on top of racelab's environment
};

class Program {
 public:
  static constexpr size_t kOutputTailBytes = 64 << 10;   // kept of each of stdout and stderr
  static constexpr int64_t kOutputLimitBytes = 8 << 20;  // more on one stream: killed, an error
  static constexpr size_t kMaxPauseLine = 255;           // a longer line is a protocol error

  // Makes the socket and starts the program; RACELAB_PAUSE is added to spec.env. Errors: kInternal
  // (no folder or socket), kUsage (the executable cannot be started: errno's words).
  static Result<std::unique_ptr<Program>> Start(ProgramSpec spec);
  ~Program();  // Kill()s what is left, reaps it, removes the socket's folder
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  struct Event {
    enum class Kind {
      kPause,     // it wrote `pause\n` and waits for Release()
      kExited,    // it exited (or was killed by a signal): Ended()
      kTimedOut,  // `deadline` came first; it still runs
      kStopped,   // `abort` or a stop request; it still runs
      kOverflow,  // it wrote more than kOutputLimitBytes on one stream: already killed
      kProtocol,  // a line that is no pause point name (`pause` says what): it still runs
    };
    Kind kind = Kind::kExited;
    std::string pause;
  };
  // Waits for its next pause point or its exit, reading its output meanwhile, until `deadline`,
  // `*abort` or a stop request (checked every 50 ms at most).
  Event Await(SteadyTime deadline, const std::atomic<bool>* abort, const StopFlag* stop);
  // Answers the pause point Await() returned with `go\n`; false when the program hung up.
  bool Release();
  // SIGKILL to its process group, then reaps it; `why` is recorded as how it ended. Idempotent.
  void Kill(const std::string& why);

  pid_t pid() const { return pid_; }  // also its process group id
  const std::string& pause_path() const { return socket_path_; }
  // How it ended and the last of its output (SessionResult::Program).
  SessionResult::Program Outcome() const;
  // The last lines of its stderr (else stdout), at most `bytes`, for an error message.
  std::string LastOutput(size_t bytes) const;
  // Whether any process of group `pgid` still exists (kill(-pgid, 0)).
  static bool GroupAlive(pid_t pgid);

 private:
  struct Stream {
    int fd = -1;
    std::string tail;
    int64_t bytes = 0;
  };
  struct Client {
    int fd = -1;
    std::string buffer;
    bool read_closed = false;  // it half-closed: poll it no more, still answer it
  };
  Program() = default;
  void ReadStream(Stream* s);
  void ReadClient(Client* c);
  // A complete line from a client: true with *line (the pending pause's client remembered).
  bool TakeLine(std::string* line, bool* bad);
  bool CheckExited();  // the leader exited (not reaped yet: its group id stays reserved)
  void Reap();

  pid_t pid_ = -1;
  bool exited_ = false;
  bool reaped_ = false;
  int status_ = 0;
  std::string ended_;  // set by Kill or at the exit
  std::string dir_, socket_path_;
  int listen_fd_ = -1;
  std::vector<Client> clients_;
  int pending_ = -1;  // the client whose pause waits for Release()
  Stream out_, err_;
};

}  // namespace racelab::internal
