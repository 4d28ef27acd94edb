#include "harness/compare/report_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>

namespace racelab::compare {
namespace {

using Json = nlohmann::json;

constexpr size_t kChunkBytes = size_t{1} << 20;
constexpr size_t kStopCheckEvery = 4096;

struct Interrupted {};
struct TooDeep {};

bool Stopped(const StopFlag* stop) { return stop != nullptr && stop->stop_requested(); }

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

const char* KindOf(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

Status Interruption(const std::string& path) {
  return Status::Usage(path + ": reading the report was interrupted");
}

// The bytes of `path`, bounded, interruptible.
Result<std::string> ReadBounded(const std::string& path, const StopFlag* stop) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0)
    return Status::Usage(fmt::format("{}: cannot read the file: {}", path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    return Status::Usage(fmt::format("{}: cannot read the file: {}", path, std::strerror(errno)));
  }
  if (S_ISDIR(st.st_mode))
    return Status::Usage(path + ": a folder, not a report file (give its racelab.json)");
  if (!S_ISREG(st.st_mode)) {
    return Status::Usage(
        fmt::format("{}: {}, not a report file (a report is read from a regular file)", path,
                    KindOf(st.st_mode)));
  }
  const auto too_large = [&](const std::string& size) {
    return Status::Usage(
        fmt::format("{}: the file has {} bytes; a report may have at most {} (64 MiB)", path, size,
                    kMaxReportBytes));
  };
  if (static_cast<uintmax_t>(st.st_size) > kMaxReportBytes)
    return too_large(std::to_string(st.st_size));
  std::string text;
  text.reserve(static_cast<size_t>(st.st_size));
  std::unique_ptr<char[]> chunk(new char[kChunkBytes]);
  for (;;) {
    if (Stopped(stop)) return Interruption(path);
    const ssize_t n = ::read(fd.get(), chunk.get(), kChunkBytes);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0)
      return Status::Usage(fmt::format("{}: cannot read the file: {}", path, std::strerror(errno)));
    if (n == 0) break;
    text.append(chunk.get(), static_cast<size_t>(n));
    if (text.size() > kMaxReportBytes)
      return too_large(fmt::format("more than {}", kMaxReportBytes));
  }
  return text;
}

// 1-based line and column of byte `offset` in `text`.
std::pair<size_t, size_t> LineColumn(const std::string& text, size_t offset) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

}  // namespace

Result<Json> ReadReportJson(const std::string& path, const StopFlag* stop) {
  Result<std::string> text = ReadBounded(path, stop);
  if (!text.ok()) return text.status();
  size_t events = 0;
  // The callback sees every value as it is parsed: it stops the parse (by an exception of its own,
  // caught below) when the flag is raised or the nesting passes the bound.
  const Json::parser_callback_t check = [&](int depth, Json::parse_event_t, Json&) {
    if (depth > kMaxReportDepth) throw TooDeep{};
    if (++events % kStopCheckEvery == 0 && Stopped(stop)) throw Interrupted{};
    return true;
  };
  try {
    return Json::parse(*text, check);
  } catch (const Json::parse_error& e) {
    auto [line, column] = LineColumn(*text, e.byte == 0 ? 0 : e.byte - 1);
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error …" -> after
    // ": "
    if (size_t colon = what.find(": "); colon != std::string::npos) what = what.substr(colon + 2);
    return Status::Usage(fmt::format("{}:{}:{}: not valid JSON: {}", path, line, column, what));
  } catch (const TooDeep&) {
    return Status::Usage(fmt::format("{}: JSON nested deeper than {} levels: not a racelab report",
                                     path, kMaxReportDepth));
  } catch (const Interrupted&) {
    return Interruption(path);
  }
}

int ExitCodeIfInterrupted(const StopFlag* stop) {
  if (!Stopped(stop)) return 0;
  return 128 + (stop->signal_number() != 0 ? stop->signal_number() : SIGINT);
}

}  // namespace racelab::compare
