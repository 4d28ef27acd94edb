#include "harness/engines/postgresql/template.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>
#include <vector>

#include "harness/engines/postgresql/files.h"

namespace racelab::internal {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// An exclusive flock, released on destruction (or when the process dies).
class FileLock {
 public:
  FileLock() = default;
  ~FileLock() {
    if (fd_ >= 0) close(fd_);  // closing the descriptor releases the flock
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  // Waits (polling every 20 ms) until the lock is ours, at most `timeout`. Errors: kDatabase on
  // timeout, kInternal when the lock file cannot be opened.
  Status Acquire(const std::string& path, std::chrono::milliseconds timeout) {
    fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) return Status::Internal("cannot open " + path + ": " + std::strerror(errno));
    const Clock::time_point deadline = Clock::now() + timeout;
    while (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK && errno != EINTR) {
        return Status::Internal("cannot lock " + path + ": " + std::strerror(errno));
      }
      if (Clock::now() >= deadline) {
        return Status::Database("another racelab process held " + path + " for more than " +
                                std::to_string(timeout.count() / 1000) +
                                " s while creating the template");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return Status::Ok();
  }

 private:
  int fd_ = -1;
};

bool IsComplete(const std::string& data_dir) {
  std::error_code ec;
  return fs::exists(fs::path(data_dir) / "PG_VERSION", ec);
}

// Removes <template>.tmp-* folders. REQUIRES: the template lock is held (only its holder makes
// them).
void RemoveStaleTemporaries(const std::string& base_dir, const std::string& template_name) {
  std::error_code ec;
  const std::string prefix = template_name + ".tmp-";
  std::vector<std::string> stale;
  fs::directory_iterator it(base_dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().rfind(prefix, 0) == 0) stale.push_back(it->path().string());
  }
  for (const std::string& dir : stale) RemoveTree(dir);
}

// Runs initdb into `data_dir` (an empty folder owned by `user`), its output in `log_path`.
Status RunInitdb(const PgBinaries& bins, const std::string& data_dir, const std::string& log_path,
                 const ServerUser& user) {
  SpawnOptions spawn;
  spawn.argv = {bins.initdb(),  "-D", data_dir, "-U",          "racelab",
                "--auth=trust", "-E", "UTF8",   "--no-locale", "-N"};
  spawn.output_path = log_path;
  spawn.user = &user;
  spawn.die_with_parent = true;
  Result<pid_t> pid = Spawn(spawn);
  if (!pid.ok()) return pid.status();
  std::optional<int> status = WaitForExit(*pid, kInitdbTimeout);
  if (!status) {
    KillAndReap(*pid, std::chrono::milliseconds(5000));
    return Status::Database("initdb did not finish within " +
                            std::to_string(kInitdbTimeout.count() / 1000) + " s; its output:\n" +
                            TailOfFile(log_path));
  }
  if (!WIFEXITED(*status) || WEXITSTATUS(*status) != 0) {
    return Status::Database("initdb (as user '" + user.name + "') " + DescribeWaitStatus(*status) +
                            "; its output:\n" + TailOfFile(log_path));
  }
  return Status::Ok();
}

}  // namespace

Result<TemplateDir> EnsureTemplate(const PgBinaries& bins, const std::string& base_dir,
                                   const ServerUser& user) {
  const std::string name = "template-" + bins.major;
  const std::string path = base_dir + "/" + name;
  if (IsComplete(path)) return TemplateDir{path, false};

  FileLock lock;
  if (Status s = lock.Acquire(path + ".lock", kInitdbTimeout + std::chrono::seconds(30)); !s.ok()) {
    return s;
  }
  if (IsComplete(path)) return TemplateDir{path, false};  // made while we waited
  RemoveTree(path);  // a broken one (without PG_VERSION); the rename below needs the name free
  RemoveStaleTemporaries(base_dir, name);

  static std::atomic<unsigned> counter{0};
  const std::string tmp =
      path + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(counter.fetch_add(1));
  Status s = MakeOwnedDir(tmp, 0711, ServerUser{});  // ours; the server user may only pass through
  if (s.ok()) s = MakeOwnedDir(tmp + "/data", 0700, user);
  if (s.ok()) s = RunInitdb(bins, tmp + "/data", tmp + "/initdb.log", user);
  if (s.ok() && rename((tmp + "/data").c_str(), path.c_str()) != 0) {
    s = Status::Internal("cannot rename " + tmp + "/data to " + path + ": " + std::strerror(errno));
  }
  RemoveTree(tmp);
  if (!s.ok()) return s;
  return TemplateDir{path, true};
}

}  // namespace racelab::internal
