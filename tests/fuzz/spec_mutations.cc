// Hostile PostgreSQL isolation spec files made from the team's spec fixtures, for the loader fuzz
// test (issue 20): each breaks a limit of harness/loader/limits.h ("Spec files") or the grammar, so
// a correct loader refuses every one with exit 2 and FILE:LINE.
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tests/fuzz/mutations.h"

namespace racelab::fuzz {
namespace {

using Rng = std::mt19937;

std::string Rep(const std::string& s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

// Where the spec's grammar is, outside SQL blocks, quoted names and comments.
struct Shape {
  std::vector<size_t> line_starts;  // offsets of lines that start outside a block, quote or comment
  std::vector<size_t> opens;        // offsets just after each '{'
  size_t first_permutation = std::string::npos;  // offset of the first "permutation" line
};

Shape ShapeOf(const std::string& text) {
  Shape shape;
  bool in_block = false, in_quote = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((i == 0 || text[i - 1] == '\n') && !in_block && !in_quote) {
      shape.line_starts.push_back(i);
      if (shape.first_permutation == std::string::npos &&
          text.compare(i, 12, "permutation ") == 0) {
        shape.first_permutation = i;
      }
    }
    if (in_block) {
      in_block = c != '}';
    } else if (in_quote) {
      in_quote = c != '"';
    } else if (c == '#') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
    } else if (c == '"') {
      in_quote = true;
    } else if (c == '{') {
      in_block = true;
      shape.opens.push_back(i + 1);
    }
  }
  return shape;
}

// `lines` (each ending in '\n') as new sessions: before the permutation lines, else at the end.
std::string AddSessions(const std::string& text, const std::string& lines) {
  const size_t at = ShapeOf(text).first_permutation;
  if (at == std::string::npos) return text + "\n" + lines;
  return text.substr(0, at) + lines + text.substr(at);
}

// The text without its permutation lines (then every interleaving runs).
std::string WithoutPermutations(const std::string& text) {
  const size_t at = ShapeOf(text).first_permutation;
  return at == std::string::npos ? text : text.substr(0, at);
}

// A session "fz" of `n` steps fz0 … fz(n-1) (names no fixture uses).
std::string FuzzSession(size_t n, const std::string& name = "fz") {
  std::string out = "session " + name + "\n";
  for (size_t i = 0; i < n; ++i) out += "step " + name + std::to_string(i) + " { SELECT 1; }\n";
  return out;
}

// `line` inserted at a random line start outside any block (a place where the grammar is read).
std::string InsertLine(const std::string& text, const std::string& line, Rng& rng) {
  const Shape shape = ShapeOf(text);
  const size_t at = shape.line_starts[rng() % shape.line_starts.size()];
  return text.substr(0, at) + line + "\n" + text.substr(at);
}

using SpecMutation = std::function<std::string(const std::string&, Rng&)>;

std::vector<std::pair<std::string, SpecMutation>> SpecMutations() {
  return {
      // --- Limits (harness/loader/limits.h "Spec files")
      {"session-name-long",
       [](auto& t, Rng& r) {
         return AddSessions(t, "session " + Rep("n", 64 + r() % 12000) + " step fz0 { }\n");
       }},
      {"session-name-quoted-long",
       [](auto& t, Rng& r) {
         return AddSessions(t, "session \"" + Rep("n ", 32 + r() % 4000) + "\" step fz0 { }\n");
       }},
      {"step-name-long",
       [](auto& t, Rng& r) {
         return AddSessions(t, "session fz step " + Rep("s", 64 + r() % 5000) + " { }\n");
       }},
      {"permutation-name-long",
       [](auto& t, Rng&) { return t + "\npermutation " + Rep("p", 64) + "\n"; }},
      {"marker-name-long",
       [](auto& t, Rng&) { return t + "\npermutation fz0(" + Rep("m", 64) + ")\n"; }},
      {"step-sql-long",
       [](auto& t, Rng& r) {
         return AddSessions(
             t, "session fz step fz0 { SELECT '" + Rep("x", 65530 + r() % 2000) + "'; }\n");
       }},
      {"setup-sql-long", [](auto& t, Rng&) { return "setup { " + Rep("-", 65537) + " }\n" + t; }},
      {"sql-nul",
       [](auto& t, Rng&) {
         static const char kLine[] = "session fz step fz0 { SELECT 1;\0 }\n";
         return AddSessions(t, std::string(kLine, sizeof kLine - 1));
       }},
      {"name-nul",
       [](auto& t, Rng&) {
         static const char kLine[] = "session \"f\0z\" step fz0 { SELECT 1; }\n";
         return AddSessions(t, std::string(kLine, sizeof kLine - 1));
       }},
      {"sessions-many",
       [](auto& t, Rng&) {
         std::string lines;
         for (int i = 0; i < 101; ++i) lines += FuzzSession(1, "fz" + std::to_string(i) + "_");
         return AddSessions(t, lines);
       }},
      {"steps-many", [](auto& t, Rng& r) { return AddSessions(t, FuzzSession(501 + r() % 3000)); }},
      {"steps-100000",
       [](auto& t, Rng&) { return AddSessions(t, FuzzSession(100000)); }},  // over the size limit
      {"setups-many", [](auto& t, Rng&) { return Rep("setup { SELECT 1; }\n", 101) + t; }},
      {"permutations-many",
       [](auto& t, Rng&) {
         return AddSessions(t, FuzzSession(1)) + "\n" + Rep("permutation fz0\n", 10001);
       }},
      {"permutation-steps-many",
       [](auto& t, Rng&) {
         return AddSessions(t, FuzzSession(1)) + "\npermutation " + Rep("fz0 ", 10001) + "\n";
       }},
      {"markers-many",
       [](auto& t, Rng&) {
         return AddSessions(t, FuzzSession(1) + FuzzSession(1, "fy")) + "\npermutation fz0(" +
                Rep("fy0, ", 100) + "fy0) fy0\n";
       }},
      {"interleavings-many",
       [](auto& t, Rng& r) {
         std::string lines;
         for (size_t i = 0, n = 8 + r() % 20; i < n; ++i)
           lines += FuzzSession(1 + r() % 3, "fz" + std::to_string(i) + "_");
         return WithoutPermutations(t) + lines;
       }},
      {"interleavings-wide",  // C(141, 2) = 9,870 orders of 141 steps: over the steps budget
       [](auto& t, Rng&) {
         return WithoutPermutations(t) + FuzzSession(139) + FuzzSession(2, "fy");
       }},
      {"notices-huge",
       [](auto& t, Rng&) {
         return AddSessions(t, FuzzSession(1) + FuzzSession(1, "fy")) +
                "\npermutation fz0(fy0 notices 99999999999) fy0\n";
       }},
      {"notices-zero",
       [](auto& t, Rng&) {
         return AddSessions(t, FuzzSession(1) + FuzzSession(1, "fy")) +
                "\npermutation fz0(fy0 notices 0) fy0\n";
       }},
      // --- Grammar and meaning
      {"undefined-step", [](auto& t, Rng&) { return t + "\npermutation no_such_step_fz\n"; }},
      {"duplicate-step",
       [](auto& t, Rng&) {
         return AddSessions(t, "session fz step fz0 { }\nsession fy step fz0 { }\n");
       }},
      {"duplicate-session",
       [](auto& t, Rng&) { return AddSessions(t, FuzzSession(1) + FuzzSession(1, "fz") + "\n"); }},
      {"own-session-marker",
       [](auto& t, Rng&) {
         return AddSessions(t, FuzzSession(2)) + "\npermutation fz0(fz1) fz1\n";
       }},
      {"marker-not-run",
       [](auto& t, Rng&) {
         return AddSessions(t, FuzzSession(1) + FuzzSession(1, "fy")) + "\npermutation fz0(fy0)\n";
       }},
      {"marker-unclosed",
       [](auto& t, Rng&) { return AddSessions(t, FuzzSession(1)) + "\npermutation fz0(*"; }},
      {"markers-deep",
       [](auto& t, Rng& r) { return t + "\npermutation a" + Rep("(", 1 + r() % 50000) + "\n"; }},
      {"permutation-empty", [](auto& t, Rng&) { return t + "\npermutation\n"; }},
      {"session-without-steps", [](auto& t, Rng&) { return AddSessions(t, "session fz\n"); }},
      {"keyword-as-name",
       [](auto& t, Rng&) { return AddSessions(t, "session step step fz0 { }\n"); }},
      {"empty-quoted-name",
       [](auto& t, Rng&) { return AddSessions(t, "session \"\" step fz0 { }\n"); }},
      {"quoted-name-newline",
       [](auto& t, Rng&) { return AddSessions(t, "session \"f\nz\" step fz0 { }\n"); }},
      {"quoted-name-unterminated", [](auto& t, Rng&) { return t + "\nsession \"fz"; }},
      {"sql-unterminated",
       [](auto& t, Rng& r) {
         const Shape shape = ShapeOf(t);
         return t.substr(0, shape.opens[r() % shape.opens.size()]);  // cut just inside a block
       }},
      {"setup-after-session",
       [](auto& t, Rng&) { return AddSessions(t, FuzzSession(1) + "setup { SELECT 1; }\n"); }},
      {"two-teardowns", [](auto& t, Rng&) { return "teardown { }\nteardown { }\n" + t; }},
      {"no-sessions",
       [](auto&, Rng&) { return std::string("setup { SELECT 1; }\n# only setup\n"); }},
      {"stray-character",
       [](auto& t, Rng& r) {
         static const std::vector<std::string> kLines = {";",       "@",        "}", "\x01",
                                                         "\x1b[2J", "\xff\xfe", "=", "\\"};
         return InsertLine(t, kLines[r() % kLines.size()], r);
       }},
      {"stray-keyword",
       [](auto& t, Rng& r) {
         static const std::vector<std::string> kLines = {"notices", "(",     ")",   ",",
                                                         "*",       "12345", "step"};
         // After the last session's steps a stray token cannot be read as part of a valid file.
         return t + "\n" + kLines[r() % kLines.size()] + "\n";
       }},
      {"over-size-limit",
       [](auto& t, Rng&) { return t + "\n" + Rep("# padding padding padding padding\n", 8000); }},
  };
}

}  // namespace

