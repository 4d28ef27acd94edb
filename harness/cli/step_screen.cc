// `racelab step` in a terminal (step_ui.h RunStepScreen): one column per session, the waits and
// the locks below, redrawn on every change of the view (a wait appears as soon as the monitor's
// event is folded: StepSession's on_change wakes the poll() below through a self-pipe).
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iostream>
#include <sstream>

#include "harness/cli/step_ui.h"
#include "harness/model/terminal_text.h"

namespace racelab::cli {
namespace {

using Clock = std::chrono::steady_clock;

// Raw keys and the alternate screen for the lifetime of the object; restored however it ends.
class RawTerminal {
 public:
  RawTerminal() {
    ok_ = tcgetattr(STDIN_FILENO, &saved_) == 0;
    if (ok_) {
      termios raw = saved_;
      raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
      raw.c_cc[VMIN] = 0;
      raw.c_cc[VTIME] = 0;
      tcsetattr(STDIN_FILENO, TCSANOW, &raw);
    }
    Write("\x1b[?1049h\x1b[?25l");
  }
  ~RawTerminal() {
    Write("\x1b[?25h\x1b[?1049l");
    if (ok_) tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
  }
  static void Write(const std::string& s) {
    size_t off = 0;
    while (off < s.size()) {
      const ssize_t n = write(STDOUT_FILENO, s.data() + off, s.size() - off);
      if (n <= 0) return;
      off += static_cast<size_t>(n);
    }
  }

