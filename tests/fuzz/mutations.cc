#include "tests/fuzz/mutations.h"

#include <functional>
#include <optional>
#include <random>

namespace racelab::fuzz {
namespace {

using Rng = std::mt19937;

std::string Rep(const std::string& s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

// Replaces the first line that starts with `prefix`; nullopt when there is none.
std::optional<std::string> ReplaceLine(const std::string& text, const std::string& prefix,
                                       const std::string& line) {
  size_t at = text.rfind(prefix, 0) == 0 ? 0 : text.find("\n" + prefix);
  if (at == std::string::npos) return std::nullopt;
  if (at != 0) ++at;
  size_t end = text.find('\n', at);
  if (end == std::string::npos) end = text.size();
  return text.substr(0, at) + line + text.substr(end);
}

// Replaces the first line starting with `prefix`, or inserts `line` after line 1 when none does.
std::string ReplaceOrAddTop(const std::string& text, const std::string& prefix,
                            const std::string& line) {
  if (std::optional<std::string> out = ReplaceLine(text, prefix, line)) return *out;
  size_t end = text.find('\n');
  return text.substr(0, end + 1) + line + "\n" + text.substr(end + 1);
}

// Inserts `lines` (no final newline) as top-level keys after line 1 ("name: …" in every file).
std::string AddTop(const std::string& text, const std::string& lines) {
  size_t end = text.find('\n');
  return text.substr(0, end + 1) + lines + "\n" + text.substr(end + 1);
}

// Inserts `lines` (each ending in '\n') after the first line equal to `anchor`.
std::string InsertAfter(const std::string& text, const std::string& anchor,
                        const std::string& lines) {
  size_t at = text.find("\n" + anchor + "\n");
  if (at == std::string::npos) return text + "\n" + lines;  // still a broken file
  at += anchor.size() + 2;
  return text.substr(0, at) + lines + text.substr(at);
}

// A step added first to the first session ("    steps:" is followed by "      - …" in every file).
std::string AddStep(const std::string& text, const std::string& step) {
  return InsertAfter(text, "    steps:", "      - " + step + "\n");
}

// A key set on the first session (its "  - name: …" line is followed by its keys at 4 spaces).
std::string SetSessionKey(const std::string& text, const std::string& key,
                          const std::string& value) {
  if (std::optional<std::string> out =
          ReplaceLine(text, "    " + key + ":", "    " + key + ": " + value))
    return *out;
  size_t at = text.find("\n  - name: ");
  if (at == std::string::npos) return text + "\n" + key + ": " + value + "\n";
  size_t end = text.find('\n', at + 1);
  return text.substr(0, end + 1) + "    " + key + ": " + value + "\n" + text.substr(end + 1);
}

std::string AddSessions(const std::string& text, const std::string& lines) {
  return InsertAfter(text, "sessions:", lines);
}

// Random bytes, none a newline; the first is a control or high byte, so no name can match.
std::string Binary(Rng& rng, size_t n) {
  std::string out;
  std::uniform_int_distribution<int> byte(0, 255);
  out.push_back(static_cast<char>(std::uniform_int_distribution<int>(0, 1)(rng) ? 0x01 : 0xFE));
  while (out.size() < n) {
    char c = static_cast<char>(byte(rng));
    if (c != '\n') out.push_back(c);
  }
  return out;
}

std::string Nested(const std::string& open, const std::string& middle, const std::string& close,
                   size_t depth) {
  return Rep(open, depth) + middle + Rep(close, depth);
}

const std::vector<std::string>& BadNumbers() {
  static const std::vector<std::string> kNumbers = {"99999999999999999999",
                                                    "1e13",
                                                    "nan",
                                                    "inf",
                                                    "-1",
                                                    "0x10",
                                                    "1/0",
                                                    "9007199254740993",
                                                    "86400001",
                                                    "1..2",
                                                    "--",
                                                    "(1",
                                                    "1)",
                                                    "2 2",
                                                    "\"\"",
                                                    "${nope}"};
  return kNumbers;
}

using Mutation = std::function<std::string(const std::string&, Rng&)>;

std::vector<std::pair<std::string, Mutation>> Mutations() {
  return {
      {"name-long",
       [](auto& t, Rng&) { return ReplaceOrAddTop(t, "name:", "name: " + Rep("a", 64)); }},
      {"name-binary",
       [](auto& t, Rng& r) {
         return ReplaceOrAddTop(t, "name:", "name: " + Binary(r, 1 + r() % 40));
       }},
      {"name-unicode",
       [](auto& t, Rng&) { return ReplaceOrAddTop(t, "name:", "name: названиe-😀"); }},
      {"title-long",
       [](auto& t, Rng&) { return ReplaceOrAddTop(t, "title:", "title: " + Rep("T", 1025)); }},
      {"teaches-long",
       [](auto& t, Rng&) { return ReplaceOrAddTop(t, "teaches:", "teaches: " + Rep("L", 65537)); }},
      {"tags-many",
       [](auto& t, Rng&) {
         std::string tags;
         for (int i = 0; i < 33; ++i) tags += (i ? ", t" : "t") + std::to_string(i);
         return ReplaceOrAddTop(t, "tags:", "tags: [" + tags + "]");
       }},
      {"tag-long",
       [](auto& t, Rng&) { return ReplaceOrAddTop(t, "tags:", "tags: [" + Rep("t", 64) + "]"); }},
      {"params-many",
       [](auto& t, Rng&) {
         std::string params;
         for (int i = 0; i <= 100; ++i) params += (i ? ", p" : "p") + std::to_string(i) + ": 1";
         return ReplaceOrAddTop(t, "params:", "params: {" + params + "}");
       }},
      {"param-long",
       [](auto& t, Rng&) {
         return ReplaceOrAddTop(t, "params:", "params: {p: " + Rep("9", 1025) + "}");
       }},
      {"key-long", [](auto& t, Rng&) { return AddTop(t, Rep("k", 70) + ": 1"); }},
      {"keys-unknown-many",
       [](auto& t, Rng&) {
         std::string keys;
         for (int i = 0; i < 20000; ++i) keys += "k" + std::to_string(100000 + i) + ": v\n";
         keys.pop_back();
         return AddTop(t, keys);
       }},
      {"keys-duplicate-many",
       [](auto& t, Rng&) { return AddTop(t, Rep("title: x\n", 2000) + "title: y"); }},
      {"sleep-bad-number",
       [](auto& t, Rng& r) {
         return AddStep(t, "sleep_ms: " + BadNumbers()[r() % BadNumbers().size()]);
       }},
      {"sleep-over-trial-deadline", [](auto& t, Rng&) { return AddStep(t, "sleep_ms: 120001"); }},
      {"timeout-huge",
       [](auto& t, Rng&) {
         return AddStep(t, "{await_blocked: nobody, timeout_ms: 9000000000000000}");
       }},
      {"retry-huge",
       [](auto& t, Rng&) {
         return SetSessionKey(t, "retry", "{on: [\"40001\"], initial_ms: 100000000000000000000}");
       }},
      {"retry-attempts-huge",
       [](auto& t, Rng&) {
         return SetSessionKey(t, "retry", "{on: [\"40001\"], attempts: 1001}");
       }},
      {"count-parens-30000",
       [](auto& t, Rng&) {
         return SetSessionKey(t, "count", "\"" + Nested("(", "2", ")", 30000) + "\"");
       }},
      {"count-signs-200000",
       [](auto& t, Rng&) { return SetSessionKey(t, "count", "\"" + Rep("-+", 100000) + "2\""); }},
      {"count-parens-33",
       [](auto& t, Rng&) {
         return SetSessionKey(t, "count", "\"" + Nested("(", "2", ")", 33) + "\"");
       }},
      {"count-signs-33",
       [](auto& t, Rng&) { return SetSessionKey(t, "count", "\"" + Rep("- ", 33) + "2\""); }},
      {"count-too-many", [](auto& t, Rng&) { return SetSessionKey(t, "count", "1001"); }},
      {"count-bad-number",
       [](auto& t, Rng& r) {
         return SetSessionKey(t, "count", "\"" + BadNumbers()[r() % BadNumbers().size()] + "\"");
       }},
      {"yaml-deep-flow",
       [](auto& t, Rng& r) {
         return ReplaceOrAddTop(t, "tags:", "tags: " + Nested("[", "", "]", 33 + r() % 5000));
       }},
      {"yaml-deep-mixed",
       [](auto& t, Rng& r) {
         return ReplaceOrAddTop(t, "tags:", "tags: " + Nested("[{a: ", "b", "}]", 17 + r() % 2000));
       }},
      {"yaml-deep-block",
       [](auto& t, Rng& r) {
         std::string lines = "deep:";
         for (size_t i = 1, n = 33 + r() % 200; i <= n; ++i) lines += "\n" + Rep("  ", i) + "k:";
         return AddTop(t, lines + " 1");
       }},
      {"yaml-deep-unclosed",
       [](auto& t, Rng& r) {
         return ReplaceOrAddTop(t, "tags:", "tags: " + Rep("[", 40 + r() % 60000));
       }},
      {"sql-long",
       [](auto& t, Rng&) { return AddStep(t, "sql: SELECT '" + Rep("x", 70000) + "'"); }},
      {"sql-nul", [](auto& t, Rng&) { return AddStep(t, "sql: \"SELECT 1\\0; DROP TABLE x\""); }},
      {"sql-reference-long",
       [](auto& t, Rng&) { return AddStep(t, "sql: SELECT ${" + Rep("a", 50000) + "}"); }},
      {"when-long",
       [](auto& t, Rng&) {
         return AddStep(t, "{sql: SELECT 1, when: \"x == '" + Rep("w", 2000) + "'\"}");
       }},
      {"capture-long",
       [](auto& t, Rng&) {
         return AddStep(t, "{sql: SELECT 1, capture: [" + Rep("c", 64) + "]}");
       }},
      {"steps-many",
       [](auto& t, Rng&) { return InsertAfter(t, "    steps:", Rep("      - begin\n", 501)); }},
      {"sessions-many",
       [](auto& t, Rng&) {
         std::string lines;
         for (int i = 0; i < 101; ++i)
           lines += "  - {name: s" + std::to_string(i) + ", steps: [begin]}\n";
         return AddSessions(t, lines);
       }},
      {"barrier-cycle-3",
       [](auto& t, Rng&) {
         return AddSessions(t,
                            "  - {name: ca, steps: [{barrier: cx}, {barrier: cy}]}\n"
                            "  - {name: cb, steps: [{barrier: cy}, {barrier: cz}]}\n"
                            "  - {name: cc, steps: [{barrier: cz}, {barrier: cx}]}\n");
       }},
      {"barrier-cycle-long",
       [](auto& t, Rng& r) {
         std::string lines;
         size_t n = 4 + r() % 60;
         for (size_t i = 0; i < n; ++i) {
           lines += "  - {name: c" + std::to_string(i) + ", steps: [{barrier: b" +
                    std::to_string(i) + "}, {barrier: b" + std::to_string((i + 1) % n) + "}]}\n";
         }
         return AddSessions(t, lines);
       }},
      {"type-swap",
       [](auto& t, Rng& r) {
         static const std::vector<std::pair<std::string, std::string>> kSwaps = {
             {"name:", "name: [a, b]"}, {"title:", "title: {a: 1}"},  {"teaches:", "teaches: [x]"},
             {"tags:", "tags: {a: b}"}, {"sessions:", "sessions: 5"}, {"expect:", "expect: [1]"}};
         const auto& [prefix, line] = kSwaps[r() % kSwaps.size()];
         return ReplaceOrAddTop(t, prefix, line);
       }},
      {"step-type-swap",
       [](auto& t, Rng& r) {
         static const std::vector<std::string> kSteps = {
             "[a]", "{sql: [1]}", "{barrier: {a: 1}}", "{sleep_ms: [1]}", "{begin: 1, sql: x}",
             "~"};
         return AddStep(t, kSteps[r() % kSteps.size()]);
       }},
      {"alias-bomb",
       [](auto& t, Rng&) {
         std::string lines = "lol0: &l0 [" + Rep("lol, ", 9) + "lol]";
         for (int i = 1; i <= 9; ++i) {
           std::string prev = "*l" + std::to_string(i - 1);
           lines += "\nlol" + std::to_string(i) + ": &l" + std::to_string(i) + " [" +
                    Rep(prev + ", ", 9) + prev + "]";
         }
         std::string out = AddTop(t, lines);
         return ReplaceOrAddTop(out, "tags:", "tags: *l9");
       }},
      {"alias-text-bomb",
       [](auto& t, Rng&) {
         std::string out = AddTop(t, "big: &big '" + Rep("A", 60000) + "'");
         std::string lines;
         for (int i = 0; i < 60; ++i) {
           lines += "  - {name: b" + std::to_string(i) + ", steps: [" + Rep("{sql: *big}, ", 29) +
                    "{sql: *big}]}\n";
         }
         return AddSessions(out, lines);
       }},
      {"alias-cycle", [](auto& t, Rng&) { return ReplaceOrAddTop(t, "tags:", "tags: &c [*c]"); }},
      {"second-document", [](auto& t, Rng&) { return t + "\n---\nname: second\n"; }},
      {"over-size-limit",
       [](auto& t, Rng&) { return t + "\n" + Rep("# padding padding padding padding\n", 8000); }},
  };
}

// Mutations of the engine-specific parts of a scenario (`engines`, engine maps, SQLite and MariaDB
// settings and levels), applied to the catalogue files that list `engines:`.
std::vector<std::pair<std::string, Mutation>> EngineMutations() {
  return {
      {"engines-unknown",
       [](auto& t, Rng&) {
         return ReplaceOrAddTop(t, "engines:", "engines: [postgresql, oracle]");
       }},
      {"engines-duplicate",
       [](auto& t, Rng&) { return ReplaceOrAddTop(t, "engines:", "engines: [sqlite, sqlite]"); }},
      {"engines-empty",
       [](auto& t, Rng&) { return ReplaceOrAddTop(t, "engines:", "engines: []"); }},
      {"engines-mapping",
       [](auto& t, Rng&) { return ReplaceOrAddTop(t, "engines:", "engines: {sqlite: 1}"); }},
      {"engines-many",
       [](auto& t, Rng&) {
         return ReplaceOrAddTop(t, "engines:", "engines: [" + Rep("sqlite, ", 200) + "sqlite]");
       }},
      {"engines-name-long",
       [](auto& t, Rng&) {
         return ReplaceOrAddTop(t, "engines:", "engines: [" + Rep("e", 5000) + "]");
       }},
      {"engine-map-unlisted-engine",
       [](auto& t, Rng&) {
         // An entry for an engine the file does not list (oracle is none of them).
         return AddStep(t,
                        "{sql: {postgresql: SELECT 1, mariadb: SELECT 1, sqlite: SELECT 1, oracle: "
                        "SELECT 1}}");
       }},
      {"engine-map-no-entry",
       [](auto& t, Rng&) {
         // Every engine map needs an entry for each listed engine, or `default`: this one has
         // mariadb's only.
         return AddStep(ReplaceOrAddTop(t, "engines:", "engines: [postgresql, mariadb, sqlite]"),
                        "{sql: {mariadb: SELECT 1}}");
       }},
      {"engine-map-wrong-type",
       [](auto& t, Rng&) {
         return SetSessionKey(t, "settings", "{sqlite: [1, 2], mariadb: [1], default: [x]}");
       }},
      {"engine-map-deep",
       [](auto& t, Rng& r) {
         return AddStep(t, "{sql: " + Nested("{sqlite: ", "x", "}", 33 + r() % 3000) + "}");
       }},
      {"engine-map-sql-long",
       [](auto& t, Rng&) {
         return AddStep(t,
                        "{sql: {default: SELECT 1, sqlite: \"SELECT '" + Rep("x", 70000) + "'\"}}");
       }},
      {"engine-map-alias-bomb",
       [](auto& t, Rng&) {
         std::string out = AddTop(t, "big: &big {default: '" + Rep("A", 60000) + "'}");
         std::string lines;
         for (int i = 0; i < 60; ++i) {
           lines += "  - {name: b" + std::to_string(i) + ", steps: [" + Rep("{sql: *big}, ", 29) +
                    "{sql: *big}]}\n";
         }
         return AddSessions(out, lines);
       }},
      {"isolation-engine-unknown",
       [](auto& t, Rng&) {
         return ReplaceOrAddTop(t, "isolation:", "isolation: {oracle: [serializable]}");
       }},
      {"isolation-level-bad",
       [](auto& t, Rng&) {
         return ReplaceOrAddTop(
             t, "isolation:",
             "isolation: {postgresql: [snapshot], mariadb: [snapshot], sqlite: [snapshot]}");
       }},
      // SQLite's setting values are checked by the engine when it opens the session (a bad
      // busy_timeout or journal_mode is exit 2 there); the loader's limits apply to every engine's
      // settings.
      {"sqlite-setting-value-long",
       [](auto& t, Rng&) {
         return SetSessionKey(
             t, "settings",
             "{sqlite: {busy_timeout: \"" + Rep("9", 1025) + "\"}, default: {search_path: x}}");
       }},
      {"sqlite-setting-name-long",
       [](auto& t, Rng&) {
         return SetSessionKey(t, "settings",
                              "{sqlite: {" + Rep("j", 64) + ": wal}, default: {search_path: x}}");
       }},
      {"settings-many",
       [](auto& t, Rng&) {
         std::string m;
         for (int i = 0; i <= 100; ++i) m += (i ? ", s" : "s") + std::to_string(i) + ": 1";
         return SetSessionKey(t, "settings", "{sqlite: {" + m + "}, default: {" + m + "}}");
       }},
  };
}

}  // namespace

std::vector<FuzzCase> MakeCases(const std::vector<CatalogueFile>& catalogue, uint32_t seed) {
  Rng rng(seed);
  std::vector<FuzzCase> cases;
  std::vector<std::pair<std::string, Mutation>> mutations = Mutations();
  for (size_t f = 0; f < catalogue.size(); ++f) {
    const CatalogueFile& file = catalogue[f];
    // Every mutation on every third file (a different third for each mutation; RACELAB_FUZZ_SEED
    // varies the mutated text, not the choice). A third: each file costs the sanitized driver
    // about 80 ms, and a half (1675 files) was this test's 140 s, CI's longest test.
    for (size_t m = 0; m < mutations.size(); ++m) {
      if ((f + m) % 3 != 0) continue;
      cases.push_back(
          {file.name + "." + mutations[m].first, mutations[m].second(file.text, rng), ""});
    }
    // Over-long --set values, for files that declare params (each param gets the value).
    // Each of the three on a different third of those files.
    if (file.text.find("\nparams:") != std::string::npos) {
      if (f % 3 == 0)
        cases.push_back({file.name + ".set-parens-30000", file.text, Nested("(", "2", ")", 30000)});
      // One argument may have at most 128 KiB (Linux MAX_ARG_STRLEN).
      if (f % 3 == 1)
        cases.push_back({file.name + ".set-signs-100000", file.text, Rep("-+", 50000) + "2"});
      if (f % 3 == 2) cases.push_back({file.name + ".set-digits-2000", file.text, Rep("9", 2000)});
    }
  }
  // Engine-specific YAML: every engine mutation on every third file that lists `engines:`.
  std::vector<std::pair<std::string, Mutation>> engine_mutations = EngineMutations();
  size_t listing = 0;
  for (const CatalogueFile& file : catalogue) {
    if (file.text.find("\nengines:") == std::string::npos) continue;
    ++listing;
    for (size_t m = 0; m < engine_mutations.size(); ++m) {
      if ((listing + m) % 3 != 0) continue;
      cases.push_back({file.name + "." + engine_mutations[m].first,
                       engine_mutations[m].second(file.text, rng), ""});
    }
  }
  // Whole files of random bytes, and a few degenerate ones.
  for (int i = 0; i < 12; ++i)
    cases.push_back({"binary-" + std::to_string(i), Binary(rng, 1 + rng() % 8000), ""});
  cases.push_back({"empty", "", ""});
  cases.push_back({"nul-bytes", std::string(4096, '\0'), ""});
  cases.push_back({"bom-only", "\xEF\xBB\xBF", ""});
  cases.push_back({"only-comments", Rep("# nothing\n", 100), ""});
  cases.push_back({"scalar", "just text", ""});
  cases.push_back({"huge-50mb", "", "", 50u << 20});
  cases.push_back({"just-over-limit", "", "", (256u << 10) + 1});
  return cases;
}

}  // namespace racelab::fuzz
