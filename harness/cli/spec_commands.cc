#include "harness/cli/spec_commands.h"

#include <fmt/format.h>
#include <stdio.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "harness/cli/app.h"
#include "harness/cli/target_notice.h"
#include "harness/engine/engine.h"
#include "harness/engine_registry/open_engine.h"
#include "harness/engine_registry/registry.h"
#include "harness/loader/spec_convert.h"
#include "harness/loader/spec_parser.h"
#include "harness/loader/spec_permutations.h"
#include "harness/model/terminal_text.h"

namespace racelab::cli {
namespace {

bool ReadFile(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *text = s.str();
  return true;
}

// The first line where `a` and `b` differ, 1-based, with both lines; "" when equal.
std::string FirstDifference(const std::string& expected, const std::string& got) {
  std::istringstream ie(expected), ig(got);
  std::string le, lg;
  for (int line = 1;; ++line) {
    bool ee = !std::getline(ie, le), eg = !std::getline(ig, lg);
    if (ee && eg)
      return expected == got ? ""
                             : fmt::format("line {}: the files differ in their last newline", line);
    if (ee || eg || le != lg) {
      return fmt::format("line {}:\n  expected: {}\n  got:      {}", line,
                         ee ? "(end of file)" : le, eg ? "(end of file)" : lg);
    }
  }
}

// A FILE* that writes to `out` through a TerminalLineFilter (harness/model/terminal_text.h): the
// transcript holds the spec's SQL and the server's messages and values, so control characters in
// them are shown escaped, as on every line racelab prints. Line-buffered, so each line appears as
// it ends.
struct TerminalCookie {
  FILE* out = nullptr;
  TerminalLineFilter filter;
};

FILE* OpenEscapingFile(FILE* out, TerminalCookie* cookie) {
  cookie->out = out;
  cookie_io_functions_t io{};
  io.write = [](void* c, const char* buf, size_t size) -> ssize_t {
    auto* t = static_cast<TerminalCookie*>(c);
    const std::string lines = t->filter.Feed(std::string_view(buf, size));
    if (!lines.empty() && (std::fwrite(lines.data(), 1, lines.size(), t->out) != lines.size() ||
                           std::fflush(t->out) != 0)) {
      return -1;
    }
    return static_cast<ssize_t>(size);
  };
  io.close = [](void* c) -> int {
    auto* t = static_cast<TerminalCookie*>(c);
    const std::string rest = t->filter.Finish();
    std::fwrite(rest.data(), 1, rest.size(), t->out);
    return std::fflush(t->out);
  };
  FILE* f = fopencookie(cookie, "w", io);
  if (f != nullptr) setvbuf(f, nullptr, _IOLBF, 0);
  return f;
}

}  // namespace

int ConvertCommand(const ConvertArgs& args) {
  auto spec = LoadSpecFile(args.spec);
  if (!spec.ok()) return UsageError(spec.status().message());
  auto orders = ExpandSpecPermutations(*spec);
  if (!orders.ok()) return UsageError(orders.status().message());
  auto chosen = SelectSpecPermutations(*spec, *orders, args.permutations);
  if (!chosen.ok()) return UsageError(chosen.status().message());
  std::vector<NumberedOrder> selected;
  for (size_t i : *chosen) selected.push_back(NumberedOrder{i + 1, &(*orders)[i]});
  for (const std::string& w : spec->warnings)
    std::cerr << "racelab: " << args.spec << ": " << w << "\n";
  ConvertedScenario c = ConvertSpec(*spec, selected);
  if (args.out_dir.empty()) {
    std::cout << c.yaml;
    return 0;
  }
  std::error_code ec;
  std::filesystem::create_directories(args.out_dir, ec);
  std::string path = (std::filesystem::path(args.out_dir) / (c.name + ".yaml")).string();
  std::ofstream f(path, std::ios::binary);
  if (!(f << c.yaml) || !f.flush()) return UsageError(path + ": cannot write");
  std::cerr << "racelab: wrote " << path << "\n";
  return 0;
}

CLI::App* AddConvertSubcommand(CLI::App& app, ConvertArgs* args) {
  auto* convert = app.add_subcommand(
      "convert",
      "Write the scenario YAML equivalent to a PostgreSQL isolation spec file, its permutations as "
      "order: (as far as the scenario format can say it; the file's comments list what it cannot)");
  convert->add_option("spec", args->spec, "The .spec file")->required();
  convert->add_option(
      "--permutation", args->permutations,
      "Only these permutations: a 1-based number, the permutation as the spec writes it "
      "\"s1a s2a(*) s1c\" (markers included) or its step names alone \"s1a s2a s1c\" "
      "(repeatable); one that names none is exit 2 listing them");
  convert->add_option("--out", args->out_dir,
                      "Folder for the scenario file NAME.yaml (default: stdout)");
  return convert;
}

void AddSpecRunOptions(CLI::App* run, SpecRunArgs* args) {
  run->add_option(
      "--permutation", args->permutations,
      "Spec files and scenarios with order: only these permutations, by 1-based number or steps "
      "(repeatable). A spec's: as the spec writes it, \"s1a s2a(*) s1c\" (markers included), or "
      "its step names alone, \"s1a s2a s1c\"; one that names none is exit 2 listing them, before "
      "any server starts. A scenario's: \"a.begin b.begin(*) …\" as its order param says; applies "
      "to every ordered scenario: stderr says what runs and what is skipped in each (one with no "
      "match is skipped whole); no match anywhere is exit 2");
  run->add_option(
      "--expected", args->expected,
      "Spec files only (a usage error with scenarios): compare the transcript with this file (e.g. "
      "expected/X.out): exit 1 when it differs");
  run->add_option("--step-timeout-ms", args->step_timeout_ms,
                  "Spec files only (a usage error with scenarios): cancel a step that neither ends "
                  "nor blocks "
                  "within this many ms; end the run at twice it")
      ->check(CLI::Range(1L, 86400000L))
      ->capture_default_str();
  run->add_flag("--wait-detail", args->wait_detail,
                "Spec files only (a usage error with scenarios): after each <waiting ...>, what "
                "the step waits "
                "for and who holds it");
}

bool IsSpecRun(const RunArgs& args) {
  return std::any_of(args.selectors.begin(), args.selectors.end(),
                     [](const std::string& s) { return IsSpecPath(s); });
}

int SpecRunCommand(const RunArgs& run, const SpecRunArgs& args, const StopFlag* stop) {
  if (run.selectors.size() != 1) {
    return UsageError("racelab run takes one spec file at a time (and no scenario next to it)");
  }
  if (run.formats != RunArgs{}.formats &&
      run.formats != "transcript") {  // the default, or transcript
    return UsageError(
        "--format: a spec file's run prints isolationtester's transcript only (--format "
        "transcript)");
  }
  // Spec files run on one engine only, PostgreSQL (docs/scenario-format.md): say so before any
  // server starts.
  const EngineDescriptor* spec_engine = IsolationSpecEngine();
  if (spec_engine == nullptr) return UsageError("this racelab has no engine that runs spec files");
  const std::string runs_on_only =
      fmt::format("a spec file runs on {} only", spec_engine->display());
  if (!run.engine.empty() && run.engine != spec_engine->name()) {
    return UsageError(
        fmt::format("--engine {}: {} (isolationtester's format); drop --engine, or convert it "
                    "first (racelab convert X.spec) and run the scenario on {}",
                    run.engine, runs_on_only, run.engine));
  }
  if (run.dsns.size() > 1) {
    return UsageError(fmt::format("--dsn: a spec file runs on one {} server (one --dsn)",
                                  spec_engine->display()));
  }
  if (!run.dsn.empty()) {
    const std::string engine = EngineOfDsn(run.dsn);
    if (!engine.empty() && engine != spec_engine->name()) {
      return UsageError(fmt::format("--dsn names a {} server: {} ({})", EngineDisplayName(engine),
                                    runs_on_only, spec_engine->dsn_forms));
    }
  }
  if (run.out_given) {
    return UsageError(
        "--out: a spec file's run writes no report files; its transcript goes to stdout "
        "(redirect it: > FILE, or compare it with --expected FILE)");
  }
  const std::string& path = run.selectors[0];
  auto spec = LoadSpecFile(path);
  if (!spec.ok()) return UsageError(spec.status().message());
  auto all_orders = ExpandSpecPermutations(*spec);
  if (!all_orders.ok()) return UsageError(all_orders.status().message());
  // --permutation is checked here, before any server starts (a selector that names nothing is exit
  // 2).
  auto chosen = SelectSpecPermutations(*spec, *all_orders, args.permutations);
  if (!chosen.ok()) return UsageError(chosen.status().message());
  std::vector<StepOrder> orders;
  for (size_t i : *chosen) orders.push_back((*all_orders)[i]);
  std::string expected;
  if (!args.expected.empty() && !ReadFile(args.expected, &expected)) {
    return UsageError(args.expected + ": cannot read the expected output");
  }
  if (stop->stop_requested()) return InterruptedExitCode(stop);
  EngineOptions eo;
  eo.engine = std::string(spec_engine->name());
  eo.dsn = run.dsn;
  eo.server_bindir = run.pg_bindir;
  eo.connect_timeout_ms = run.connect_timeout_ms;
  eo.stop = stop;
  // The spec's SQL runs as the generated role, owner of the spec's database, unless --no-confine
  // (then as the --dsn role or the embedded superuser, as isolationtester runs it).
  eo.confine = !run.no_confine;
  eo.allow_superuser = run.allow_superuser;
  if (run.dsn.empty() && spec_engine->reads_libpq_environment) {
    const std::string notice = EmbeddedDespitePgEnvironment(SetPgTargetVariables(std::getenv));
    if (!notice.empty()) std::cerr << notice << "\n";
  }
  if (!run.quiet && run.dsn.empty())
    std::cerr << "racelab: " << EmbeddedStartNote(spec_engine->name()) << "\n";
  auto engine = OpenEngine(eo);
  if (!engine.ok()) {
    std::cerr << "racelab: " << SanitizeForTerminal(engine.status().message(), true) << "\n";
    if (stop->stop_requested()) return InterruptedExitCode(stop);
    return engine.status().code() == StatusCode::kUsage ? 2 : 3;
  }
  SpecRunOptions options;
  options.step_timeout_ms = args.step_timeout_ms;
  options.connect_timeout_ms = run.connect_timeout_ms;
  options.wait_detail = args.wait_detail;
  // Printed as it happens; kept in memory only when it is to be compared.
  std::string transcript;
  Status s;
  if (args.expected.empty()) {
    TerminalCookie cookie;
    FILE* escaped = OpenEscapingFile(stdout, &cookie);
    if (escaped == nullptr) return UsageError("cannot open the transcript's output");
    s = (*engine)->RunIsolationSpec(*spec, orders, options, stop, escaped);
    std::fclose(escaped);
  } else {
    char* buffer = nullptr;
    size_t size = 0;
    FILE* mem = open_memstream(&buffer, &size);
    if (!mem) return UsageError("cannot allocate the transcript buffer");
    s = (*engine)->RunIsolationSpec(*spec, orders, options, stop, mem);
    fclose(mem);
    transcript.assign(buffer, size);
    free(buffer);
    // Compared as the server said it; printed escaped.
    std::cout << SanitizeForTerminal(transcript, /*keep_newlines=*/true) << std::flush;
  }
  Status closed = (*engine)->Close();
  if (stop->stop_requested()) {
    // The transcript may end in the cancelled statement's error: say that it was racelab's, not the
    // spec's.
    std::cerr << "racelab: interrupted — the transcript above is cut short (its last ERROR, if "
                 "any, is the "
                 "cancel of the running step); the spec's database was dropped\n";
    return InterruptedExitCode(stop);
  }
  if (!s.ok()) {
    std::cerr << "racelab: " << SanitizeForTerminal(s.message(), true) << "\n";
    return s.code() == StatusCode::kUsage ? 2 : 3;
  }
  if (!closed.ok()) {
    std::cerr << "racelab: " << SanitizeForTerminal(closed.message(), true) << "\n";
    return 3;
  }
  if (!args.expected.empty()) {
    std::string diff = FirstDifference(expected, transcript);
    if (!diff.empty()) {
      std::cerr << "racelab: the transcript differs from " << args.expected << " at " << diff
                << "\n";
      return 1;
    }
    std::cerr << "racelab: the transcript matches " << args.expected << "\n";
  }
  return 0;
}

}  // namespace racelab::cli
