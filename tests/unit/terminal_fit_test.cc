// Console output that fits the terminal: the console reporter's tables at 80, 120 and 200 columns
// (no line wider; low-priority columns dropped first and named), unchanged when the width is
// unlimited (a file, a pipe), colour only when allowed (harness/cli/terminal.h: a terminal,
// NO_COLOR unset, TERM not dumb), and the progress lines of `racelab run` (harness/cli/progress.h)
// with a fake clock: verdict and time at the end of each result's line, elapsed time and an
// estimate while it runs. No database: hand-built reports.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <string>
#include <vector>

#include "harness/cli/progress.h"
#include "harness/cli/terminal.h"
#include "harness/model/terminal_layout.h"
#include "reports/reporter.h"
#include "tests/unit/render_report.h"
#include "tests/unit/sample_report.h"

namespace racelab {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// `text` without SGR sequences (ESC [ … m).
std::string WithoutSgr(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
      i = text.find('m', i);
      if (i == std::string::npos) break;
      continue;
    }
    out += text[i];
  }
  return out;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

void ExpectFits(const std::string& text, size_t width) {
  for (const std::string& line : Lines(WithoutSgr(text))) {
    EXPECT_LE(DisplayWidth(line), width) << "wider than " << width << ": '" << line << "' in\n"
                                         << text;
  }
}

std::string Console(const RunReport& report, size_t width, bool color = false) {
  auto reporter = MakeReporter("console", TerminalStyle{width, color});
  EXPECT_TRUE(reporter.ok());
  std::ostringstream out;
  (*reporter)->Write(report, out);
  return out.str();
}

// The sample report made as wide as the catalogue's real runs: long scenario names, many error
// codes, params that tell results apart, a long first failure.
std::unique_ptr<testing::SampleRun> WideRun() {
  auto run = testing::MakeSampleRun();
  run->plan.items[0].scenario = "sqlite-deferred-upgrade-journal-no-timeout";
  run->plan.items[1].scenario = "sqlite-deferred-upgrade-journal-no-timeout";
  run->plan.items[0].params = {
      {"order", "w1.begin w2.begin w1.read w2.read w1.write w2.write w1.commit"}};
  run->plan.items[1].params = {
      {"order", "w2.begin w1.begin w2.read w1.read w2.write w1.write w2.commit"}};
  run->report.results[1].errors = {
      {"40001", 12}, {"40P01", 3}, {"55P03", 2}, {"SQLITE_BUSY_SNAPSHOT", 1}};
  run->report.results[1].expectations[0].first_failure =
      "trial 2: got NULL, expected the value the first session wrote before the second one read "
      "it, which "
      "is what a lost update looks like from the outside";
  return run;
}

TEST(ConsoleFit, NoLineWiderThan80Or120Or200Columns) {
  auto run = WideRun();
  const std::string full = Console(run->report, 0);
  size_t widest = 0;
  for (const std::string& line : Lines(full)) widest = std::max(widest, DisplayWidth(line));
  ASSERT_GT(widest, 200u) << full;  // the test needs a table wider than every width below
  for (size_t width : {80u, 120u, 200u}) {
    const std::string text = Console(run->report, width);
    ExpectFits(text, width);
    // The essential columns stay: each result's scenario (maybe cut), level and verdict.
    EXPECT_THAT(text, HasSubstr("read committed")) << text;
    EXPECT_THAT(text, HasSubstr("serializable    fail")) << text;
    EXPECT_THAT(text, HasSubstr("2 results: 1 pass, 1 fail, 0 error")) << text;
  }
  // At 80 the lowest-priority columns are dropped, and named.
  const std::string narrow = Console(run->report, 80);
  const std::string header = Lines(narrow).front();
  EXPECT_THAT(header, Not(HasSubstr("skew p95"))) << narrow;
  EXPECT_THAT(header, HasSubstr("winners")) << narrow;
  EXPECT_THAT(narrow, HasSubstr("(left out to fit 80 columns: ")) << narrow;
  EXPECT_THAT(narrow, HasSubstr("skew p95 µs")) << "the note names it";
}

TEST(ConsoleFit, UnlimitedWidthIsTheFullTableUnchanged) {
  auto run = testing::MakeSampleRun();
  // Width 0 is what a file or a pipe gets: byte for byte what the golden file holds
  // (reporters_test).
  EXPECT_EQ(Console(run->report, 0), testing::Render("console", run->report));
  auto wide = WideRun();
  EXPECT_THAT(Console(wide->report, 0), Not(HasSubstr("left out"))) << "nothing is dropped";
  EXPECT_THAT(Console(wide->report, 0), Not(HasSubstr("…")));
  // A wide terminal that holds the whole table changes nothing either.
  EXPECT_EQ(Console(run->report, 300), testing::Render("console", run->report));
}

