// `racelab step` in a pipe (step_ui.h RunStepPipe): the transcript, commands from stdin lines.
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <iostream>

#include "harness/cli/step_ui.h"
#include "harness/model/terminal_text.h"

namespace racelab::cli {

using Clock = std::chrono::steady_clock;

Wakeup::Wakeup() {
  if (pipe2(fds_, O_NONBLOCK | O_CLOEXEC) != 0) fds_[0] = fds_[1] = -1;
}

Wakeup::~Wakeup() {
  for (int fd : fds_) {
    if (fd >= 0) close(fd);
  }
}

void Wakeup::Notify() const {
  if (fds_[1] < 0) return;
  const char c = 'x';
  [[maybe_unused]] ssize_t n = write(fds_[1], &c, 1);  // full: a wake-up is pending anyway
}

void Wakeup::Drain() const {
  char buf[256];
  while (fds_[0] >= 0 && read(fds_[0], buf, sizeof buf) > 0) {
  }
}

StepCommandWord ParseTyped(const std::string& after_colon, const step::StepView& view) {
  StepCommandWord c{StepCommandWord::Kind::kTyped, "", after_colon};
  // ":a SELECT …": a session's label, then a space, then the statement.
  const size_t space = after_colon.find(' ');
  if (space != std::string::npos && space > 0) {
    const std::string first = after_colon.substr(0, space);
    for (const step::SessionView& s : view.sessions) {
      if (s.label == first) {
        c.session = first;
        c.text = after_colon.substr(space + 1);
      }
    }
  }
  return c;
}

StepCommandWord ParsePipeCommand(const std::string& line, const step::StepView& view) {
  if (!line.empty() && line[0] == ':') return ParseTyped(line.substr(1), view);
  std::string w = line;
  while (!w.empty() && std::isspace(static_cast<unsigned char>(w.back()))) w.pop_back();
  while (!w.empty() && std::isspace(static_cast<unsigned char>(w.front()))) w.erase(w.begin());
  StepCommandWord c;
  if (w.empty() || w == "n") return {StepCommandWord::Kind::kNext, ""};
  if (w == "b") return {StepCommandWord::Kind::kBack, ""};
  if (w == "q") return {StepCommandWord::Kind::kQuit, ""};
  if (w == "l") return {StepCommandWord::Kind::kLevel, ""};
  if (w.rfind("l ", 0) == 0) return {StepCommandWord::Kind::kLevel, "", w.substr(2)};
  if (w.rfind("n ", 0) == 0) w = w.substr(2);
  for (size_t s = 0; s < view.sessions.size(); ++s) {
    if (w == view.sessions[s].label || w == std::to_string(s + 1))
      return {StepCommandWord::Kind::kSession, view.sessions[s].label};
  }
  return c;
}

namespace {

// Reads stdin line by line, giving up every 50 ms to look at the stop flag.
class LineReader {
 public:
  // False at EOF or on stop.
  bool Read(std::string* line, const StopFlag* stop) {
    for (;;) {
      const size_t nl = buf_.find('\n');
      if (nl != std::string::npos) {
        *line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return true;
      }
      if (eof_ || stop->stop_requested()) return false;
      pollfd p{STDIN_FILENO, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      char chunk[4096];
      const ssize_t n = read(STDIN_FILENO, chunk, sizeof chunk);
      if (n <= 0) {
        eof_ = true;
        if (!buf_.empty()) {  // a last line without its newline
          *line = buf_;
          buf_.clear();
          return true;
        }
        return false;
      }
      buf_.append(chunk, static_cast<size_t>(n));
    }
  }

 private:
  std::string buf_;
  bool eof_ = false;
};

class Transcript {
 public:
  Transcript(const StepUi& ui, std::ostream& out) : ui_(ui), out_(out) {}

  // Prints what is new in the view; true when the walk is over.
  bool Print() {
    const step::StepView v = ui_.session->view();
    if (v.walk != walk_) {
      if (walk_ != 0 && v.isolation != isolation_) {
        out_ << fmt::format("--- level {}: walk {} (reset in {:.0f} ms) ---\n", v.isolation, v.walk,
                            v.reset_ms);
      } else if (walk_ != 0) {
        out_ << fmt::format("--- back to the start: walk {} (reset in {:.0f} ms) ---\n", v.walk,
                            v.reset_ms);
      }
      walk_ = v.walk;
      isolation_ = v.isolation;
      printed_ = 0;
      ended_ = false;
      noted_ = false;
    }
    if (!noted_ && !v.locks_note.empty()) {
      out_ << "(" << v.locks_note << ")\n";
      noted_ = true;
    }
    for (; printed_ < v.transcript.size(); ++printed_)
      out_ << SanitizeForTerminal(v.transcript[printed_]) << "\n";
    const bool over =
        v.phase == step::StepView::Phase::kFinished || v.phase == step::StepView::Phase::kFailed;
    if (over && !ended_) {
      ended_ = true;
      out_ << (v.phase == step::StepView::Phase::kFailed ? "walk failed: " : "walk over: ")
           << SanitizeForTerminal(v.message) << " (b starts again, q quits)\n";
      if (v.phase == step::StepView::Phase::kFinished && ui_.prepare_keep) {
        std::cerr << SanitizeForTerminal(ui_.prepare_keep(), /*keep_newlines=*/true) << "\n";
      }
    }
    out_.flush();
    return over;
  }

