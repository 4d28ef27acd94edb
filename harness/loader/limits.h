// The budgets of a scenario file: every size, length, depth, count and number the loader and the
// planner accept. A file over one of them is an exit-2 error "FILE:LINE:COL: FIELD: … (at most N)"
// before anything runs, so a hostile or broken file costs at most about a second and a few tens of
// MB. Documented in docs/scenario-format.md ("Limits"); keep the two in step. Thread-safety:
// constants.
#pragma once

#include <cstddef>

namespace racelab::limits {

// --- The file -----------------------------------------------------------------------------------
// Bytes in one scenario file (the largest catalogue file has 5 KiB). Checked before parsing:
// yaml-cpp needs about 170 bytes of memory per byte of a flat list and more for nested flows.
inline constexpr size_t kMaxFileBytes = 256 << 10;  // 256 KiB
// Errors reported for one file; then the loader stops, with a last line "… and more errors".
inline constexpr size_t kMaxErrors = 20;
// Nesting of YAML mappings and lists, the top-level mapping included (the deepest field,
// expect.at.LEVEL.blocked[i].min_ms, is in the 6th). Checked on yaml-cpp's event stream before any
// node is built (yaml_nesting.h), because yaml-cpp parses nesting by recursion.
inline constexpr int kMaxYamlDepth = 32;
// Bytes of all text values read from a file, counting a text again each time an alias repeats it
// (YAML anchors/aliases let a small file name the same value millions of times).
inline constexpr size_t kMaxTotalTextBytes = 4 << 20;  // 4 MiB

// --- Lengths (bytes)
// -------------------------------------------------------------------------------- Names: scenario,
// session, step, barrier, param, capture, setting, tag. PostgreSQL's own identifier limit
// (NAMEDATALEN - 1, PostgreSQL docs §4.1.1).
inline constexpr size_t kMaxNameBytes = 63;
// One-line texts: title, setting values, `when`, `on_error`, `ask`, expressions, param values (file
// defaults and --set values).
inline constexpr size_t kMaxLineBytes = 1024;
// Long texts: teaches, setup, teardown, a step's SQL, final checks' SQL and `equals`.
inline constexpr size_t kMaxTextBytes = 64 << 10;  // 64 KiB
// A text after ${param} substitution (planner), e.g. SQL that repeats a long --set value.
inline constexpr size_t kMaxSubstitutedBytes = 256 << 10;  // 256 KiB

// --- Depth --------------------------------------------------------------------------------------
// Parentheses and unary signs nested in one expression ("((2))" is 2, "- -2" is 2).
inline constexpr int kMaxExprDepth = 32;

// --- Counts -------------------------------------------------------------------------------------
inline constexpr size_t kMaxTags = 32;
inline constexpr size_t kMaxParams = 100;
inline constexpr size_t kMaxRoles = 100;  // entries of `sessions`
inline constexpr size_t kMaxStepsPerSession = 500;
inline constexpr size_t kMaxListItems =
    100;  // any other list or mapping: settings, capture,
          // retry.sqlstates, sqlstates, step_rows, blocked, final
// Session instances in one plan item (sum of every role's count): each is a thread and a
// connection.
inline constexpr long kMaxSessionInstances = 1000;
// Bytes of session text (SQL, settings, names) in one plan item, summed over instances, so that
// `count` cannot multiply a large file into gigabytes.
inline constexpr size_t kMaxPlanBytes = 64 << 20;  // 64 MiB

// --- Numbers ------------------------------------------------------------------------------------
// Every duration in ms (sleep_ms, timeout_ms, retry.initial_ms, retry.cap_ms, blocked min/max) is
// within ±24 h, the range of --trial-timeout-ms. std::chrono::steady_clock counts int64 nanoseconds
// (±292 years), so now() + any accepted duration cannot overflow.
inline constexpr long kMaxDurationMs = 86'400'000;
inline constexpr long kMaxRetryAttempts = 1000;
inline constexpr double kMaxRetryFactor = 1000;
// Integers (counts, rows): |n| <= 2^53, where a double still holds every integer exactly.
inline constexpr double kMaxInteger = 9007199254740992.0;

// --- Spec files (PostgreSQL isolationtester .spec, harness/loader/spec_parser.h)
// ---------------------- The same budgets as a scenario file: kMaxFileBytes, kMaxNameBytes
// (session, step and marker names), kMaxTextBytes (each { SQL } block), kMaxRoles (sessions),
// kMaxStepsPerSession, kMaxListItems (setup blocks, markers on one permutation step), no NUL byte;
// and these. Each is checked while parsing or counting, before any permutation is built
// (spec_permutations.h). Permutation lines in one file, and interleavings of a file without them
// (spec_permutations.h kMaxSpecPermutations has the same value).
inline constexpr size_t kMaxSpecPermutations = 10000;
// Steps in one permutation line.
inline constexpr size_t kMaxSpecPermutationSteps = 10000;
// Steps in all the permutations of one spec together (listed, or every interleaving: the count
// times the steps of all sessions), so that the orders built for a run stay within tens of MB.
inline constexpr size_t kMaxSpecPlanSteps = 1000000;

}  // namespace racelab::limits