TEST(ConsoleFit, SideBySideFits80Columns) {
  auto run = WideRun();
  TargetInfo sqlite;
  sqlite.engine = "sqlite";
  sqlite.server_version = "3.40.1";
  run->plan.items[1].engine = "sqlite";
  run->plan.items[1].scenario = run->plan.items[0].scenario;
  run->plan.items[1].isolation = run->plan.items[0].isolation;
  run->report.targets = {run->report.target, sqlite};
  const std::string text = Console(run->report, 80);
  ExpectFits(text, 80);
  EXPECT_THAT(text, HasSubstr("postgresql")) << text;
  EXPECT_THAT(text, HasSubstr("sqlite")) << text;
}

TEST(ConsoleFit, VerdictsColouredOnlyWhenAllowed) {
  auto run = testing::MakeSampleRun();
  const std::string plain = Console(run->report, 120, false);
  EXPECT_EQ(plain.find('\x1b'), std::string::npos) << plain;
  const std::string colored = Console(run->report, 120, true);
  EXPECT_THAT(colored, HasSubstr("\x1b[32mpass\x1b[0m"));
  EXPECT_THAT(colored, HasSubstr("\x1b[1;31mfail\x1b[0m"));
  EXPECT_EQ(WithoutSgr(colored), plain) << "colour changes no column";
}

TEST(TerminalStyle, ColourOnlyOnATerminalWithoutNoColorOrDumbTerm) {
  cli::TerminalFacts tty;
  tty.is_terminal = true;
  tty.window_columns = 132;
  tty.term = "xterm-256color";
  EXPECT_TRUE(cli::TerminalStyleFor(tty).color);
  EXPECT_EQ(cli::TerminalStyleFor(tty).width, 132u);

  cli::TerminalFacts no_color = tty;
  no_color.no_color = "1";
  EXPECT_FALSE(cli::TerminalStyleFor(no_color).color);
  no_color.no_color = "";  // no-color.org: set to a non-empty value
  EXPECT_TRUE(cli::TerminalStyleFor(no_color).color);

  cli::TerminalFacts dumb = tty;
  dumb.term = "dumb";
  EXPECT_FALSE(cli::TerminalStyleFor(dumb).color);

  cli::TerminalFacts pipe;  // not a terminal: no colour, every column
  pipe.term = "xterm-256color";
  EXPECT_FALSE(cli::TerminalStyleFor(pipe).color);
  EXPECT_EQ(cli::TerminalStyleFor(pipe).width, 0u);
}

TEST(TerminalStyle, WidthFromColumnsElseTheTerminalElse80) {
  cli::TerminalFacts pipe;
  pipe.columns = "100";
  EXPECT_EQ(cli::TerminalStyleFor(pipe).width, 100u) << "COLUMNS asks for a width, terminal or not";
  EXPECT_FALSE(cli::TerminalStyleFor(pipe).color);
  cli::TerminalFacts tty;
  tty.is_terminal = true;
  tty.window_columns = 200;
  tty.columns = "80";
  EXPECT_EQ(cli::TerminalStyleFor(tty).width, 80u) << "COLUMNS before the terminal's size";
  tty.columns = "wide";
  EXPECT_EQ(cli::TerminalStyleFor(tty).width, 200u) << "a COLUMNS that is no number is ignored";
  tty.columns.reset();
  tty.window_columns = 0;
  EXPECT_EQ(cli::TerminalStyleFor(tty).width, 80u) << "a terminal that does not say";
}

TEST(TerminalLayout, ClipAndFold) {
  EXPECT_EQ(ClipToWidth("guarded-cas-claim", 8), "guarded…");
  EXPECT_EQ(ClipToWidth("µs×2", 4), "µs×2");
  EXPECT_EQ(ClipToWidth("µs×23", 4), "µs×…");
  const std::vector<std::string> lines = FoldLine(
      "  - final SELECT error FROM runs WHERE id=1 = 2: failed in 1 of 2 trials", 30, "    ");
  for (const std::string& line : lines) EXPECT_LE(DisplayWidth(line), 30u) << line;
  EXPECT_EQ(lines.front(), "  - final SELECT error FROM");
  EXPECT_EQ(lines[1], "    runs WHERE id=1 = 2:");
  EXPECT_THAT(FoldLine("short", 30, "  "), ::testing::ElementsAre("short"));
  EXPECT_THAT(FoldLine("abcdefghij", 4, ""), ::testing::ElementsAre("abcd", "efgh", "ij"));
}

// A fake clock: each call returns the time set.
struct FakeClock {
  std::chrono::steady_clock::time_point now{};
  void Advance(std::chrono::milliseconds ms) { now += ms; }
};

PlanItem ProgressItem(const std::string& scenario, int trials) {
  PlanItem item;
  item.scenario = scenario;
  item.engine = "postgresql";
  item.isolation = IsolationLevel::kReadCommitted;
  item.trials = trials;
  return item;
}

