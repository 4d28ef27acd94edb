#include "harness/compare/merge_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "harness/compare/anomaly_matrix.h"
#include "harness/compare/report_file.h"
#include "harness/compare/report_reader.h"
#include "harness/compare/shard.h"
#include "harness/model/terminal_text.h"
#include "reports/reporter.h"

namespace racelab::compare {
namespace {

int Usage(const std::string& message) {
  std::cerr << "racelab: " << SanitizeForTerminal(message, true) << "\n";
  return 2;
}

void Warn(const std::string& message) {
  std::cerr << "racelab: warning: " << SanitizeForTerminal(message, true) << "\n";
}

std::string ResultKey(const ResultSummary& r) {
  std::string key =
      fmt::format("{} [{}] {}", r.item->scenario, IsolationName(r.item->isolation), r.item->engine);
  for (const auto& [k, v] : r.item->params) key += fmt::format(" {}={}", k, v);
  return key;
}

}  // namespace

std::string MergedVerdictLine(const RunReport& merged, size_t inputs) {
  std::map<Verdict, size_t> n;
  for (const ResultSummary& r : merged.results) ++n[r.verdict];
  // The precedence of a run's verdict over its results: error, fail, interrupted, pass.
  Verdict worst = Verdict::kPass;
  for (Verdict v : {Verdict::kInterrupted, Verdict::kFail, Verdict::kError}) {
    if (n[v] > 0) worst = v;
  }
  std::string counts;
  for (Verdict v : {Verdict::kPass, Verdict::kFail, Verdict::kError, Verdict::kInterrupted}) {
    if (n[v] > 0)
      counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", n[v], VerdictName(v));
  }
  if (!merged.not_run.empty())
    counts += fmt::format("{}{} not run", counts.empty() ? "" : ", ", merged.not_run.size());
  const bool incomplete =
      !merged.not_run.empty() || !merged.run_error.empty() ||
      std::any_of(merged.results.begin(), merged.results.end(),
                  [](const ResultSummary& r) { return !r.interrupted.empty(); });
  return fmt::format(
      "racelab merge: {} result{} joined from {} report{}{}; merged verdict: {} (merge does not "
      "gate: "
      "racelab compare or run --baseline does)",
      merged.results.size(), merged.results.size() == 1 ? "" : "s", inputs, inputs == 1 ? "" : "s",
      counts.empty() ? "" : " (" + counts + ")", incomplete ? "incomplete" : VerdictName(worst));
}

CLI::App* AddMergeSubcommand(CLI::App& app, MergeArgs* args) {
  auto* m = app.add_subcommand("merge",
                               "Join the racelab.json reports of shard jobs (run --shard K/N) into "
                               "one set of reports (every format) and "
                               "say the merged verdict; exit 0 when joined, whatever the verdicts "
                               "(compare or run --baseline gates)");
  m->add_option("reports", args->inputs, "racelab.json files of the shards")->required();
  m->add_option("--out", args->out, "Folder for report files")->capture_default_str();
  m->add_option("--format", args->formats, "Reports: console,json,md,junit,html")
      ->capture_default_str();
  return m;
}

int MergeCommand(const MergeArgs& args) {
  std::vector<std::unique_ptr<Reporter>> reporters;
  std::stringstream formats(args.formats);
  std::set<std::string> seen_formats;
  for (std::string name; std::getline(formats, name, ',');) {
    if (name.empty() || !seen_formats.insert(name).second) continue;
    auto r = MakeReporter(name);
    if (!r.ok()) return Usage("--format: " + r.status().message());
    reporters.push_back(std::move(r.value()));
  }
  if (reporters.empty()) return Usage("--format: no format given");

  std::vector<LoadedRun> runs;
  for (const auto& path : args.inputs) {
    auto run = ReadRunReport(path, args.stop);
    if (int code = ExitCodeIfInterrupted(args.stop); code != 0) return code;
    if (!run.ok()) return Usage(run.status().message());
    runs.push_back(std::move(run.value()));
  }
  // The reference is the first input that ran something: an empty shard started no server, so it
  // has no server version to differ in.
  const auto ran = [](const LoadedRun& r) { return !r.report.results.empty(); };
  const size_t ref = std::find_if(runs.begin(), runs.end(), ran) == runs.end()
                         ? 0
                         : std::find_if(runs.begin(), runs.end(), ran) - runs.begin();
  const RunReport& first = runs[ref].report;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (i == ref) continue;
    const RunReport& r = runs[i].report;
    auto differs = [&](const char* what, const std::string& a, const std::string& b) {
      if (a != b)
        Warn(fmt::format("{} and {}: {} differs ({} vs {}); joined all the same", args.inputs[ref],
                         args.inputs[i], what, a, b));
    };
    differs("racelab version", first.racelab_version, r.racelab_version);
    // Reports of different engines join into one report of several engines (each result keeps its
    // engine, `targets` names every server): only the same engine's server version is compared.
    if (ran(runs[i]) && first.target.engine == r.target.engine) {
      differs("server version", first.target.server_version, r.target.server_version);
    }
    if (first.seed != r.seed) differs("seed", std::to_string(first.seed), std::to_string(r.seed));
    differs("--details", first.details, r.details);
  }

