// The command line as racelab shows it: in reports (`command`) and in argument-parser errors, with
// every connection string redacted by parsing it (harness/engine_registry/open_engine.h), whatever
// subcommand it came with.
//
// An argument is a connection string when it follows `--dsn`, is the value of `--dsn=…`, or looks
// like one on its own (a postgres:// URI, or key=value text that sets a password) — e.g. a DSN
// passed as a scenario name by mistake, or to `list`, which takes no --dsn. Thread-safety: pure
// functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace racelab::cli {

// argv with each connection string replaced by its redaction (RedactDsn; "--dsn=" kept).
std::vector<std::string> RedactedArgv(int argc, const char* const* argv);

// RedactedArgv joined by spaces, each argument shell-quoted when needed ('…' with ' written '\'').
std::string CommandLine(int argc, const char* const* argv);

// `text` (a message of the argument parser, which echoes arguments) with every argument that is a
// connection string replaced, whole, by its redaction; longest first, so one inside another cannot
// survive. The arguments are matched whole — never a password searched for inside other text.
std::string RedactArguments(const std::string& text, int argc, const char* const* argv);

// Index (≥ 1) of the first argument that looks like a connection string but is not given with
// --dsn (nor as a --set value), or 0. `racelab run postgresql://…` would otherwise echo it as an
// unknown scenario name.
int StrayDsnArgument(int argc, const char* const* argv);

}  // namespace racelab::cli
