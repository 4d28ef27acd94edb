#include "harness/engines/embedded/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

namespace racelab::embedded {
namespace {

namespace fs = std::filesystem;

std::string Errno(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

// Whether `user` may traverse (search) a folder with this stat.
bool Traversable(const struct stat& st, const ServerUser& user) {
  if (st.st_uid == user.uid) return (st.st_mode & S_IXUSR) != 0;
  if (st.st_gid == user.gid) return (st.st_mode & S_IXGRP) != 0;
  return (st.st_mode & S_IXOTH) != 0;
}

Status Own(const fs::path& path, const ServerUser& user) {
  if (user.drop && lchown(path.c_str(), user.uid, user.gid) != 0) {
    return Status::Internal(Errno("cannot chown", path.string()));
  }
  return Status::Ok();
}

}  // namespace

Status PrepareBaseDir(const std::string& dir, const ServerUser& user) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0) return Status::Internal(Errno("cannot create", dir));
  if (!S_ISDIR(st.st_mode)) return Status::Internal(dir + " exists and is not a folder");
  if (st.st_uid != geteuid()) {
    return Status::Internal(dir + " belongs to another user (uid " + std::to_string(st.st_uid) +
                            "); set RACELAB_TMPDIR to a folder of your own");
  }
  if (!user.drop) return Status::Ok();
  if ((st.st_mode & 0011) != 0011 && chmod(dir.c_str(), (st.st_mode & 07777) | 0711) != 0) {
    return Status::Internal(Errno("cannot chmod", dir));
  }
  for (fs::path p = fs::path(dir).parent_path(); !p.empty(); p = p.parent_path()) {
    struct stat parent {};
    if (stat(p.c_str(), &parent) == 0 && !Traversable(parent, user)) {
      return Status::Internal("the server runs as user '" + user.name + "', who cannot enter " +
                              p.string() + ": choose a base folder under /tmp (RACELAB_TMPDIR)");
    }
    if (p == p.root_path()) break;
  }
  return Status::Ok();
}

Status MakeOwnedDir(const std::string& dir, unsigned mode, const ServerUser& user) {
  if (mkdir(dir.c_str(), mode) != 0) return Status::Internal(Errno("cannot create", dir));
  if (chmod(dir.c_str(), mode) != 0) return Status::Internal(Errno("cannot chmod", dir));  // umask
  return Own(dir, user);
}

Status CopyTreeAs(const std::string& from, const std::string& to, const ServerUser& user) {
  std::error_code ec;
  fs::perms root_perms = fs::status(from, ec).permissions();
  if (ec) return Status::Internal("cannot read " + from + ": " + ec.message());
  const unsigned root_mode = static_cast<unsigned>(root_perms) & 07777;
  if (Status s = MakeOwnedDir(to, root_mode, user); !s.ok()) return s;
  fs::recursive_directory_iterator it(from, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path target = fs::path(to) / it->path().lexically_relative(from);
    fs::file_status st = it->symlink_status(ec);
    if (ec) break;
    if (fs::is_symlink(st)) {
      fs::copy_symlink(it->path(), target, ec);
    } else if (fs::is_directory(st)) {
      fs::create_directory(target, ec);
    } else if (fs::is_regular_file(st)) {
      fs::copy_file(it->path(), target, ec);
    } else {
      continue;  // sockets, fifos: nothing to copy
    }
    if (ec) break;
    if (!fs::is_symlink(st)) fs::permissions(target, st.permissions(), ec);
    if (ec) break;
    if (Status s = Own(target, user); !s.ok()) return s;
  }
  if (ec) return Status::Internal("cannot copy " + from + " to " + to + ": " + ec.message());
  return Status::Ok();
}

Status WriteFileAtomic(const std::string& path, const std::string& content) {
  static std::atomic<unsigned> counter{0};
  const std::string tmp =
      path + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(counter.fetch_add(1));
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::Internal(Errno("cannot write", tmp));
  bool ok = write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size());
  ok = close(fd) == 0 && ok;
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
    Status s = Status::Internal(Errno("cannot write", path));
    unlink(tmp.c_str());
    return s;
  }
  return Status::Ok();
}

std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text;
  char buf[4096];
  while (in && text.size() < (1u << 20)) {
    in.read(buf, sizeof(buf));
    text.append(buf, static_cast<size_t>(in.gcount()));
  }
  return text;
}

std::string TailOfFile(const std::string& path, int max_lines) {
  constexpr std::streamoff kMaxBytes = 4096;
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  std::streamoff size = in ? static_cast<std::streamoff>(in.tellg()) : 0;
  if (size <= 0) return "(empty log)";
  std::streamoff start = std::max<std::streamoff>(0, size - kMaxBytes);
  in.seekg(start);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  if (start > 0 && !lines.empty()) lines.erase(lines.begin());  // partial first line
  size_t first = lines.size() > static_cast<size_t>(max_lines) ? lines.size() - max_lines : 0;
  std::string tail;
  for (size_t i = first; i < lines.size(); ++i) tail += (i > first ? "\n" : "") + lines[i];
  return tail.empty() ? "(empty log)" : tail;
}

std::string ErrorLinesOfFile(const std::string& path, int max_lines) {
  std::istringstream in(ReadSmallFile(path));
  std::string found;
  int count = 0;
  for (std::string line; count < max_lines && std::getline(in, line);) {
    std::string upper = line;
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    if (upper.find("ERROR") == std::string::npos && upper.find("FATAL") == std::string::npos)
      continue;
    found += line + "\n";
    ++count;
  }
  return found;
}

bool RemoveTree(const std::string& path) {
  std::error_code ec;
  for (int attempt = 0; attempt < 3; ++attempt) {
    fs::remove_all(path, ec);
    if (!fs::exists(fs::symlink_status(path, ec))) return true;
  }
  return false;
}

std::string FindOnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string rest = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= rest.size()) {
    size_t colon = rest.find(':', start);
    std::string dir = rest.substr(start, colon == std::string::npos ? colon : colon - start);
    std::error_code ec;
    const fs::path candidate = fs::path(dir) / name;
    if (!dir.empty() && fs::is_regular_file(candidate, ec) && access(candidate.c_str(), X_OK) == 0)
      return dir;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return "";
}

}  // namespace racelab::embedded
