#include "harness/cli/app.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <iostream>
#include <string_view>

#include "harness/cli/bench_command.h"
#include "harness/cli/check_command.h"
#include "harness/cli/command_line.h"
#include "harness/cli/exit_codes.h"
#include "harness/cli/man_page.h"
#include "harness/cli/spec_commands.h"
#include "harness/cli/step_command.h"
#include "harness/compare/anomaly_matrix.h"
#include "harness/compare/compare_command.h"
#include "harness/compare/merge_command.h"
#include "harness/loader/catalogue.h"
#include "harness/model/terminal_text.h"

namespace racelab::cli {
namespace {

constexpr const char* kDescription =
    "racelab reproduces, measures and explains concurrency races against PostgreSQL, "
    "MariaDB/MySQL\n"
    "(InnoDB) and SQLite.\n"
    "It runs each scenario (a YAML file: sessions, steps, barriers, expectations) with one thread "
    "and\n"
    "one connection per session, forces the interleaving with barriers, and checks every trial.\n"
    "Without --dsn it starts a throwaway server (PostgreSQL by default, MariaDB with --engine "
    "mariadb;\n"
    "SQLite: a new database file per trial) and removes it afterwards.\n\n"
    "Examples:\n"
    "  racelab list                                  the scenario catalogue\n"
    "  racelab explain naive-select-then-update      the lesson, steps and expectations\n"
    "  racelab run                                   every scenario, all levels, 20 trials\n"
    "  racelab run guarded-cas-claim --isolation rc --trials 50 --set workers=8\n"
    "  racelab run --tag locks --dsn postgresql://me@localhost/mydb --out reports/\n"
    "  racelab run --engine mariadb                 the scenarios that list mariadb, embedded "
    "MariaDB\n"
    "  racelab run --engine sqlite                  the SQLite scenarios\n\n"
    "Scenario files are code: their SQL runs on the server. racelab runs it as a role it creates "
    "for\n"
    "the run, which owns only the run's schemas (needs CREATEROLE on --dsn; a superuser --dsn is "
    "refused\n"
    "without --allow-superuser); on MariaDB as a user it creates with rights on the run's "
    "databases only\n"
    "(needs CREATE USER and GRANT OPTION on racelab_%.*); --no-confine runs it with the --dsn "
    "user's rights.\n"
    "A password on the command line is visible to other users in `ps` and shell history: prefer\n"
    "PGPASSWORD, ~/.pgpass or a service file (PGSERVICE). racelab never prints a password.";

// An empty --dsn is most often an unset CI variable (--dsn "$DATABASE_URL"): running on a throwaway
// server instead would test something else than the job names.
constexpr const char* kEmptyDsn =
    "--dsn: the connection string is empty (an unset variable?); leave --dsn out for a throwaway "
    "embedded server, or pass --dsn postgresql:// to use libpq's PG* variables";

// CLI11 reads "-1" into a uint64_t as its two's complement and a too-large number as the largest
// value; a seed must be written as it is used.
std::string UnsignedDecimal(const std::string& text) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    return "not a whole number from 0 to 18446744073709551615: " + text;
  return "";
}

}  // namespace

int UsageError(const std::string& message) {
  std::cerr << "racelab: " << SanitizeForTerminal(message, /*keep_newlines=*/true) << "\n";
  return 2;
}

int InterruptedExitCode(const StopFlag* stop) {
  return 128 + (stop->signal_number() != 0 ? stop->signal_number() : SIGINT);
}

