// The three outputs of a Comparison (compare.h): console text, Markdown (a PR comment) and JUnit
// XML (one testcase per result, a <failure> for each regression, <skipped> for a result found in
// one report only). All three state the rule and alpha (MethodLine) and any warning. Output is
// deterministic for the same Comparison; data text is escaped for its format (terminal controls,
// Markdown syntax, XML).
// Thread-safety: pure functions writing to the given stream.
#pragma once

#include <ostream>

#include "harness/compare/compare.h"

namespace racelab::compare {

void WriteConsole(const Comparison& c, std::ostream& out);
void WriteMarkdown(const Comparison& c, std::ostream& out);
void WriteJunit(const Comparison& c, std::ostream& out);

// "2 regressions, 1 changed within chance, 9 same, 1 only in BASE" (the last line of each output).
std::string TallyLine(const Comparison& c);

}  // namespace racelab::compare