  // Plan order when every input says which shard it ran (distinct K of the same N).
  std::vector<std::optional<Shard>> shards;
  for (const auto& r : runs) shards.push_back(ShardOfCommand(r.report.command));
  std::set<size_t> ks;
  bool planned = std::all_of(shards.begin(), shards.end(), [&](const auto& s) {
    return s.has_value() && s->n == shards.front()->n && ks.insert(s->k).second;
  });
  std::vector<std::pair<size_t, ResultSummary*>> ordered;  // (position, result)
  std::map<std::string, size_t> owner;                     // result key -> input
  for (size_t i = 0; i < runs.size(); ++i) {
    auto& results = runs[i].report.results;
    for (size_t j = 0; j < results.size(); ++j) {
      const std::string key = ResultKey(results[j]);
      if (auto [it, fresh] = owner.emplace(key, i); !fresh) {
        return Usage(fmt::format(
            "{} and {} both hold {}: shards overlap (run each with its own --shard K/N)",
            args.inputs[it->second], args.inputs[i], key));
      }
      const size_t position = planned ? (shards[i]->k - 1) + j * shards[i]->n : ordered.size();
      ordered.emplace_back(position, &results[j]);
    }
  }
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });

  RunReport merged;
  merged.racelab_version = first.racelab_version;
  merged.created_at = first.created_at;
  for (const auto& r : runs) merged.created_at = std::max(merged.created_at, r.report.created_at);
  merged.command = args.command_line;
  merged.seed = first.seed;
  merged.target = first.target;
  // Shards of a run of several engines (or reports of different engines): every engine's server
  // once.
  std::set<std::string> engines_seen, skips_seen;
  for (const auto& r : runs) {
    if (!ran(r)) continue;  // an empty shard started no server
    for (const TargetInfo& t :
         r.report.targets.empty() ? std::vector<TargetInfo>{r.report.target} : r.report.targets) {
      if (!t.engine.empty() && engines_seen.insert(t.engine).second) merged.targets.push_back(t);
    }
    for (const SkippedOnEngine& k : r.report.skipped) {
      if (skips_seen.insert(k.scenario + "\n" + k.engine + "\n" + k.isolation).second)
        merged.skipped.push_back(k);
    }
  }
  if (merged.targets.size() < 2) merged.targets.clear();
  for (const auto& [position, r] : ordered) merged.results.push_back(std::move(*r));
  // What a shard did not run stays not run; --details is the first input's (warned above if they
  // differ).
  merged.details = first.details;
  for (size_t i = 0; i < runs.size(); ++i) {
    for (const auto& n : runs[i].report.not_run) merged.not_run.push_back(n);
    if (!runs[i].report.run_error.empty() && merged.run_error.empty()) {
      merged.run_error = args.inputs[i] + ": " + runs[i].report.run_error;
    }
  }

  const bool need_dir = std::any_of(reporters.begin(), reporters.end(),
                                    [](const auto& r) { return !r->file_name().empty(); });
  if (need_dir) {
    std::error_code ec;
    std::filesystem::create_directories(args.out, ec);
    if (ec)
      return Usage(fmt::format("--out {}: cannot create the folder: {}", args.out, ec.message()));
  }
  AttachAnomalyMatrix(&merged);  // racelab.html's matrix section, when it has anomaly-*
  bool write_failed = false;
  for (const auto& r : reporters) {
    if (r->file_name().empty()) {
      r->Write(merged, std::cout);
      continue;
    }
    const std::filesystem::path p = std::filesystem::path(args.out) / std::string(r->file_name());
    std::ofstream f(p);
    r->Write(merged, f);
    if (!f) {
      std::cerr << "racelab: cannot write " << SanitizeForTerminal(p.string()) << "\n";
      write_failed = true;
    }
  }
  if (write_failed) return 2;
  if (need_dir) {
    std::cerr << fmt::format("racelab: {} results of {} reports joined; reports written to {}/\n",
                             merged.results.size(), runs.size(), SanitizeForTerminal(args.out));
  }
  // Merge joins; `compare` and `run --baseline` judge. The merged verdict is said, not returned.
  std::cout << MergedVerdictLine(merged, runs.size()) << "\n";
  // A shard that ended before its results (run_error: a scenario-file error or an unreachable
  // server) or was interrupted leaves results not run, or run in part: the join is incomplete.
  const auto cut_short =
      std::count_if(merged.results.begin(), merged.results.end(),
                    [](const ResultSummary& r) { return !r.interrupted.empty(); });
  if (!merged.run_error.empty() || !merged.not_run.empty() || cut_short > 0) {
    std::string what;
    if (!merged.not_run.empty() || cut_short == 0)
      what = fmt::format("{} planned results did not run", merged.not_run.size());
    if (cut_short > 0) {
      what += fmt::format("{}{} result{} {} interrupted before {} last trial",
                          what.empty() ? "" : "; ", cut_short, cut_short == 1 ? "" : "s",
                          cut_short == 1 ? "was" : "were", cut_short == 1 ? "its" : "their");
    }
    std::cerr << "racelab: " << what
              << (merged.run_error.empty() ? ""
                                           : " (" + SanitizeForTerminal(merged.run_error) + ")")
              << "\n";
    return 3;
  }
  return 0;
}

}  // namespace racelab::compare
