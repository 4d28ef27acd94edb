// The exit codes of every racelab subcommand: one table, printed as the footer of `racelab --help`
// and of each subcommand's --help, and repeated in README.md ("Exit codes"), which a unit test
// (tests/unit/exit_codes_test.cc) holds to this table row by row.
// Thread-safety: constant data.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace racelab::cli {

struct ExitCodeRow {
  std::string_view command;  // "run", "run --baseline FILE", "merge"
  std::string_view codes;  // "0 … · 1 … · 2 …": each code with what it means, in ascending order
};

inline constexpr std::array<ExitCodeRow, 15> kExitCodes{{
    {"list",
     "0 listed · 2 usage, or a scenario or spec file that does not load · 130/143 interrupted"},
    {"explain", "0 shown · 2 usage, or the scenario does not load · 130/143 interrupted"},
    {"run",
     "0 every expectation held · 1 an expectation failed · 2 usage or scenario-file error (also "
     "SQL that "
     "cannot run, SQLSTATE class 42) · 3 database/connection error or a deadline passed · 130/143 "
     "interrupted (the reports of what ran are written)"},
    {"run --baseline FILE",
     "the run's own 2, 3 and 130/143 first; then 0 no regression against FILE (a result "
     "that fails as it failed in FILE, or within chance, included) · 1 a regression: "
     "each is named (docs/compare.md)"},
    {"run X.spec",
     "0 the transcript was printed (and matches --expected) · 1 it differs from --expected · 2 "
     "usage or spec-file error · 3 database/connection error · 130/143 interrupted"},
    {"bench",
     "0 measured, every claim invariant held · 1 a double claim (the invariant failed) · 2 usage "
     "or scenario-file error · 3 database/connection error · 130/143 interrupted (what was "
     "measured is written)"},
    {"step",
     "0 quit (q, or stdin ended) · 2 usage or scenario-file error · 3 the server could not start · "
     "130/143 interrupted (everything removed)"},
    {"convert",
     "0 converted · 2 usage, a spec file that does not parse, or the file cannot be written"},
    {"compare",
     "0 no regression · 1 a regression (each is named) · 2 usage, or a report that cannot be read "
     "(file and field named)"},
    {"merge",
     "0 joined, whatever the results' verdicts (the merged verdict is on stdout; compare or run "
     "--baseline gates) · 2 usage, an invalid input or overlapping shards · 3 incomplete: an "
     "input's "
     "run ended early (run_error) or was interrupted, so results did not run"},
    {"matrix", "0 written · 2 usage, a report that cannot be read, or no anomaly-* result in it"},
    {"check",
     "0 no anomaly · 1 anomalies found (each named, with its cycle explained) · 2 usage, or a "
     "history that cannot be read (file:line and the field named) or breaks its model "
     "· 130/143 interrupted"},
    {"check --export FORMAT",
     "0 the history was written · 2 usage, or a history that cannot be read"},
    {"clean",
     "0 cleaned (or nothing to clean) · 2 usage (a malformed --dsn) · 3 the server cannot be "
     "reached "
     "or a drop failed"},
    {"--help, --version", "0"},
}};

// The table as plain text for --help: "Exit codes:\n  list                 0 listed · …\n…".
std::string ExitCodeTable();

// "Exit codes: 0 … · 2 …" for one subcommand's --help; every row whose command starts with
// `command`.
std::string ExitCodesOf(std::string_view command);

}  // namespace racelab::cli
