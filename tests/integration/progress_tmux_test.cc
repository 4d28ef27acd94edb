// `racelab run` as a person sees it in a terminal: run inside tmux (a real terminal emulator, its
// size set), at 80 and 200 columns, the pane shows each result's verdict and time, the running
// line's elapsed time, and no line wider than the pane — the capture joins lines the terminal
// wrapped (capture-pane -J), so a wrapped line would show as a longer one. Colour is on in the pane
// and off with NO_COLOR. tmux runs on a server of the test's own (-L), killed at the end.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/subprocess.h"
#include "tests/integration/test_files.h"

namespace racelab::testing {
namespace {

using std::chrono::seconds;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kBin = RACELAB_BINARY;

// Code points of `line` (as the terminal counts racelab's text: "×", "µ", "…" are one column each).
size_t Columns(const std::string& line) {
  size_t n = 0;
  for (char c : line) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

class TmuxPane {
 public:
  // The pane runs `command` in folder `cwd` (the tmux server outlives the working folder a
  // Subprocess gets).
  TmuxPane(int width, const std::string& cwd, const std::string& command)
      : socket_("racelab-test-" + std::to_string(getpid()) + "-" + std::to_string(width)) {
    ProcessResult r =
        Tmux({"new-session", "-d", "-c", cwd, "-x", std::to_string(width), "-y", "50", command});
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  // The server is killed and its socket file removed (tmux leaves it in $TMUX_TMPDIR/tmux-UID).
  ~TmuxPane() {
    Tmux({"kill-server"});
    const char* dir = std::getenv("TMUX_TMPDIR");
    std::error_code ec;
    std::filesystem::remove(std::filesystem::path(dir != nullptr && *dir != 0 ? dir : "/tmp") /
                                ("tmux-" + std::to_string(getuid())) / socket_,
                            ec);
  }

  // The pane's whole text (history too), wrapped lines joined; `escapes`: with SGR sequences.
  std::string Capture(bool escapes = false) {
    std::vector<std::string> args = {"capture-pane", "-p", "-J", "-S", "-"};
    if (escapes) args.push_back("-e");
    return Tmux(args).out;
  }

  // Polls the pane until it shows `text`; every capture is handed to `seen`.
  bool WaitFor(const std::string& text, seconds deadline,
               const std::function<void(const std::string&)>& seen) {
    const auto end = std::chrono::steady_clock::now() + deadline;
    while (std::chrono::steady_clock::now() < end) {
      const std::string pane = Capture();
      seen(pane);
      if (pane.find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

 private:
  ProcessResult Tmux(std::vector<std::string> args) {
    args.insert(args.begin(), {"/usr/bin/tmux", "-L", socket_, "-f", "/dev/null"});
    return RunProcess(args, seconds(10));
  }
  std::string socket_;
};

// Runs a few results with trials long enough to watch (hold_ms) in a pane `width` columns wide; the
// second scenario runs only on MariaDB, so racelab says, in a note wider than 80 columns, that it
// is skipped.
void CheckPane(int width, bool no_color) {
  TempDir out;
  const std::string command =
      "env -u COLUMNS " + std::string(no_color ? "NO_COLOR=1 " : "") + kBin +
      " run lock-hold-wait naive-select-then-update-serializable --trials 8 --set hold_ms=150"
      " --out " +
      out.path.string() + "; echo racelab-exit=$?; sleep 600";
  TmuxPane pane(width, out.path.string(), command);
  std::string running;  // a capture taken while a result ran
  const bool ended = pane.WaitFor("racelab-exit=", seconds(180), [&](const std::string& text) {
    if (running.empty() && text.find(" elapsed") != std::string::npos) running = text;
  });
  const std::string text = pane.Capture();
  ASSERT_TRUE(ended) << text;
  EXPECT_THAT(text, HasSubstr("racelab-exit=0")) << text;
  // While a result runs, its line shows the trial, the elapsed time and (after a trial) an
  // estimate.
  EXPECT_THAT(running, ::testing::ContainsRegex("trial [0-9]+/8 · [0-9]+:[0-9][0-9] elapsed"))
      << running;
  // Each result's line ends with its verdict and time.
  EXPECT_THAT(text, ::testing::ContainsRegex(
                        "\\[1/3\\] lock-hold-wait @ read committed: 8 trials · pass · [0-9.]+ s"))
      << text;
  EXPECT_THAT(text, ::testing::ContainsRegex(
                        "\\[3/3\\] lock-hold-wait @ serializable: 8 trials · pass · [0-9.]+ s"))
      << text;
  EXPECT_THAT(text, HasSubstr("3 results: 3 pass, 0 fail, 0 error")) << text;
  EXPECT_THAT(
      text, HasSubstr("racelab: naive-select-then-update-serializable skipped: it runs on mariadb"))
      << text;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_LE(Columns(line), static_cast<size_t>(width)) << "wrapped: '" << line << "'\n" << text;
  }
  const std::string colored = pane.Capture(/*escapes=*/true);
  if (no_color) {
    EXPECT_THAT(colored, Not(HasSubstr("\x1b["))) << "NO_COLOR: no colour";
  } else {
    EXPECT_THAT(colored, HasSubstr("\x1b[32m")) << "a terminal: verdicts in colour";
  }
}

TEST(ProgressInTmux, At80Columns) { CheckPane(80, /*no_color=*/false); }

TEST(ProgressInTmux, At200ColumnsWithNoColor) { CheckPane(200, /*no_color=*/true); }

}  // namespace
}  // namespace racelab::testing
