// Test helper: runs a command with a deadline and captures its output and exit status.
// Thread-safety: each call is independent.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace racelab::testing {

struct ProcessResult {
  int exit_code = -1;      // WEXITSTATUS, or 128 + signal when killed by one
  bool timed_out = false;  // the deadline passed; the process was killed
  std::string out, err;
  double elapsed_ms = 0;
};

class Subprocess {
 public:
  // Starts argv[0] (a path) with extra environment variables; stdout/stderr go to temp files. It
  // runs in a working folder of its own (/tmp/racelab-test-*, removed with the object), so what it
  // writes by default (racelab run's racelab-reports/) meets no other test's.
  Subprocess(const std::vector<std::string>& argv,
             const std::map<std::string, std::string>& env = {});
  ~Subprocess();  // kills the process if it still runs

  // Waits until stderr contains `text` (true) or the deadline / process exit (false).
  bool WaitForStderr(const std::string& text, std::chrono::milliseconds deadline);
  // What it has written to stderr so far.
  std::string StderrSoFar() const;
  void Signal(int sig);
  // Waits for exit; past `deadline` sends SIGKILL and reports timed_out.
  ProcessResult Wait(std::chrono::milliseconds deadline);
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  std::string out_path_, err_path_;
  std::chrono::steady_clock::time_point start_;
  std::string
      cwd_;  // the child's working folder; empty if it could not be made (then the test's own)
  bool reaped_ = false;
  int last_status_ = 0;  // wait status once reaped
};

// Convenience: start, wait, collect.
ProcessResult RunProcess(const std::vector<std::string>& argv, std::chrono::milliseconds deadline,
                         const std::map<std::string, std::string>& env = {});

}  // namespace racelab::testing
