// Step labels for a person: what the HTML page's timeline and step table call a step (issue 21's
// "report for the projector"). A step the scenario named keeps its name ("claim"); a step whose
// name the loader generated from its key and position ("sql3", "commit7", "barrier2",
// harness/loader/step_parser.cc) is labelled by what it does: the statement's verb and table
// ("UPDATE runs", "SELECT … FROM runs FOR UPDATE") or its kind ("BEGIN", "COMMIT", "barrier").
// The name stays the step's identity everywhere else (racelab.json, `order:`, expectations,
// `racelab step --permutation`). Here in the model because the static report (reports/) and step
// mode (harness/step/) both label steps so.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "harness/model/scenario.h"
#include "harness/model/trial_result.h"

namespace racelab::internal {

// True when `name` is the loader's generated name for a step of `kind`: the kind's file key
// followed by the step's 1-based position ("sql3", "sleep_ms2").
bool IsGeneratedStepName(std::string_view name, StepKind kind);

// The verb and table of a statement, at most ~32 code points: "UPDATE runs", "INSERT INTO runs",
// "DELETE FROM runs", "SELECT … FROM runs", "SELECT … FROM runs FOR UPDATE", "SELECT
// pg_advisory_lock(…)", "LOCK TABLE runs". Comments and string literals are skipped; words inside
// parentheses (subqueries) are not read. "" for an empty statement.
std::string SqlLabel(std::string_view sql);

// The label of a step named `name` of `kind` that sends `sql` (kSql; its ${capture} references
// do not change the verb and table): `name` when the scenario gave it, else as above ("UPDATE
// runs", "BEGIN", "barrier"). Step mode (harness/step/step_view.h) labels its columns so.
std::string StepLabel(std::string_view name, StepKind kind, std::string_view sql);

// The step's label (above), with " #N" for attempt N > 1 of its transaction.
std::string StepLabel(const StepEvent& e);

}  // namespace racelab::internal
