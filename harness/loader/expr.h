// Parameter substitution and the small arithmetic used in scenario files.
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "harness/model/status.h"

namespace racelab {

using ParamMap = std::map<std::string, std::string>;

// Replaces every ${name} whose name is in `params` with its value. Other ${…} are left as written
// (captures are substituted at run time).
std::string SubstituteParams(const std::string& text, const ParamMap& params);

// The size SubstituteParams(text, params) would have, without building it.
size_t SubstitutedSize(const std::string& text, const ParamMap& params);

// Names referenced as ${name} in `text`, in order of appearance (duplicates kept once).
std::vector<std::string> ReferencedNames(const std::string& text);

// Evaluates "+ - * / ( )" over decimal numbers after SubstituteParams. Errors (kUsage) name the
// text.
Result<double> EvalNumber(const std::string& text, const ParamMap& params);

// EvalNumber, then requires an integer value (within 1e-9); kUsage error otherwise.
Result<long> EvalInteger(const std::string& text, const ParamMap& params);

}  // namespace racelab
