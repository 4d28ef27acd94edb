// IsolationSpec: a PostgreSQL isolationtester spec file (src/test/isolation/specs/*.spec in
// PostgreSQL's source tree) as the spec parser read it (harness/loader/spec_parser.h).
//
// The file says: setup blocks run on a control connection, an optional teardown, sessions each with
// an optional setup, steps (named SQL blocks) and an optional teardown, and optional permutation
// lines — orders of steps across sessions, each step optionally annotated with blocking markers.
// The format is described in docs/scenario-format.md ("PostgreSQL isolation spec files"); its
// source of truth is PostgreSQL's src/test/isolation/README and specparse.y. Thread-safety: plain
// values; immutable once parsed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/model/scenario.h"

namespace racelab {

// One `{ … }` block: its text with leading/trailing blanks (spaces, tabs, CR, FF — not newlines)
// cut, exactly as isolationtester prints it in "step NAME: TEXT".
struct SpecSql {
  std::string text;
  SourceLoc loc;  // of the opening brace
};

struct SpecStep {
  std::string name;  // unique in the whole file (case-sensitive, no case folding)
  SpecSql sql;
  SourceLoc loc;  // of the `step` keyword
};

struct SpecSession {
  std::string name;
  SourceLoc loc;
  std::optional<SpecSql> setup;
  std::vector<SpecStep> steps;  // at least one
  std::optional<SpecSql> teardown;
};

// A blocking marker on a permutation step: `(*)`, `(other)`, `(other notices 2)`. A marker only
// delays when the step is *reported* complete, never when it starts (PostgreSQL README "Dealing
// with race conditions").
struct SpecBlocker {
  enum class Kind {
    kOnce,     // `*`: report the step as waiting as soon as it starts
    kStep,     // `other`: not complete while step `other` (another session's) is still running
    kNotices,  // `other notices N`: not complete before other's session sent N more NOTICEs
  };
  Kind kind = Kind::kOnce;
  std::string step;  // kStep, kNotices
  int notices = 0;   // kNotices
  SourceLoc loc;
};

struct SpecPermutationStep {
  std::string name;
  std::vector<SpecBlocker> blockers;
  SourceLoc loc;
};

struct SpecPermutation {
  std::vector<SpecPermutationStep> steps;
  SourceLoc loc;  // of the `permutation` keyword
};

// A marker with the step it names resolved.
struct OrderedBlocker {
  SpecBlocker::Kind kind = SpecBlocker::Kind::kOnce;
  int session = -1;  // kStep, kNotices: the session of the named step
  int step = -1;     // kStep, kNotices: the named step's index in that session
  int notices = 0;   // kNotices
};

// One step of a total order: which session runs which of its steps, and its markers.
struct OrderedStep {
  int session = 0;  // index into IsolationSpec::sessions
  int step = 0;     // index into that session's steps
  std::vector<OrderedBlocker> blockers;
};

// One permutation, expanded (harness/loader/spec_permutations.h).
struct StepOrder {
  std::string name;  // "s1a s2a s1c …": the step names, as isolationtester prints them
  std::vector<OrderedStep> steps;
};

// How `racelab run X.spec` runs the orders (Engine::RunIsolationSpec).
struct SpecRunOptions {
  long step_timeout_ms = 300000;  // isolationtester's PGISOLATIONTIMEOUT default: 300 s
  long connect_timeout_ms = 5000;
  // After each "<waiting ...>" seen on the server, a line "  (SESSION waits: Lock/transactionid,
  // held by s1)" — what the step waits for and which sessions hold it (not in isolationtester's
  // output).
  bool wait_detail = false;
};

struct IsolationSpec {
  SourceLoc loc;               // the file
  std::vector<SpecSql> setup;  // run in order, each as one simple-query string
  std::optional<SpecSql> teardown;
  std::vector<SpecSession> sessions;          // at least one
  std::vector<SpecPermutation> permutations;  // empty: every interleaving (spec_permutations.h)
  // Not errors, as in isolationtester: "unused step name: X" when permutations leave a step out.
  std::vector<std::string> warnings;
};

}  // namespace racelab
