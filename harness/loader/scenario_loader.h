// ScenarioLoader: YAML scenario file -> Scenario, validated (stage 1). Never connects to a
// database.
//
// Errors are values: a Status with StatusCode::kUsage whose message starts with "FILE:LINE:COL: "
// and names the field, e.g.
//   scenarios/x.yaml:14:7: sessions[0].steps[2]: unknown step 'barier' (expected one of: begin,
//   sql, …)
// Checks: YAML syntax; unknown keys at every level; required keys; step kinds; every barrier is
// listed by at least two session instances in total; names referenced by outcome/expect exist;
// ${name} references are declared params or captures of an earlier step in the same session;
// SQLSTATE codes are 5 characters; isolation level names; param defaults are numbers or text
// without "${". Thread-safety: stateless functions, safe to call concurrently.
#pragma once

#include <string>

#include "harness/model/scenario.h"
#include "harness/model/status.h"

namespace racelab {

// Reads and validates one scenario file.
Result<Scenario> LoadScenarioFile(const std::string& path);

// Same, from text; `file_name` is used in error messages and Scenario::loc.
Result<Scenario> LoadScenarioText(const std::string& yaml_text, const std::string& file_name);

}  // namespace racelab
