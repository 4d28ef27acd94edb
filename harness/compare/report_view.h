// ReportView: what `racelab compare` reads from a racelab.json (docs/report-schema.md), checked
// field by field. Compare works on the JSON contract rather than on the in-memory model so that it
// reads reports of other racelab versions; `run --baseline` turns its own report into JSON first.
//
// Errors are kUsage Statuses naming the file and the place: "new.json:3:5: not valid JSON: …",
// "base.json: results[2].winners: expected an object of integers". Unknown fields are ignored
// (the schema's rule); a missing optional field takes its documented default.
// Thread-safety: pure functions; the views are plain values.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/model/status.h"
#include "harness/model/stop_flag.h"

namespace racelab::compare {

struct PercentileView {
  double p50 = 0, p95 = 0, max = 0;  // ms for blocked_ms, µs for skew_us
  int64_t count = 0;
};

struct ExpectationView {
  std::string text;
  int64_t passed = 0, failed = 0;  // trials
  // expectations[].min_fraction: a result-level `one_of` alternative, which holds when passed >=
  // min_fraction × (passed + failed); nullopt for an expectation checked in every trial.
  std::optional<double> min_fraction;
  // Whether it failed over the result: failed > 0, or too few passes for min_fraction.
  bool Failing() const;
};

// One results[] entry.
struct ResultView {
  std::string scenario;
  std::string engine;     // results[].engine when present, else target.engine
  std::string isolation;  // as written: "read committed"
  std::vector<std::pair<std::string, std::string>> params;
  int64_t trials = 0;
  std::string verdict;  // "pass" | "fail" | "error" | "interrupted"
  std::string error;
  std::string interrupted;  // results[].interrupted: what cut it short (SIGINT/SIGTERM); "" when it
                            // ran every trial
  std::map<std::string, int64_t> winners;    // "1" -> trials
  std::map<std::string, int64_t> sqlstates;  // code -> occurrences
  // results[].errors when the report has it: failed statements by SQLSTATE, or by the engine's own
  // code where the SQLSTATE is generic (MariaDB 1205 and SQLite's SQLITE_BUSY are both HY000).
  std::optional<std::map<std::string, int64_t>> errors;
  int64_t retries = 0;
  PercentileView blocked_ms;  // count = statements seen in a lock wait, over all trials
  PercentileView skew_us;
  std::vector<ExpectationView> expectations;
  // Trials kept in trial_details whose verdict is not "pass" (however many trial_details holds).
  int64_t failing_trials_kept = 0;
  // Per trial, the outcome categories derived from its events and final values (see OutcomesOfTrial
  // in report_view.cc): "worker/claim rows 0,1", "final #1 = 1". nullopt unless trial_details holds
  // every trial (a report written with fewer details cannot be compared on these).
  std::optional<std::vector<std::vector<std::string>>> trial_outcomes;
  // Display names of the final-value categories: "final #1" -> its SQL.
  std::map<std::string, std::string> final_sql;

  // "scenario [isolation] engine {k=v, …}": what identifies a result across reports.
  std::string Key() const;
};

struct ReportView {
  std::string name;  // the file as given, for messages
  int64_t schema_version = 0;
  std::string racelab_version;
  std::string engine;
  std::string server_version;
  std::string command;
  std::vector<ResultView> results;
};

// The largest count a report may hold (trials, passed, failed, winners, SQLSTATE and error counts,
// retries, percentile counts): the schema's maximum (schemas/racelab-report.schema.json "count").
// Keeps every exact test within Boost.Math's unsigned range and its time bounded.
inline constexpr int64_t kMaxReportCount = 1'000'000'000;

// Reads (report_file.h: regular files only, at most 64 MiB, interruptible by `stop`) and checks
// `path`. kUsage on an unreadable file, invalid JSON, a field of the wrong type, a count out of its
// range (0 to kMaxReportCount; an expectation's passed + failed and each winners count at most the
// result's trials) — the message names the file and the JSON path — or an interrupted read.
Result<ReportView> ReadReportView(const std::string& path, const StopFlag* stop = nullptr);

// Checks an already parsed document; `name` is used in messages.
Result<ReportView> ReportViewFromJson(const nlohmann::json& doc, const std::string& name);

}  // namespace racelab::compare