TEST(Progress, OnATerminalEachResultEndsWithVerdictAndTimeAndTheRunningLineHasAnEstimate) {
  FakeClock clock;
  std::ostringstream err;
  cli::Progress::Options options;
  options.live = true;
  options.style = TerminalStyle{80, false};
  cli::Progress progress(err, options, 2, 8, [&] { return clock.now; });
  const PlanItem first =
      ProgressItem("sqlite-deferred-upgrade-journal-no-timeout-and-more-words", 4);
  const PlanItem second = ProgressItem("guarded-cas-claim", 4);
  progress.ItemStarted(0, first, false);
  for (int i = 0; i < 4; ++i) {
    clock.Advance(std::chrono::milliseconds(1500));
    TrialResult t;
    t.index = i;
    progress.TrialDone(first, t);
  }
  // 4 trials in 6 s: 4 left, about 6 s more.
  EXPECT_THAT(err.str(), HasSubstr(": trial 4/4 · 0:06 elapsed · ~0:06 left"));
  ResultSummary done;
  done.item = &first;
  done.trials = 4;
  done.verdict = Verdict::kPass;
  progress.ItemDone(done, Status::Ok());
  progress.ItemStarted(1, second, false);
  clock.Advance(std::chrono::milliseconds(700));
  ResultSummary failed;
  failed.item = &second;
  failed.trials = 4;
  failed.verdict = Verdict::kFail;
  progress.ItemDone(failed, Status::Ok());
  // Each "\r" starts a rewrite of the line; what the terminal keeps is the last rewrite of each
  // line.
  std::vector<std::string> shown;
  for (const std::string& line : Lines(err.str())) {
    const size_t cr = line.rfind('\r');
    std::string last = line.substr(cr == std::string::npos ? 0 : cr + 1);
    ASSERT_THAT(last, ::testing::EndsWith("\x1b[K"))
        << "each rewrite erases what is left of the line";
    shown.push_back(last.substr(0, last.size() - 3));
    for (size_t start = 0; start <= line.size();) {  // every rewrite fits, one column short of 80
      size_t next = line.find('\r', start);
      std::string rewrite =
          line.substr(start, next == std::string::npos ? std::string::npos : next - start);
      if (rewrite.size() >= 3 && rewrite.compare(rewrite.size() - 3, 3, "\x1b[K") == 0)
        rewrite.resize(rewrite.size() - 3);
      EXPECT_LE(DisplayWidth(rewrite), 79u) << line;
      start = next == std::string::npos ? line.size() + 1 : next + 1;
    }
  }
  ASSERT_EQ(shown.size(), 2u) << err.str();
  EXPECT_THAT(shown[0], ::testing::StartsWith("[1/2] sqlite-deferred-upgrade-journal")) << shown[0];
  EXPECT_THAT(shown[0], ::testing::HasSubstr("…"));
  EXPECT_THAT(shown[0], ::testing::EndsWith(": 4 trials · pass · 6.0 s")) << shown[0];
  EXPECT_EQ(shown[1], "[2/2] guarded-cas-claim @ read committed: 4 trials · fail · 0.7 s");
  EXPECT_EQ(err.str().find("\x1b[3"), std::string::npos) << "no colour asked for";
}

TEST(Progress, InALogOneLineAtTheStartAndOneAtTheEndNothingRewritten) {
  FakeClock clock;
  std::ostringstream err;
  cli::Progress progress(err, cli::Progress::Options{}, 1, 3, [&] { return clock.now; });
  const PlanItem item = ProgressItem("guarded-cas-claim", 3);
  progress.ItemStarted(0, item, true);
  clock.Advance(std::chrono::milliseconds(65000));
  ResultSummary done;
  done.item = &item;
  done.trials = 3;
  done.verdict = Verdict::kPass;
  progress.ItemDone(done, Status::Ok());
  EXPECT_EQ(err.str(),
            "[1/1] guarded-cas-claim @ read committed on postgresql: 3 trials\n"
            "[1/1] guarded-cas-claim @ read committed on postgresql: pass (3 trials, 1:05)\n");
}

TEST(Progress, ColouredVerdictOnlyWhenTheStyleAllows) {
  FakeClock clock;
  std::ostringstream err;
  cli::Progress::Options options;
  options.live = true;
  options.style = TerminalStyle{120, true};
  cli::Progress progress(err, options, 1, 1, [&] { return clock.now; });
  const PlanItem item = ProgressItem("guarded-cas-claim", 1);
  progress.ItemStarted(0, item, false);
  ResultSummary done;
  done.item = &item;
  done.trials = 1;
  done.verdict = Verdict::kError;
  progress.ItemDone(done, Status::Ok());
  EXPECT_THAT(err.str(), HasSubstr("· \x1b[33merror\x1b[0m · 0.0 s\x1b[K\n"));
}

}  // namespace
}  // namespace racelab
