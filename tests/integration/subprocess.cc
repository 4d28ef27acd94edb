#include "tests/integration/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace racelab::testing {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A new empty file of our own (mkstemp); the destructor removes it.
std::string TempPath(const char* tag) {
  std::string tmpl = std::string("/tmp/racelab-test-XXXXXX") + tag;
  int fd = mkstemps(tmpl.data(), static_cast<int>(std::strlen(tag)));
  if (fd >= 0) close(fd);
  return tmpl;
}

}  // namespace

Subprocess::Subprocess(const std::vector<std::string>& argv,
                       const std::map<std::string, std::string>& env)
    : out_path_(TempPath(".out")),
      err_path_(TempPath(".err")),
      start_(std::chrono::steady_clock::now()) {
  std::string cwd = "/tmp/racelab-test-XXXXXX";
  if (mkdtemp(cwd.data()) != nullptr) {
    cwd_ = cwd;
    chmod(cwd_.c_str(), 0777);  // the embedded cluster's unprivileged user may need to enter it
  }
  pid_ = fork();
  if (pid_ == 0) {
    // A working folder of its own: a run's default --out (racelab-reports/) never meets another
    // test's, which would hold it (harness/cli/report_folder.h).
    if (!cwd_.empty() && chdir(cwd_.c_str()) != 0) _exit(126);
    int out = open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int in = open("/dev/null", O_RDONLY);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    // The test runner may block signals; the child must see SIGINT/SIGTERM like a shell's child.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
}

Subprocess::~Subprocess() {
  if (pid_ > 0 && !reaped_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  unlink(out_path_.c_str());
  unlink(err_path_.c_str());
  if (!cwd_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(cwd_, ec);
  }
}

std::string Subprocess::StderrSoFar() const { return ReadFile(err_path_); }

bool Subprocess::WaitForStderr(const std::string& text, std::chrono::milliseconds deadline) {
  auto until = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < until) {
    if (ReadFile(err_path_).find(text) != std::string::npos) return true;
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      // Exited: put the status back is impossible; record it by re-reading later via Wait().
      reaped_ = true;
      last_status_ = status;
      return ReadFile(err_path_).find(text) != std::string::npos;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

void Subprocess::Signal(int sig) {
  if (!reaped_) kill(pid_, sig);
}

ProcessResult Subprocess::Wait(std::chrono::milliseconds deadline) {
  ProcessResult r;
  auto until = std::chrono::steady_clock::now() + deadline;
  int status = last_status_;
  while (!reaped_) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      reaped_ = true;
      break;
    }
    if (std::chrono::steady_clock::now() >= until) {
      r.timed_out = true;
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      reaped_ = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  r.elapsed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  r.exit_code = WIFEXITED(status)     ? WEXITSTATUS(status)
                : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                      : -1;
  r.out = ReadFile(out_path_);
  r.err = ReadFile(err_path_);
  return r;
}

ProcessResult RunProcess(const std::vector<std::string>& argv, std::chrono::milliseconds deadline,
                         const std::map<std::string, std::string>& env) {
  Subprocess p(argv, env);
  return p.Wait(deadline);
}

}  // namespace racelab::testing
