// Reads a racelab.json (docs/report-schema.md) back into the in-memory RunReport that the reporters
// write (reports/reporter.h), so that `racelab merge` can write every format of shard reports
// joined.
//
// What JSON does not hold is rebuilt or left empty: each result's PlanItem gets scenario, title,
// file, isolation and params from the report, and the lesson (`teaches`) and tags from the scenario
// file when it can still be read (best effort: empty otherwise); the plan's SQL is not needed by
// reporters and stays empty; StepEvent::sql is empty. Schema 2 fields (details, not_run, run_error,
// duration_us, representative_trial, trial_details_omitted) are read back; for a schema 1 report
// (every trial kept) duration_us is the kept trials' sum and representative_trial is chosen as the
// evaluator does (first non-passing trial, else the first with a lock wait, else the first).
// Errors: kUsage naming the file and the place (the same reading and checks as ReadReportView
// first). Thread-safety: pure function; a LoadedRun is a plain value, movable (the PlanItems stay
// in place).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/model/plan.h"
#include "harness/model/status.h"
#include "harness/model/stop_flag.h"
#include "harness/model/summary.h"

namespace racelab::compare {

struct LoadedRun {
  std::vector<std::unique_ptr<PlanItem>> items;  // owned; report.results[i].item points into these
  RunReport report;
};

// `stop`: SIGINT/SIGTERM end the read (report_file.h); nullptr: not interruptible.
Result<LoadedRun> ReadRunReport(const std::string& path, const StopFlag* stop = nullptr);

}  // namespace racelab::compare
