// Reporter tests: a RunReport rendered in one format, as the CLI would write it.
// Thread-safety: none needed (a pure function of its arguments).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include "harness/model/summary.h"
#include "reports/reporter.h"
#include "reports/reporters.h"

namespace racelab::testing {

// `report` written by the reporter named `format` ("console", "json", "markdown", …); "" and a test
// failure when no reporter has that name.
inline std::string Render(std::string_view format, const RunReport& report) {
  Result<std::unique_ptr<Reporter>> reporter = MakeReporter(format);
  EXPECT_TRUE(reporter.ok()) << reporter.status().message();
  if (!reporter.ok()) return "";
  std::ostringstream out;
  (*reporter)->Write(report, out);
  return out.str();
}

}  // namespace racelab::testing
