// Where the embedded servers' files go (harness/engines/embedded/run_folders.h DefaultBaseDir,
// MemoryTmpDir; harness/engines/postgresql/cluster.h DefaultBaseDir, BaseDirsToClean): an explicit
// $RACELAB_TMPDIR or $TMPDIR wins, then a tmpfs /dev/shm with room, then /tmp. Checked against this
// machine's real /dev/shm, whose file system type is read a second way, from /proc/mounts.
#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "harness/engines/embedded/run_folders.h"
#include "harness/engines/postgresql/cluster.h"

namespace racelab {
namespace {

// Sets (or unsets, with nullopt) an environment variable for the scope of one test.
class EnvVar {
 public:
  EnvVar(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value->c_str(), 1);
    } else {
      unsetenv(name);
    }
  }
  ~EnvVar() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// /proc/mounts says /dev/shm is a tmpfs (the last mount of that path wins).
bool ShmIsTmpfsPerProcMounts() {
  std::ifstream in("/proc/mounts");
  std::string line;
  bool tmpfs = false;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string device, path, type;
    fields >> device >> path >> type;
    if (path == "/dev/shm") tmpfs = type == "tmpfs";
  }
  return tmpfs;
}

std::string Uid() { return std::to_string(geteuid()); }

TEST(BaseDir, AnExplicitFolderWinsOverMemory) {
  EnvVar racelab("RACELAB_TMPDIR", "/x"), tmp("TMPDIR", "/y");
  EXPECT_EQ(embedded::DefaultBaseDir("", "/dev/shm"), "/x/racelab-" + Uid());
  EnvVar no_racelab("RACELAB_TMPDIR", std::nullopt);
  EXPECT_EQ(embedded::DefaultBaseDir("mariadb", "/dev/shm"), "/y/racelab-" + Uid() + "/mariadb");
}

TEST(BaseDir, WithoutOneThePreferredFolderThenTmp) {
  EnvVar racelab("RACELAB_TMPDIR", std::nullopt), tmp("TMPDIR", std::nullopt);
  EXPECT_EQ(embedded::DefaultBaseDir("", "/dev/shm"), "/dev/shm/racelab-" + Uid());
  EXPECT_EQ(embedded::DefaultBaseDir("", ""), "/tmp/racelab-" + Uid());
  EXPECT_EQ(embedded::DefaultBaseDir("mariadb"), "/tmp/racelab-" + Uid() + "/mariadb");
}

TEST(BaseDir, MemoryIsDevShmOnlyWhenItIsATmpfsWithRoom) {
  EXPECT_EQ(embedded::MemoryTmpDir(0), ShmIsTmpfsPerProcMounts() ? "/dev/shm" : "");
  EXPECT_EQ(embedded::MemoryTmpDir(ULLONG_MAX), "");  // no tmpfs has that much room
}

TEST(BaseDir, PostgresqlUsesMemoryWhenItCanAndCleanLooksInTmpToo) {
  EnvVar racelab("RACELAB_TMPDIR", std::nullopt), tmp("TMPDIR", std::nullopt);
  const std::string disk = "/tmp/racelab-" + Uid();
  if (embedded::MemoryTmpDir(pg::kMinMemoryBaseFreeBytes).empty()) {
    EXPECT_EQ(pg::DefaultBaseDir(), disk);
    EXPECT_EQ(pg::BaseDirsToClean(), std::vector<std::string>{disk});
  } else {
    const std::string shm = "/dev/shm/racelab-" + Uid();
    EXPECT_EQ(pg::DefaultBaseDir(), shm);
    EXPECT_EQ(pg::BaseDirsToClean(), (std::vector<std::string>{shm, disk}));
  }
  EnvVar chosen("RACELAB_TMPDIR", "/x");
  EXPECT_EQ(pg::BaseDirsToClean(), std::vector<std::string>{"/x/racelab-" + Uid()});
}

}  // namespace
}  // namespace racelab
