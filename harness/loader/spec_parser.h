// Spec parser: a PostgreSQL isolationtester spec file -> IsolationSpec
// (harness/model/isolation_spec.h). Never connects to a database.
//
// The grammar is PostgreSQL 15's (src/test/isolation/specparse.y, specscanner.l, README):
//   spec        := setup* [teardown] session+ permutation*
//   setup       := "setup" SQL            teardown := "teardown" SQL
//   session     := "session" NAME [setup] step+ [teardown]
//   step        := "step" NAME SQL
//   permutation := "permutation" pstep+
//   pstep       := NAME [ "(" marker { "," marker } ")" ]
//   marker      := "*" | NAME | NAME "notices" INTEGER
// NAME is a plain identifier ([A-Za-z_\x80-\xff][A-Za-z0-9_$\x80-\xff]*) or a double-quoted one
// ("" is a quote); no case folding; keywords are names only when quoted. SQL is `{ … }` with the
// blanks after `{` and before `}` cut; it ends at the first `}`. `#` starts a comment outside SQL.
// Checks made after parsing, as isolationtester makes them: step names unique in the file; every
// permutation step and marker names a step; a marker does not name a step of its own session.
//
// Errors are a Status (kUsage) whose message is "FILE:LINE:COL: what", e.g.
//   t.spec:7:18: permutation: undefined step "s9"
// Thread-safety: stateless functions, safe to call concurrently.
#pragma once

#include <string>

#include "harness/model/isolation_spec.h"
#include "harness/model/status.h"

namespace racelab {

// Reads and parses one spec file (errors: kUsage, also for a file that cannot be read).
Result<IsolationSpec> LoadSpecFile(const std::string& path);

// Same, from text; `file_name` is used in error messages and locations.
Result<IsolationSpec> ParseSpecText(const std::string& text, const std::string& file_name);

// The steps of one permutation line without its keyword, as `--permutation "s1a s2a(*) s1c"` gives
// them: names (plain or "quoted") with optional markers. The names are not checked against a spec.
// Errors: kUsage "WHAT:1:COL: …" (`what` names the text; columns count the "permutation " put
// before it).
Result<SpecPermutation> ParseSpecPermutationSteps(const std::string& text, const std::string& what);

// True when `path` names a spec file (ends in ".spec").
bool IsSpecPath(const std::string& path);

}  // namespace racelab
