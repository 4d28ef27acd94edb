// Progress of `racelab run` on stderr, for a person at a terminal and for a CI log.
//
// - On a terminal (`live`): one line per result. While a result runs, its line is rewritten after
//   every trial — "[3/40] guarded-cas-claim @ read committed: trial 5/20 · 0:41 elapsed · ~3:12
//   left" (the estimate: time per trial so far × trials left of the whole run; none before the
//   first trial ends) — and when it ends the line stays, ending with its verdict and time:
//   "[3/40] guarded-cas-claim @ read committed: 20 trials · pass · 1.4 s". Every line fits the
//   terminal's width (the scenario name is cut with "…" first), so the terminal never wraps it;
//   verdicts are coloured when TerminalStyle::color allows. A line is rewritten with "\r" and ESC [
//   K (erase to the end of the line), the only escape sequence written besides colour.
// - In a log (not a terminal): "[3/40] guarded-cas-claim @ read committed: 20 trials" when a result
//   starts, "[3/40] guarded-cas-claim @ read committed: pass (20 trials, 1.4 s)" when it ends;
//   nothing is rewritten and no escape sequence is written.
// - `quiet`: nothing.
// Data (scenario names, error messages) is escaped (harness/model/terminal_text.h). The clock is
// injected (tests give a fake one). Thread-safety: one thread (the pipeline's callbacks run on it).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include "harness/model/plan.h"
#include "harness/model/status.h"
#include "harness/model/summary.h"
#include "harness/model/terminal_layout.h"
#include "harness/model/trial_result.h"

namespace racelab::cli {

class Progress {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  struct Options {
    bool live = false;    // stderr is a terminal (TERM not dumb): rewrite the running result's line
    TerminalStyle style;  // stderr's width (0: unlimited) and colour
    bool quiet = false;
  };

  // `total_items` results and `total_trials` trials planned over the whole run (every engine).
  Progress(std::ostream& out, Options options, size_t total_items, int64_t total_trials,
           Clock clock = std::chrono::steady_clock::now);

  // Result number `index` (0-based over the run) starts; `several`: its engine is named.
  void ItemStarted(size_t index, const PlanItem& item, bool several);
  void TrialDone(const PlanItem& item, const TrialResult& trial);
  // The result ended with `summary`; a `status` that is not OK is printed under its line.
  void ItemDone(const ResultSummary& summary, const Status& status);
  // `trials` planned trials will not run (an engine that did not start): they leave the estimate.
  void NotRun(int64_t trials);

  // "0:41", "12:03", "1:02:03".
  static std::string ClockText(std::chrono::nanoseconds elapsed);
  // "0.4 s", "41 s", "2:05".
  static std::string Duration(std::chrono::nanoseconds elapsed);

 private:
  // The live line, fitted to the width; `tail` follows the head.
  void Rewrite(const std::string& tail, const std::string& colored_tail, bool end_line);
  std::string EstimateText() const;

  std::ostream& out_;
  Options options_;
  size_t total_items_;
  int64_t total_trials_;
  Clock clock_;
  std::chrono::steady_clock::time_point run_start_;
  std::chrono::steady_clock::time_point item_start_;
  std::chrono::nanoseconds busy_{0};  // time inside finished results
  int64_t trials_done_ = 0;           // over the run
  int64_t item_trials_done_ = 0;
  int64_t item_trials_planned_ = 0;
  int item_errors_ = 0;  // trials of this result with an error
  std::string head_;     // "[3/40] guarded-cas-claim @ read committed"
};

}  // namespace racelab::cli
