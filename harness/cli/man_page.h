// The racelab(1) man page, written from the CLI11 App that parses the command line — the same
// definition `--help` prints — so the page cannot drift from the parser. `racelab --help-man`
// prints it (hidden from --help); the build writes build/racelab.1 with it after linking racelab,
// and `cmake --install` and the .deb install that file (cmake/install.cmake).
//
// From the App: SYNOPSIS (one line per subcommand), DESCRIPTION and EXAMPLES (the paragraphs of the
// App's description: one that starts "Examples:" is EXAMPLES, the others DESCRIPTION), EXIT STATUS
// (the App's footer, the exit-code table of harness/cli/exit_codes.h: one entry per command), and
// COMMANDS: each subcommand's description, its positionals, every option with its value type,
// default and help text, and its footer (its exit codes). Options in the hidden group ("") and the
// help flag are left out. Written here: ENVIRONMENT, FILES, SEE ALSO.
//
// Output: roff for the man(7) macros, ASCII only (a few typographic characters of the help texts
// are mapped to groff escapes, e.g. "—" to \(em; any other non-ASCII character is passed through as
// UTF-8, which man-db's preconv reads). No date in .TH, so the page is the same on every build.
// Thread-safety: pure function of `app`.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>

namespace racelab::cli {

// The whole page; `version` is shown in .TH ("racelab 0.1.0").
std::string ManPage(const CLI::App& app, std::string_view version);

// `text` escaped for roff: backslashes, a leading '.' or '\'' of a line, '-' as \-, and the mapped
// typographic characters. Exposed for tests.
std::string RoffEscape(std::string_view text);

}  // namespace racelab::cli