int Main(int argc, char** argv) {
  StopFlag stop;
  InstallStopSignalHandler(&stop);

  CLI::App app{kDescription, "racelab"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "racelab " RACELAB_VERSION);

  auto* list =
      app.add_subcommand("list", "List the scenarios in the catalogue (no database needed)");
  std::vector<std::string> list_tags;
  list->add_option("--tag", list_tags, "Only scenarios with one of these tags")
      ->delimiter(',')
      ->allow_extra_args(false);
  std::string scenario_dir;
  constexpr const char* kScenariosHelp =
      "Scenario catalogue folder (default: $RACELAB_SCENARIOS, else the installed catalogue, "
      "<prefix>/share/racelab/scenarios next to this racelab); every file must load: each one that "
      "does not "
      "is reported with its errors, and nothing runs (exit 2)";
  list->add_option("--scenarios", scenario_dir, kScenariosHelp);

  auto* explain =
      app.add_subcommand("explain", "Show a scenario's lesson, sessions, steps and expectations");
  std::string explain_name;
  explain->add_option("scenario", explain_name, "Scenario name or file")->required();
  explain->add_option("--scenarios", scenario_dir, kScenariosHelp);

  auto* clean = app.add_subcommand(
      "clean",
      "Drop racelab schemas left on --dsn by runs that are gone (killed, or cut off from the "
      "server) and the roles of such runs; schemas of runs still connected are kept. Remove "
      "orphaned embedded clusters and the initdb templates of earlier racelab versions");
  std::string clean_dsn;
  bool clean_dry_run = false;
  long clean_timeout_ms = 5000;
  clean->add_option(
      "--dsn", clean_dsn,
      "Server to clean (postgresql:// URI or libpq key=value string, mariadb:// or mysql:// URI, "
      "sqlite:FILE; a password here is visible in ps: prefer PGPASSWORD, ~/.pgpass or a service "
      "file, or MariaDB's option files)");
  clean->add_flag("--dry-run", clean_dry_run, "Only list what would be dropped");
  clean
      ->add_option("--connect-timeout-ms", clean_timeout_ms,
                   "Deadline of the connection attempt, in ms")
      ->check(CLI::Range(1L, 86400000L))
      ->capture_default_str();

  RunArgs args;
  auto* run = app.add_subcommand("run", "Run scenarios and write reports");
  run->add_option("scenarios", args.selectors,
                  "Scenario names, files or folders (default: every scenario in the catalogue); "
                  "every file must "
                  "load: each one that does not is reported with its errors (file:line:col: "
                  "field), and nothing runs "
                  "(exit 2)");
  run->add_option("--scenarios", scenario_dir, kScenariosHelp);
  run->add_option("--tag", args.tags, "Only scenarios with one of these tags (comma-separated)")
      ->delimiter(',')
      ->allow_extra_args(false);
  run->add_option(
      "--isolation", args.isolation,
      "Levels: all, or a comma list of rc, rr, ser or 'read committed', 'repeatable read', "
      "'serializable' (default: each scenario's own list; a scenario that lists its own levels "
      "runs "
      "only at those of them asked for here, and is skipped with a note if none)");
  run->add_option("--trials", args.trials, "Trials per scenario and level")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  // allow_extra_args(false): each --set, --tag and --dsn takes one value, so that the scenario
  // names after it stay positionals (CLI11 lets a vector option take every following word
  // otherwise).
  run->add_option("--set", args.set, "Override a scenario parameter: --set workers=8 (repeatable)")
      ->allow_extra_args(false);
  run->add_option(
      "--engine", args.engine,
      "Engine: postgresql (default), mariadb or sqlite — the embedded throwaway server to start, "
      "or "
      "the one --dsn must name; only scenarios whose engines: list has it run. A comma list "
      "(postgresql,mariadb) or all runs the plan on each engine in turn, into one report that puts "
      "them side by side; each --dsn then serves the engine it names, the others start embedded");
  run->add_option(
         "--dsn", args.dsns,
         "An existing server: postgresql:// URI or libpq key=value string (racelab works only in "
         "schemas "
         "it creates and drops), mariadb:// or mysql:// URI (only in databases it creates and "
         "drops), or "
         "sqlite:FILE (each trial works on a copy; the file is never written). Default: an "
         "embedded "
         "throwaway server. A password here is visible in ps: prefer PGPASSWORD, ~/.pgpass or a "
         "service file. Repeat it for a run of several engines, one server per engine "
         "(--dsn postgresql://… --dsn mariadb://…; without --engine the run is on those engines)")
      ->allow_extra_args(false);
  run->add_flag(
      "--allow-superuser", args.allow_superuser,
      "Accept a --dsn that connects as a superuser (scenario SQL still runs as a generated role)");
  run->add_flag("--no-confine", args.no_confine,
                "Run scenario SQL as the --dsn role/user itself, with all its rights, instead of a "
                "generated one "
                "that owns only racelab's schemas or databases (scenario files are code: use only "
                "with files you "
                "trust)");
  run->add_option("--pg-bindir", args.pg_bindir, "PostgreSQL binaries for the embedded cluster");
  run->add_option("--out", args.out,
                  "Folder for report files (not for a spec file: its transcript goes to stdout)")
      ->capture_default_str();
  run->add_option("--format", args.formats,
                  "Reports: console,json,md,md-summary,junit,html; transcript for a .spec file "
                  "(isolationtester's output)")
      ->capture_default_str();
  run->add_option(
         "--details", args.details,
         "Trials kept in the reports: none (aggregates only), failed (failing trials, at most 10 "
         "per result, "
         "plus one representative trial per result), all (every trial; memory grows with --trials)")
      ->check(CLI::IsMember({"none", "failed", "all"}))
      ->capture_default_str();
  run->add_option("--seed", args.seed,
                  "Seed for the worker start order (0 to 18446744073709551615)")
      ->check(UnsignedDecimal)
      ->capture_default_str();
  run->add_option(
         "--statement-timeout-ms", args.statement_timeout_ms,
         "Deadline of one statement or wait, in ms; then it is cancelled and the trial is an error")
      ->check(CLI::Range(1L, 86400000L))
      ->capture_default_str();
  run->add_option("--trial-timeout-ms", args.trial_timeout_ms, "Deadline of one trial, in ms")
      ->check(CLI::Range(1L, 86400000L))
      ->capture_default_str();
  run->add_option("--connect-timeout-ms", args.connect_timeout_ms,
                  "Deadline of one connection attempt, in ms")
      ->check(CLI::Range(1L, 86400000L))
      ->capture_default_str();
  run->add_flag("--quiet,-q", args.quiet, "No progress lines on stderr");
  compare::AddRunGateOptions(run, &args.gate);

  SpecRunArgs spec_run_args;
  AddSpecRunOptions(run, &spec_run_args);
  ConvertArgs convert_args;
  auto* convert = AddConvertSubcommand(app, &convert_args);

  compare::CompareArgs compare_args;
  auto* compare = compare::AddCompareSubcommand(app, &compare_args);
  compare::MergeArgs merge_args;
  auto* merge = compare::AddMergeSubcommand(app, &merge_args);
  compare::MatrixArgs matrix_args;
  auto* matrix = compare::AddMatrixSubcommand(app, &matrix_args);
  CheckArgs check_args;
  auto* check = AddCheckSubcommand(app, &check_args);
  BenchArgs bench_args;
  auto* bench = AddBenchSubcommand(app, &bench_args, &scenario_dir);
  StepArgs step_args;
  auto* step = AddStepSubcommand(app, &step_args);

  app.footer(ExitCodeTable());
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    const std::string own = sub->get_footer();  // a subcommand's own lesson (bench) comes first
    sub->footer((own.empty() ? "" : own + "\n\n") + ExitCodesOf(sub->get_name()));
  }
  step->footer(std::string(StepHelpText()) + "\n\n" + ExitCodesOf("step"));

  // Hidden: the man page, written from this App (harness/cli/man_page.h); the build makes
  // build/racelab.1.
  if (argc == 2 && std::string_view(argv[1]) == "--help-man") {
    std::cout << ManPage(app, RACELAB_VERSION);
    return 0;
  }
  // CLI11 would take the word after "--dsn=" as its value (--dsn="$UNSET" --tag locks: the DSN
  // "--tag").
  if (std::any_of(argv + 1, argv + argc,
                  [](const char* a) { return std::string_view(a) == "--dsn="; })) {
    return UsageError(kEmptyDsn);
  }
  if (int i = StrayDsnArgument(argc, argv); i > 0) {
    return UsageError(
        fmt::format("argument {} looks like a connection string (not shown: it may contain a "
                    "password); pass it with --dsn "
                    "to run or clean",
                    i));
  }
  if (argc >= 2 && argv[1][0] != '-' &&
      app.get_subcommands([&](CLI::App* sub) { return sub->get_name() == argv[1]; }).empty()) {
    return UsageError(
        "unknown command '" + SanitizeForTerminal(argv[1]) +
        "' (expected list, explain, run, bench, step, convert, compare, merge, matrix, check "
        "or clean; "
        "see racelab --help)");
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // CLI11 echoes arguments ("The following arguments were not expected: …"): redacted first.
    std::cerr << "racelab: " << SanitizeForTerminal(RedactArguments(e.what(), argc, argv))
              << "\nRun 'racelab --help' for usage.\n";
    return 2;
  }
  if ((run->count("--dsn") > 0 &&
       std::find(args.dsns.begin(), args.dsns.end(), "") != args.dsns.end()) ||
      (clean->count("--dsn") > 0 && clean_dsn.empty())) {
    return UsageError(kEmptyDsn);
  }
  args.dsn = args.dsns.empty() ? "" : args.dsns.front();
  if (run->parsed() && run->count("--isolation") > 0 &&
      args.isolation.find_first_not_of(" ,") == std::string::npos) {
    return UsageError(
        "--isolation: no level given (expected all, or a comma list of ru, rc, rr, ser, read "
        "uncommitted, read committed, repeatable read, serializable)");
  }
  SetScenarioDirFlag(scenario_dir);
  if (list->parsed()) return ListCommand(list_tags, &stop);
  if (convert->parsed()) return ConvertCommand(convert_args);
  if (explain->parsed()) return ExplainCommand(explain_name, &stop);
  if (clean->parsed()) return CleanCommand(clean_dsn, clean_timeout_ms, clean_dry_run);
  if (step->parsed()) return StepCommand(step_args, &stop);
  check_args.stop = &stop;
  if (check->parsed()) return CheckCommand(check_args);
  compare_args.stop = matrix_args.stop = merge_args.stop =
      &stop;  // reports as input: interruptible
  if (compare->parsed()) return compare::CompareCommand(compare_args);
  if (bench->parsed()) {
    bench_args.run.command_line = CommandLine(argc, argv);
    if (bench->count("--dsn") > 0 &&
        std::find(bench_args.run.dsns.begin(), bench_args.run.dsns.end(), "") !=
            bench_args.run.dsns.end())
      return UsageError(kEmptyDsn);
    return BenchCommand(bench_args, &stop);
  }
  if (matrix->parsed()) return compare::MatrixCommand(matrix_args);
  merge_args.command_line = CommandLine(argc, argv);
  if (merge->parsed()) return compare::MergeCommand(merge_args);
  args.command_line = CommandLine(argc, argv);
  args.out_given = run->count("--out") > 0;
  if (IsSpecRun(args))
    return SpecRunCommand(args, spec_run_args, &stop);  // PostgreSQL isolation spec files
  if (!spec_run_args.expected.empty()) {
    return UsageError(
        "--expected compares a spec file's transcript (racelab run X.spec --expected X.out); a "
        "scenario's run has no transcript to compare: its expectations are its expect: section");
  }
  // Options of a spec file's run only: refused rather than ignored on a scenario run (each names
  // the scenario's own equivalent: docs/scenario-format.md "What isolationtester's users ask for").
  if (run->count("--step-timeout-ms") > 0) {
    return UsageError(
        "--step-timeout-ms bounds a spec file's steps (racelab run X.spec --step-timeout-ms MS); a "
        "scenario's step is bounded by its timeout_ms: (docs/scenario-format.md, Steps), else "
        "--statement-timeout-ms");
  }
  if (run->count("--wait-detail") > 0) {
    return UsageError(
        "--wait-detail adds lock-wait lines to a spec file's transcript (racelab run X.spec "
        "--wait-detail); a scenario's reports always show what each waiting step waits for "
        "(blocked by, wait event)");
  }
  args.permutations = spec_run_args.permutations;  // of ordered scenarios (`order:`)
  return RunCommand(args, &stop);
}

}  // namespace racelab::cli
