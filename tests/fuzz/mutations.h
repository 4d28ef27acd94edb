// Hostile scenario files made from the catalogue, for the loader fuzz test. Each case is malformed
// by construction — an over-long value, a too-deep nesting, an out-of-range or malformed number, a
// wrong type, binary bytes, a YAML alias bomb, a huge file, a barrier cycle, … — so a correct
// loader refuses every one with exit 2.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace racelab::fuzz {

struct CatalogueFile {
  std::string name;  // file name, e.g. "guarded-cas-claim.yaml"
  std::string text;
};

struct FuzzCase {
  std::string name;         // "<catalogue file>.<mutation>", unique; the generated file's name
  std::string text;         // the file's content
  std::string set_all;      // non-empty: run with --set-all VALUE
  size_t filler_bytes = 0;  // non-zero: the file is this many bytes of comment lines instead
};

// Every mutation applied to every catalogue file (with choices drawn from a PRNG seeded by `seed`,
// so the same seed gives the same cases), plus whole-file cases (binary, degenerate, huge).
std::vector<FuzzCase> MakeCases(const std::vector<CatalogueFile>& catalogue, uint32_t seed);

// PostgreSQL isolation spec files made from `specs` (tests/fuzz/spec_mutations.cc): every mutation
// on every file, random places of a few, and whole-file cases (binary, empty, huge). Each case is
// written as NAME.spec.
std::vector<FuzzCase> MakeSpecCases(const std::vector<CatalogueFile>& specs, uint32_t seed);

}  // namespace racelab::fuzz
