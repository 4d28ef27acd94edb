#include "harness/cli/progress.h"

#include <fmt/format.h>

#include <algorithm>

#include "harness/model/isolation.h"
#include "harness/model/terminal_text.h"

namespace racelab::cli {
namespace {

using std::chrono::duration_cast;
using std::chrono::nanoseconds;
using std::chrono::seconds;

constexpr size_t kMinHeadWidth = 12;  // columns the head keeps before the whole line is clipped

}  // namespace

Progress::Progress(std::ostream& out, Options options, size_t total_items, int64_t total_trials,
                   Clock clock)
    : out_(out),
      options_(options),
      total_items_(total_items),
      total_trials_(total_trials),
      clock_(std::move(clock)),
      run_start_(clock_()),
      item_start_(run_start_) {}

std::string Progress::ClockText(nanoseconds elapsed) {
  const int64_t s = std::max<int64_t>(0, duration_cast<seconds>(elapsed).count());
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

std::string Progress::Duration(nanoseconds elapsed) {
  const double s = std::max(0.0, std::chrono::duration<double>(elapsed).count());
  if (s < 10) return fmt::format("{:.1f} s", s);
  if (s < 60) return fmt::format("{:.0f} s", s);
  return ClockText(elapsed);
}

std::string Progress::EstimateText() const {
  if (trials_done_ == 0) return "";
  const nanoseconds busy = busy_ + (clock_() - item_start_);
  const int64_t left = std::max<int64_t>(0, total_trials_ - trials_done_);
  return fmt::format(" · ~{} left", ClockText(busy / trials_done_ * left));
}

void Progress::ItemStarted(size_t index, const PlanItem& item, bool several) {
  item_start_ = clock_();
  item_trials_done_ = 0;
  item_trials_planned_ = item.trials;
  item_errors_ = 0;
  head_ = fmt::format("[{}/{}] {} @ {}{}", index + 1, total_items_,
                      SanitizeForTerminal(item.scenario, false), IsolationName(item.isolation),
                      several ? " on " + SanitizeForTerminal(item.engine, false) : "");
  if (options_.quiet) return;
  if (!options_.live) {
    out_ << head_ << ": " << item.trials << " trials\n";
    return;
  }
  const std::string tail = fmt::format(": trial 0/{} · {} elapsed{}", item.trials,
                                       ClockText(clock_() - run_start_), EstimateText());
  Rewrite(tail, tail, false);
}

void Progress::TrialDone(const PlanItem& item, const TrialResult& trial) {
  ++trials_done_;
  ++item_trials_done_;
  if (!trial.error.empty()) ++item_errors_;
  if (options_.quiet || !options_.live) return;
  const std::string tail =
      fmt::format(": trial {}/{}{} · {} elapsed{}", trial.index + 1, item.trials,
                  item_errors_ ? fmt::format(" ({} with errors)", item_errors_) : "",
                  ClockText(clock_() - run_start_), EstimateText());
  Rewrite(tail, tail, false);
}

void Progress::ItemDone(const ResultSummary& summary, const Status& status) {
  const nanoseconds took = clock_() - item_start_;
  busy_ += took;
  // Trials planned but not run (an error or a stop ended the result early) leave the estimate.
  total_trials_ -= std::max<int64_t>(0, item_trials_planned_ - item_trials_done_);
  if (options_.quiet) return;
  const std::string verdict = VerdictName(summary.verdict);
  if (options_.live) {
    const std::string tail =
        fmt::format(": {} trials · {} · {}", summary.trials, verdict, Duration(took));
    const std::string colored =
        fmt::format(": {} trials · {} · {}", summary.trials,
                    ColorVerdict(verdict, verdict, options_.style.color), Duration(took));
    Rewrite(tail, colored, true);
  } else {
    out_ << fmt::format("{}: {} ({} trials, {})\n", head_, verdict, summary.trials, Duration(took));
  }
  if (!status.ok()) {
    const std::string message =
        "racelab: " +
        SanitizeForTerminal((summary.item != nullptr ? summary.item->scenario : std::string()) +
                                ": " + status.message(),
                            /*keep_newlines=*/true);
    for (const std::string& line : FoldLine(message, options_.style.width, "  "))
      out_ << line << '\n';
  }
}

void Progress::NotRun(int64_t trials) { total_trials_ -= trials; }

void Progress::Rewrite(const std::string& tail, const std::string& colored_tail, bool end_line) {
  // One column short of the width: a line that fills the last column leaves some terminals waiting
  // to wrap, and the next "\r" would then go to the wrong line.
  std::string head = head_;
  std::string shown_tail = colored_tail;
  if (options_.style.width > 0) {
    const size_t room = options_.style.width - 1;
    const size_t tail_width = DisplayWidth(tail);
    if (tail_width + kMinHeadWidth <= room) {
      head = ClipToWidth(head_, room - tail_width);
    } else {
      head =
          ClipToWidth(head_ + tail, room);  // a very narrow terminal: the whole line cut, no colour
      shown_tail.clear();
    }
  }
  // "\r" goes back to the line's start; ESC [ K (ECMA-48 EL, erase to the end of the line) blanks
  // what is left of a longer line before it.
  out_ << '\r' << head << shown_tail << "\x1b[K";
  if (end_line) out_ << '\n';
  out_.flush();
}

}  // namespace racelab::cli