 private:
  termios saved_{};
  bool ok_ = false;
};

size_t Points(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// `s` cut or padded to exactly `w` columns.
std::string Fit(const std::string& s, size_t w) {
  std::string out;
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool lead = (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
    if (lead && ++n > w) break;
    out += s[i];
  }
  return out + std::string(w - std::min(w, Points(out)), ' ');
}

// `s` wrapped at `w` columns into at most `lines` lines.
std::vector<std::string> Wrap(const std::string& s, size_t w, size_t lines) {
  std::vector<std::string> out;
  std::string rest = s;
  while (!rest.empty() && out.size() < lines) {
    if (Points(rest) <= w) {
      out.push_back(rest);
      break;
    }
    size_t cut = 0, n = 0, space = std::string::npos;
    for (; cut < rest.size(); ++cut) {
      if ((static_cast<unsigned char>(rest[cut]) & 0xC0) != 0x80 && n++ == w) break;
      if (rest[cut] == ' ') space = cut;
    }
    const size_t at = space != std::string::npos && space > 0 ? space : cut;
    out.push_back(rest.substr(0, at));
    rest = rest.substr(at < rest.size() && rest[at] == ' ' ? at + 1 : at);
  }
  if (!rest.empty() && out.size() == lines && Points(out.back()) >= w && w > 0)
    out.back() = Fit(out.back(), w - 1) + "…";
  return out;
}

// "a.claim" for a step the scenario named, "a: UPDATE runs" for one it did not.
std::string AskedStep(const step::AskView& a) {
  return a.step_label == a.step ? a.session + "." + a.step : a.session + ": " + a.step_label;
}

std::string StateText(const step::SessionView& s) {
  if (s.state == step::SessionState::kWaiting)
    return fmt::format("WAITING for {} ({})", s.waiting_for, s.wait_type);
  if (s.state == step::SessionState::kRunning) return "running: " + s.running_what;
  return step::SessionStateName(s.state);
}

// The typed statement's two lines (docs/step.md ":"): what runs where, then its state or result.
std::vector<std::string> TypedLines(const step::TypedView& t) {
  if (t.who.empty()) return {};
  std::string state = "  -> " + t.result;
  if (t.running && !t.waiting_for.empty()) {
    state = fmt::format("  WAITING for {} ({}) · Esc cancels", t.waiting_for, t.wait_type);
  } else if (t.running) {
    state = "  running · Esc cancels";
  }
  return {fmt::format("typed {}: {}", t.who, t.sql), state};
}

// The open prompt of `:` on the bottom line: its tail when it is longer than the line.
std::string PromptLine(const std::string& text, size_t cols) {
  const std::string head = ":";
  std::string shown = text + "_";
  while (Points(head) + Points(shown) > cols && !shown.empty()) {
    size_t cut = 1;
    while (cut < shown.size() && (static_cast<unsigned char>(shown[cut]) & 0xC0) == 0x80) ++cut;
    shown.erase(0, cut);
  }
  return head + shown;
}

struct Overlay {
  const std::string* prompt = nullptr;  // the `:` line while it is open
  std::string notice;                   // what the last key could not do
};

// "Predict, then watch" (docs/step.md), below the columns: the question asked last and what
// happened (bold), then the question of the step Enter runs (reverse video). Adds the lines to
// `out` and their indexes to `bold` / `reverse`.
void AskLines(const step::StepView& v, size_t cols, std::vector<std::string>* out,
              std::vector<size_t>* bold, std::vector<size_t>* reverse) {
  auto add = [&](const std::string& text, size_t lines, std::vector<size_t>* style) {
    for (const std::string& l : Wrap(text, cols, lines)) {
      style->push_back(out->size());
      out->push_back(Fit(l, cols));
    }
  };
  if (!v.asked.session.empty()) {
    // One line for the question (the class read it before the key): room for the locks.
    std::string asked = fmt::format("ASKED ({}): {}", AskedStep(v.asked), v.asked.question);
    if (Points(asked) > cols && cols > 1) asked = Fit(asked, cols - 1) + "…";
    add(asked, 1, bold);
    add(v.asked.answer.empty() ? "→ …" : fmt::format("→ {}", fmt::join(v.asked.answer, "; ")), 2,
        bold);
  }
  if (!v.ask_next.session.empty()) {
    add(fmt::format("ASK ({}): {}  [Enter runs it]", AskedStep(v.ask_next), v.ask_next.question), 2,
        reverse);
  }
}

// One frame of the whole screen, `cols` × `rows`.
std::string Frame(const step::StepView& v, size_t cols, size_t rows, const std::string& keep,
                  const Overlay& overlay) {
  std::vector<std::string> out;
  std::vector<size_t> bold, reverse;  // lines drawn bold / in reverse video
  const std::string hr(cols, '-');
  out.push_back(
      Fit(fmt::format("racelab step  {} @ {} on {}   walk {}{}", v.scenario, v.isolation, v.engine,
                      v.walk, v.reset_ms >= 0 ? fmt::format(" (reset {:.0f} ms)", v.reset_ms) : ""),
          cols));
  out.push_back(hr);
  const size_t n = std::max<size_t>(1, v.sessions.size());
  const size_t w = n > 1 ? (cols - (n - 1)) / n : cols;
  std::vector<std::vector<std::string>> colv;
  for (size_t s = 0; s < v.sessions.size(); ++s) {
    const step::SessionView& sv = v.sessions[s];
    std::vector<std::string> c;
    c.push_back(
        fmt::format("{} {}{}", s + 1, sv.label, v.next_session == sv.label ? "  <Enter>" : ""));
    for (const std::string& l : Wrap(StateText(sv), w, 2)) c.push_back(l);  // 3 columns: 2 lines
    c.push_back(sv.next_step.empty()
                    ? "next: -"
                    : fmt::format("next: {}{}", sv.next_label, sv.at_gate ? " (ready)" : ""));
    for (const std::string& l : Wrap(sv.next_sql, w - 2, 3)) c.push_back("  " + l);
    while (c.size() < 7) c.push_back("");
    c.push_back(sv.last_step.empty() ? "last: -" : "last: " + sv.last_label);
    for (const std::string& l : Wrap(sv.last_result, w - 2, 2)) c.push_back("  " + l);
    colv.push_back(std::move(c));
  }
  size_t height = 0;
  for (const auto& c : colv) height = std::max(height, c.size());
  for (size_t r = 0; r < height; ++r) {
    std::string line;
    for (size_t s = 0; s < colv.size(); ++s) {
      if (s > 0) line += "|";
      line += Fit(r < colv[s].size() ? colv[s][r] : "", w);
    }
    out.push_back(Fit(line, cols));
  }
  out.push_back(hr);
  AskLines(v, cols, &out, &bold, &reverse);
  std::string waits = "waits: ";
  if (v.waits.empty()) waits += "none";
  for (size_t i = 0; i < v.waits.size(); ++i) {
    waits += fmt::format("{}{} -> {} ({})", i ? ", " : "", v.waits[i].waiter, v.waits[i].holder,
                         v.waits[i].lock_type);
  }
  out.push_back(Fit(waits, cols));
  for (const std::string& l : TypedLines(v.typed)) out.push_back(Fit(l, cols));
  const size_t footer = 2;
  if (!keep.empty()) {
    std::istringstream lines(keep);
    for (std::string l; std::getline(lines, l);)
      for (const std::string& part : Wrap(l, cols, 3)) out.push_back(Fit(part, cols));
  }
  if (!v.locks_note.empty()) out.push_back(Fit(v.locks_note, cols));
  if (!v.locks.empty()) out.push_back(Fit("locks " + v.locks_after + ":", cols));
  // When they do not all fit: the awaited locks first, then what changed, then the rest.
  std::vector<step::LockLine> locks = v.locks;
  std::stable_sort(locks.begin(), locks.end(),
                   [](const step::LockLine& a, const step::LockLine& b) {
                     auto rank = [](const step::LockLine& l) {
                       return !l.granted ? 0 : l.change != ' ' ? 1 : 2;
                     };
                     return rank(a) < rank(b);
                   });
  for (size_t i = 0; i < locks.size(); ++i) {
    const step::LockLine& l = locks[i];
    if (out.size() + footer + 1 >= rows && i + 1 < locks.size()) {
      out.push_back(Fit(fmt::format(" … {} more", locks.size() - i), cols));
      break;
    }
    out.push_back(Fit(fmt::format(" {} {} {} {} {} ({})", l.change, l.session,
                                  l.granted ? "holds" : "awaits", l.mode, l.object, l.lock_type),
                      cols));
  }
  while (out.size() + footer < rows) out.push_back(std::string(cols, ' '));
  out.push_back(hr);
  std::string keys = "Enter/Space next";
  if (!v.next_session.empty()) keys += " (" + v.next_session + ")";
  keys += " · 1-" + std::to_string(v.sessions.size()) +
          " a session · b back · l level · : SQL · q quit";
  if (v.phase == step::StepView::Phase::kFinished || v.phase == step::StepView::Phase::kFailed)
    keys = (v.phase == step::StepView::Phase::kFailed ? "FAILED: " : "walk over: ") + v.message +
           " · b again · l level · q quit";
  if (!overlay.notice.empty()) keys = "! " + overlay.notice;
  if (overlay.prompt != nullptr) keys = PromptLine(*overlay.prompt, cols);
  out.push_back(Fit(keys, cols));
  std::string frame = "\x1b[H";
  auto in = [](const std::vector<size_t>& lines, size_t i) {
    return std::find(lines.begin(), lines.end(), i) != lines.end();
  };
  for (size_t i = 0; i < out.size() && i < rows; ++i) {
    const char* on = in(reverse, i) ? "\x1b[7m" : in(bold, i) ? "\x1b[1m" : "";
    frame += on + SanitizeForTerminal(out[i]) + (*on != 0 ? "\x1b[0m" : "") +
             (i + 1 < rows ? "\r\n" : "");
  }
  return frame;
}

void Size(size_t* cols, size_t* rows) {
  winsize ws{};
  *cols = 80;
  *rows = 24;
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
    *cols = ws.ws_col;
    *rows = ws.ws_row;
  }
}

int64_t WallUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int RunStepScreen(const StepUi& ui) {
  RawTerminal term;
  uint64_t drawn = ~uint64_t{0};
  int traced_walk = 0;
  std::string keep;  // --keep's note, once the walk has run every step
  std::ofstream trace;
  if (!ui.trace_path.empty()) trace.open(ui.trace_path, std::ios::app);
  bool prompt_open = false;  // `:` typed: the bottom line is the statement being typed
  std::string prompt;
  std::string notice;
  for (;;) {
    if (ui.stop->stop_requested()) return 0;
    const uint64_t now = ui.session->version();
    if (now != drawn) {
      const step::StepView v = ui.session->view();
      size_t cols = 80, rows = 24;
      Size(&cols, &rows);
      if (ui.prepare_keep && keep.empty() && v.phase == step::StepView::Phase::kFinished &&
          v.message == "every step ran")
        keep = ui.prepare_keep();
      RawTerminal::Write(Frame(v, cols, rows, keep, {prompt_open ? &prompt : nullptr, notice}));
      drawn = now;
      for (const step::SessionView& s : v.sessions) {
        if (trace.is_open() && s.waiting_seen_wall_us > 0 && traced_walk != v.walk) {
          traced_walk = v.walk;
          trace << fmt::format("walk {} {} waiting seen_us {} drawn_us {}\n", v.walk, s.label,
                               s.waiting_seen_wall_us, WallUs())
                << std::flush;
        }
      }
    }
    pollfd p[2] = {{STDIN_FILENO, POLLIN, 0}, {ui.wakeup->fd(), POLLIN, 0}};
    if (poll(p, 2, 200) <= 0) continue;
    if (p[1].revents & POLLIN) ui.wakeup->Drain();
    if (!(p[0].revents & POLLIN)) continue;
    char buf[64];
    const ssize_t got = read(STDIN_FILENO, buf, sizeof buf);
    if (got <= 0) continue;
    drawn = ~uint64_t{0};  // a key: draw again (the prompt, the notice)
    const step::StepView v = ui.session->view();
    if (prompt_open) {
      for (ssize_t i = 0; i < got; ++i) {
        const char key = buf[i];
        if (key == 3) return 0;
        if (key == 27) {  // Esc alone cancels; an escape sequence (an arrow key) is ignored
          if (i + 1 == got) prompt_open = false;
          break;
        }
        if (key == '\r' || key == '\n') {
          prompt_open = false;
          const StepCommandWord c = ParseTyped(prompt, v);
          Status s = ui.session->RunTyped(c.session, c.text);
          notice = s.ok() ? "" : SanitizeForTerminal(s.message());
          break;
        }
        if (key == 127 || key == 8) {
          while (!prompt.empty() && (static_cast<unsigned char>(prompt.back()) & 0xC0) == 0x80)
            prompt.pop_back();
          if (!prompt.empty()) prompt.pop_back();
        } else if ((static_cast<unsigned char>(key) >= 32 || key == '\t') && prompt.size() < 4000) {
          prompt += key == '\t' ? ' ' : key;
        }
      }
      continue;
    }
    notice.clear();
    if (buf[0] == 27 && got > 1) continue;  // an escape sequence: no key of ours
    const char key = buf[0];
    if (key == 'q' || key == 3) return 0;
    if (key == 27) {
      ui.session->CancelTyped();
      continue;
    }
    if (key == ':') {
      prompt_open = true;
      prompt.clear();
      continue;
    }
    if (key == 'l') {
      if (Status s = ui.session->SwitchLevel(""); !s.ok())
        notice = SanitizeForTerminal(s.message());
      continue;
    }
    if (key == 'b') {
      ui.session->Reset();
      continue;
    }
    if (key == '\r' || key == '\n' || key == ' ') {
      ui.session->Next();
      continue;
    }
    if (key >= '1' && key <= '9' && static_cast<size_t>(key - '1') < v.sessions.size()) {
      ui.session->Next(v.sessions[static_cast<size_t>(key - '1')].label);
      continue;
    }
    for (const step::SessionView& s : v.sessions) {
      if (s.label.size() == 1 && s.label[0] == key) ui.session->Next(s.label);
    }
  }
}

}  // namespace racelab::cli
