#include "harness/compare/report_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <type_traits>

#include "harness/compare/report_file.h"
#include "harness/compare/report_view.h"
#include "harness/loader/scenario_loader.h"
#include "harness/model/step_kind.h"

namespace racelab::compare {
namespace {

using Json = nlohmann::json;

std::string Str(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// j[key] as a T, or `fallback` when it is missing, not a number or out of T's range (a hostile
// report's 1e300 must not reach a float-to-integer conversion, which would be undefined).
template <typename T>
T Num(const Json& j, const char* key, T fallback = T{}) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return fallback;
  if constexpr (std::is_floating_point_v<T>) {
    return it->get<T>();
  } else {
    const double d = it->get<double>();
    if (!std::isfinite(d) || d < static_cast<double>(std::numeric_limits<T>::min()) ||
        d >= static_cast<double>(std::numeric_limits<T>::max())) {
      return fallback;
    }
    if (it->is_number_float()) return static_cast<T>(d);
    return it->is_number_unsigned() ? static_cast<T>(it->get<uint64_t>())
                                    : static_cast<T>(it->get<int64_t>());
  }
}

bool Bool(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

const Json& Arr(const Json& j, const char* key) {
  static const Json kEmpty = Json::array();
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : kEmpty;
}

Verdict ParseVerdict(const std::string& v) {
  return v == "fail"          ? Verdict::kFail
         : v == "error"       ? Verdict::kError
         : v == "interrupted" ? Verdict::kInterrupted
                              : Verdict::kPass;
}

StepKind ParseKind(const std::string& k) {
  return StepKindFromReportName(k).value_or(
      StepKind::kSql);  // an unknown name reads as sql, as before
}

Percentiles ReadPercentiles(const Json& j, const char* key) {
  Percentiles p;
  auto it = j.find(key);
  if (it == j.end() || !it->is_object()) return p;
  p.p50 = Num<double>(*it, "p50");
  p.p95 = Num<double>(*it, "p95");
  p.max = Num<double>(*it, "max");
  p.count = Num<size_t>(*it, "count");
  return p;
}

StepEvent ReadEvent(const Json& e) {
  StepEvent ev;
  ev.session = Str(e, "session");
  ev.step = Str(e, "step");
  ev.kind = ParseKind(Str(e, "kind"));
  ev.attempt = Num<int>(e, "attempt", 1);
  ev.sent_us = Num<int64_t>(e, "sent_us");
  ev.completed_us = Num<int64_t>(e, "completed_us");
  ev.skipped = Bool(e, "skipped");
  ev.rows = Num<long>(e, "rows", -1);
  if (auto it = e.find("captured"); it != e.end() && it->is_object()) {
    for (const auto& [k, v] : it->items())
      ev.captured[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  ev.sqlstate = Str(e, "sqlstate");
  ev.error_code = Str(e, "error_code");
  ev.message = Str(e, "message");
  ev.cancelled_by_deadline = Bool(e, "cancelled_by_deadline");
  ev.lock_wait = Bool(e, "lock_wait");
  ev.lock_wait_source = Str(e, "lock_wait_source");
  ev.lock_wait_start_us = Num<int64_t>(e, "lock_wait_start_us");
  ev.lock_wait_us = Num<int64_t>(e, "lock_wait_us");
  ev.lock_wait_first_seen_us = Num<int64_t>(e, "lock_wait_first_seen_us");
  ev.lock_wait_last_seen_us = Num<int64_t>(e, "lock_wait_last_seen_us");
  ev.wait_event = Str(e, "wait_event");
  ev.lock_mode = Str(e, "lock_mode");
  for (const Json& b : Arr(e, "blocked_by"))
    if (b.is_string()) ev.blocked_by.push_back(b.get<std::string>());
  ev.late_us = Num<int64_t>(e, "late_us");
  return ev;
}

TrialVerdict ReadTrial(const Json& t) {
  TrialVerdict v;
  TrialResult& r = v.result;
  r.index = Num<int>(t, "trial");
  v.verdict = ParseVerdict(Str(t, "verdict"));
  r.duration_us = Num<int64_t>(t, "duration_us");
  r.error = Str(t, "error");
  r.deadline_exceeded = Bool(t, "deadline_exceeded");
  for (const Json& c : Arr(t, "checks")) {
    v.checks.push_back(
        {Str(c, "text"), Bool(c, "passed"), Str(c, "detail"), Num<double>(c, "widened_by_ms")});
  }
  for (const Json& s : Arr(t, "sessions")) {
    SessionResult sr;
    sr.label = Str(s, "label");
    sr.role = Str(s, "role");
    sr.committed = Bool(s, "committed");
    sr.won = Bool(s, "won");
    if (s.contains("claim")) sr.claim = Str(s, "claim");
    sr.sqlstate = Str(s, "sqlstate");
    sr.message = Str(s, "message");
    sr.attempts = Num<int>(s, "attempts", 1);
    r.sessions.push_back(std::move(sr));
  }
  for (const Json& b : Arr(t, "barriers")) {
    r.barriers.push_back({Str(b, "barrier"), Num<int>(b, "occurrence", 1),
                          Num<int64_t>(b, "released_us"), Num<int64_t>(b, "skew_us")});
  }
  for (const Json& e : Arr(t, "events")) r.events.push_back(ReadEvent(e));
  for (const Json& f : Arr(t, "finals")) {
    FinalValue fv;
    fv.sql = Str(f, "sql");
    if (auto it = f.find("value"); it != f.end() && it->is_string())
      fv.value = it->get<std::string>();
    fv.error = Str(f, "error");
    r.finals.push_back(std::move(fv));
  }
  return v;
}

TargetInfo ReadTarget(const Json& t) {
  TargetInfo target;
  target.engine = Str(t, "engine");
  target.server_version = Str(t, "server_version");
  target.embedded = Bool(t, "embedded");
  target.dsn_redacted = Str(t, "dsn");
  if (auto s = t.find("settings"); s != t.end() && s->is_object()) {
    for (const auto& [k, v] : s->items())
      target.settings.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
  }
  return target;
}

// The scenario's lesson and tags from its file, when it can still be read.
void FillFromScenarioFile(PlanItem* item) {
  // The path comes from the report: only a regular file is opened (a FIFO named there would block).
  std::error_code ec;
  if (item->file.empty() || !std::filesystem::is_regular_file(item->file, ec)) return;
  auto scenario = LoadScenarioFile(item->file);
  if (!scenario.ok() || scenario->name != item->scenario) return;
  item->teaches = scenario->teaches;
  item->tags = scenario->tags;
}

// The PlanItem of a results[] or not_run[] entry: what the JSON says of it, plus the lesson from
// its file.
Result<std::unique_ptr<PlanItem>> ItemFrom(const Json& r) {
  auto item = std::make_unique<PlanItem>();
  item->scenario = Str(r, "scenario");
  item->title = Str(r, "title");
  item->file = Str(r, "file");
  const auto level = ParseIsolation(Str(r, "isolation"));
  if (!level)
    return Status::Usage(fmt::format("isolation: unknown level '{}'", Str(r, "isolation")));
  item->isolation = *level;
  if (auto p = r.find("params"); p != r.end() && p->is_object()) {
    for (const auto& [k, v] : p->items())
      item->params.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
  }
  item->trials = Num<int>(r, "trials");
  FillFromScenarioFile(item.get());
  return item;
}

}  // namespace

Result<LoadedRun> ReadRunReport(const std::string& path, const StopFlag* stop) {
  auto read = ReadReportJson(path, stop);  // bounded, regular files only, interruptible
  if (!read.ok()) return read.status();
  const Json& doc = *read;
  auto view = ReportViewFromJson(doc, path);  // the field-by-field checks, with their messages
  if (!view.ok()) return view.status();
  LoadedRun run;
  RunReport& rep = run.report;
  rep.racelab_version = Str(doc, "racelab_version");
  rep.created_at = Str(doc, "created_at");
  rep.command = Str(doc, "command");
  rep.seed = Num<uint64_t>(doc, "seed");
  if (auto t = doc.find("target"); t != doc.end() && t->is_object()) rep.target = ReadTarget(*t);
  for (const Json& t : Arr(doc, "targets"))
    rep.targets.push_back(ReadTarget(t));  // a run of several engines
  for (const Json& k : Arr(doc, "skipped")) {
    rep.skipped.push_back(
        {Str(k, "scenario"), Str(k, "engine"), Str(k, "isolation"), Str(k, "reason")});
  }
  rep.details = doc.contains("details") ? Str(doc, "details") : "all";  // schema 1 kept every trial
  rep.run_error = Str(doc, "run_error");
  for (const Json& r : Arr(doc, "results")) {
    auto item = ItemFrom(r);
    if (!item.ok())
      return Status::Usage(
          fmt::format("{}: results[{}]: {}", path, rep.results.size(), item.status().message()));
    (*item)->engine = r.contains("engine")
                          ? Str(r, "engine")
                          : rep.target.engine;  // schema 2 before multi-engine runs
    ResultSummary s;
    s.item = item->get();
    s.trials = (*item)->trials;
    s.verdict = ParseVerdict(Str(r, "verdict"));
    s.error = Str(r, "error");
    s.interrupted = Str(r, "interrupted");
    if (auto w = r.find("winners"); w != r.end() && w->is_object()) {
      for (const auto& [k, v] : w->items()) s.winners[std::atoi(k.c_str())] = v.get<int>();
    }
    if (auto q = r.find("sqlstates"); q != r.end() && q->is_object()) {
      for (const auto& [k, v] : q->items()) s.sqlstates[k] = v.get<int>();
    }
    // `errors` came after `sqlstates`: a report without it counted every error by its SQLSTATE.
    if (auto q = r.find("errors"); q != r.end() && q->is_object()) {
      for (const auto& [k, v] : q->items()) s.errors[k] = v.get<int>();
    } else {
      s.errors = s.sqlstates;
    }
    s.retries = Num<int>(r, "retries");
    s.blocked_ms = ReadPercentiles(r, "blocked_ms");
    s.skew_us = ReadPercentiles(r, "skew_us");
    for (const Json& e : Arr(r, "expectations")) {
      s.expectations.push_back({Str(e, "text"), Num<int>(e, "passed"), Num<int>(e, "failed"),
                                Str(e, "first_failure"), Num<double>(e, "max_widened_by_ms")});
    }
    for (const Json& t : Arr(r, "trial_details")) s.trial_details.push_back(ReadTrial(t));
    const auto& trials = s.trial_details;
    int64_t kept_us = 0;
    for (const auto& t : trials) kept_us += t.result.duration_us;
    s.duration_us = Num<int64_t>(r, "duration_us", kept_us);  // schema 1: every trial was kept
    s.trial_details_omitted = Num<int>(r, "trial_details_omitted",
                                       std::max(0, s.trials - static_cast<int>(trials.size())));
    // representative_trial is a trial number in the JSON, an index into trial_details in the model;
    // schema 1 did not write it: chosen as the evaluator does.
    auto pick = trials.end();
    if (r.contains("representative_trial")) {
      const int number = Num<int>(r, "representative_trial");
      pick = std::find_if(trials.begin(), trials.end(),
                          [&](const TrialVerdict& t) { return t.result.index == number; });
    }
    if (pick == trials.end()) {
      auto bad = std::find_if(trials.begin(), trials.end(),
                              [](const TrialVerdict& t) { return t.verdict != Verdict::kPass; });
      auto wait = std::find_if(trials.begin(), trials.end(), [](const TrialVerdict& t) {
        return std::any_of(t.result.events.begin(), t.result.events.end(),
                           [](const StepEvent& e) { return e.lock_wait; });
      });
      pick = bad != trials.end() ? bad : wait;
    }
    s.representative_trial = pick == trials.end() ? 0 : static_cast<int>(pick - trials.begin());
    run.items.push_back(std::move(item.value()));
    rep.results.push_back(std::move(s));
  }
  for (const Json& n : Arr(doc, "not_run")) {
    auto item = ItemFrom(n);
    if (!item.ok())
      return Status::Usage(
          fmt::format("{}: not_run[{}]: {}", path, rep.not_run.size(), item.status().message()));
    (*item)->engine = n.contains("engine") ? Str(n, "engine") : rep.target.engine;
    rep.not_run.push_back({item->get(), Str(n, "reason")});
    run.items.push_back(std::move(item.value()));
  }
  return run;
}

}  // namespace racelab::compare