  bool over() const { return ended_; }

  // Prints as the view changes until the trial is quiet after `releases` (or a stop). `pending`:
  // the session the command released a step of; when it is in a lock wait that only another
  // session's step can end, a note says so and the next command is read.
  void Follow(int releases, const std::string& pending = "") {
    uint64_t seen = 0;
    while (!ui_.stop->stop_requested()) {
      seen = ui_.session->AwaitChange(seen, Clock::now() + std::chrono::milliseconds(50));
      Print();
      bool stuck = false;
      if (!ui_.session->AwaitQuiet(releases, Clock::now(), pending, &stuck)) continue;
      if (stuck) {
        Print();
        for (const step::SessionView& s : ui_.session->view().sessions) {
          if (s.label != pending) continue;
          out_ << fmt::format(
              "note: {}'s next step runs once its statement ends: {} is waiting for {} ({}); a "
              "session's name or number runs another's step\n",
              SanitizeForTerminal(s.label), SanitizeForTerminal(s.label),
              SanitizeForTerminal(s.waiting_for), SanitizeForTerminal(s.wait_type));
        }
        out_.flush();
        return;
      }
      // Every session done: the walk ends by itself in a moment (its trial is being closed).
      const step::StepView v = ui_.session->view();
      const bool all_done = std::all_of(v.sessions.begin(), v.sessions.end(), [](const auto& s) {
        return s.state == step::SessionState::kDone;
      });
      if (!all_done || v.phase != step::StepView::Phase::kRunning) break;
    }
    Print();
  }

  // Prints as the view changes until the typed statement has ended or waits on a lock (or a stop;
  // the statement ends by its own deadline).
  void FollowTyped() {
    uint64_t seen = 0;
    while (!ui_.stop->stop_requested() && !ui_.session->TypedQuiet()) {
      seen = ui_.session->AwaitChange(seen, Clock::now() + std::chrono::milliseconds(50));
      Print();
    }
    Print();
  }

 private:
  const StepUi& ui_;
  std::ostream& out_;
  int walk_ = 0;
  std::string isolation_;
  size_t printed_ = 0;
  bool ended_ = false;
  bool noted_ = false;
};

}  // namespace

int RunStepPipe(const StepUi& ui, std::ostream& out) {
  {
    const step::StepView v = ui.session->view();
    std::string names;
    for (size_t s = 0; s < v.sessions.size(); ++s)
      names += fmt::format("{}{} ({})", s == 0 ? "" : ", ", v.sessions[s].label, s + 1);
    out << fmt::format(
        "racelab step {} at {} on {}: sessions {}; commands: n or empty line = next, a session's "
        "name or number, b = back to the start, l [LEVEL] = another isolation level, :SQL or "
        ":SESSION SQL = typed SQL, q = quit\n",
        SanitizeForTerminal(v.scenario), v.isolation, v.engine, SanitizeForTerminal(names));
  }
  Transcript t(ui, out);
  t.Follow(-1);
  LineReader in;
  std::string line;
  bool quit = false;
  while (!quit && in.Read(&line, ui.stop)) {
    const StepCommandWord c = ParsePipeCommand(line, ui.session->view());
    if (c.kind == StepCommandWord::Kind::kQuit) quit = true;
    if (quit) break;
    if (c.kind == StepCommandWord::Kind::kUnknown) {
      std::cerr << "racelab: unknown command '" << SanitizeForTerminal(line)
                << "' (n, b, l, :SQL, q, or a session's name or number)\n";
      continue;
    }
    if (c.kind == StepCommandWord::Kind::kLevel) {
      if (Status s = ui.session->SwitchLevel(c.text); !s.ok()) {
        std::cerr << "racelab: l: " << SanitizeForTerminal(s.message()) << "\n";
        continue;
      }
      t.Follow(-1);
      continue;
    }
    if (c.kind == StepCommandWord::Kind::kTyped) {
      if (Status s = ui.session->RunTyped(c.session, c.text); !s.ok()) {
        std::cerr << "racelab: " << SanitizeForTerminal(s.message()) << "\n";
        continue;
      }
      t.FollowTyped();
      continue;
    }
    if (c.kind == StepCommandWord::Kind::kBack) {
      if (Status s = ui.session->Reset(); !s.ok())
        std::cerr << "racelab: " << SanitizeForTerminal(s.message()) << "\n";
      t.Follow(-1);
      continue;
    }
    const int before = ui.session->releases();
    Status s = Status::Ok();
    std::string pending;  // the session whose step the command released
    if (c.kind == StepCommandWord::Kind::kNext) {
      Result<std::optional<std::string>> next = ui.session->Next();
      s = next.status();
      if (next.ok() && next.value()) pending = *next.value();
    } else {
      s = ui.session->Next(c.session);
      pending = c.session;
    }
    if (!s.ok()) {
      std::cerr << "racelab: " << SanitizeForTerminal(s.message()) << "\n";
      continue;
    }
    t.Follow(before, pending);
  }
  if (!quit && ui.keep && !ui.stop->stop_requested() && t.over()) {
    // stdin ended after the walk: the server stays up until Ctrl-C.
    while (!ui.stop->stop_requested()) SleepUntil(Clock::now() + std::chrono::seconds(1), ui.stop);
  }
  return 0;
}

}  // namespace racelab::cli