std::vector<FuzzCase> MakeSpecCases(const std::vector<CatalogueFile>& specs, uint32_t seed) {
  Rng rng(seed);
  std::vector<FuzzCase> cases;
  const std::vector<std::pair<std::string, SpecMutation>> mutations = SpecMutations();
  for (const CatalogueFile& file : specs) {
    for (const auto& [name, mutate] : mutations)
      cases.push_back({file.name + "." + name, mutate(file.text, rng), ""});
    // Random places: a stray character on a random line of the grammar, a cut inside a random
    // block.
    for (const auto& [name, mutate] : mutations) {
      if (name != "stray-character" && name != "sql-unterminated") continue;
      for (int i = 0; i < 6; ++i) {
        cases.push_back(
            {file.name + "." + name + "-" + std::to_string(i), mutate(file.text, rng), ""});
      }
    }
  }
  // 2,000,000 permutation lines (32 MB, issue 20 item 14): once, the size limit.
  if (!specs.empty()) {
    cases.push_back(
        {specs[0].name + ".permutations-2000000",
         AddSessions(specs[0].text, FuzzSession(1)) + "\n" + Rep("permutation fz0\n", 2000000),
         ""});
  }
  for (int i = 0; i < 8; ++i) {
    std::string bytes(1, static_cast<char>(rng() % 2 ? 0x01 : 0xFE));
    for (size_t n = 1 + rng() % 4000; bytes.size() < n;)
      bytes.push_back(static_cast<char>(rng() % 256));
    cases.push_back({"spec-binary-" + std::to_string(i), bytes, ""});
  }
  cases.push_back({"spec-empty", "", ""});
  cases.push_back({"spec-huge-50mb", "", "", 50u << 20});
  return cases;
}

}  // namespace racelab::fuzz
