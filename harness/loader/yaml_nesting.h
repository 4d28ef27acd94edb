// Internal to harness/loader: bounds the nesting of a YAML text before it is loaded into nodes.
//
// yaml-cpp parses nested lists and mappings by recursion (yaml-cpp 0.7 stops at 500 levels with the
// bare message "bad file"). This check streams the text through yaml-cpp's event parser and stops
// at the first list or mapping nested deeper than limits::kMaxYamlDepth, so the recursion never
// goes deeper than that and the error says where and why. Thread-safety: pure function.
#pragma once

#include <optional>
#include <string>

#include "harness/model/scenario.h"

namespace racelab::internal {

struct NestingProblem {
  int line = 0;    // 1-based
  int column = 0;  // 1-based
  std::string message;
};

// The first place where `text` nests deeper than limits::kMaxYamlDepth, or nullopt. YAML syntax
// errors are not reported here (the loader reports them when it loads the text).
std::optional<NestingProblem> CheckYamlNesting(const std::string& text);

}  // namespace racelab::internal
