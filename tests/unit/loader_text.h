// Helpers for loader tests that edit a scenario given as numbered lines and read the loader's
// error. Thread-safety: pure functions (ErrorOf records a gtest failure when the error is not a
// usage error).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "harness/loader/scenario_loader.h"

namespace racelab::testing {

// `base` with each (1-based line, text) of `changes` replacing that line, joined with '\n' (a
// change's text may hold several lines).
inline std::string EditLines(const std::vector<std::string>& base,
                             const std::vector<std::pair<int, std::string>>& changes) {
  std::vector<std::string> lines = base;
  for (const auto& [line, text] : changes) lines[line - 1] = text;
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

// The loader's message for `yaml` loaded as "t.yaml" (a usage error: exit 2), or
// "(loaded without error)".
inline std::string ErrorOf(const std::string& yaml) {
  Result<Scenario> r = LoadScenarioText(yaml, "t.yaml");
  if (r.ok()) return "(loaded without error)";
  EXPECT_EQ(r.status().code(), StatusCode::kUsage);
  return r.status().message();
}

}  // namespace racelab::testing
