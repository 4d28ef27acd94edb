// Reading a history file under the same discipline as a report (harness/compare/report_file.h):
// regular files only, bounded size.
#include "harness/check/history_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace racelab::check {
namespace {

Result<std::string> ReadAll(const std::string& path, const StopFlag* stop) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Status::Usage(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::Usage(fmt::format("{}: not a regular file", path));
  }
  if (static_cast<size_t>(st.st_size) > kMaxHistoryBytes) {
    ::close(fd);
    return Status::Usage(fmt::format("{}: {} bytes: a history file is at most {} bytes", path,
                                     st.st_size, kMaxHistoryBytes));
  }
  std::string text;
  text.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      return Status::Usage(fmt::format("{}: cannot read: {}", path, std::strerror(e)));
    }
    if (n == 0) break;
    if (stop != nullptr && stop->stop_requested()) {
      ::close(fd);
      return Status::Usage("interrupted");
    }
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > kMaxHistoryBytes) {
      ::close(fd);
      return Status::Usage(
          fmt::format("{}: grew past {} bytes while read", path, kMaxHistoryBytes));
    }
  }
  ::close(fd);
  return text;
}

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

HistoryFormat Sniff(const std::string& path, const std::string& text) {
  if (EndsWith(path, ".edn")) return HistoryFormat::kElle;
  if (EndsWith(path, ".json") || EndsWith(path, ".jsonl")) return HistoryFormat::kJson;
  const size_t at = text.find_first_not_of(" \t\r\n");
  if (at != std::string::npos && text[at] == '{') {
    const size_t next = text.find_first_not_of(" \t\r\n", at + 1);
    if (next != std::string::npos && text[next] == '"') return HistoryFormat::kJson;
  }
  return HistoryFormat::kElle;
}

}  // namespace

Result<History> ReadHistoryFile(const std::string& path, HistoryFormat format,
                                const StopFlag* stop) {
  auto text = ReadAll(path, stop);
  if (!text.ok()) return text.status();
  if (format == HistoryFormat::kAuto) format = Sniff(path, *text);
  auto h = format == HistoryFormat::kElle ? ParseElleHistory(path, *text, stop)
                                          : ParseJsonHistory(path, *text, stop);
  // A file with no transaction checks nothing: an empty or cut-short recording must not pass.
  if (h.ok() && h->txns.empty()) {
    return Status::Usage(path + ": holds no transaction (:f :txn), so there is nothing to check");
  }
  return h;
}

}  // namespace racelab::check
