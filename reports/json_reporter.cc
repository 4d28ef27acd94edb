// "json" reporter: racelab.json, the contract format of docs/report-schema.md.
//
// Every field is documented in docs/report-schema.md. Keys keep the order written here
// (ordered_json) so the file reads top-down like the schema. Omission rule, applied everywhere:
// numbers and booleans are always present; optional strings, arrays and objects are omitted when
// empty; "rows" is omitted when not applicable; "claim" when the session claimed nothing. Contract
// collections ("winners", "sqlstates", "expectations", "trial_details", …) are always present,
// possibly empty. All escaping is nlohmann-json's; bytes that are not valid UTF-8 are replaced with
// U+FFFD.

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <tuple>

#include "harness/model/isolation.h"
#include "reports/format_util.h"
#include "reports/reporters.h"

namespace racelab::internal {
namespace {

using Json = nlohmann::ordered_json;

constexpr int kSchemaVersion = 2;

// Sets obj[key] = value unless value is empty.
void PutIfSet(Json& obj, const char* key, const std::string& value) {
  if (!value.empty()) obj[key] = value;
}

Json PairsToObject(const std::vector<std::pair<std::string, std::string>>& pairs) {
  Json obj = Json::object();
  for (const auto& [key, value] : pairs) obj[key] = value;
  return obj;
}

Json MsPercentiles(const Percentiles& p) {
  return Json{{"p50", RoundMs(p.p50)},
              {"p95", RoundMs(p.p95)},
              {"max", RoundMs(p.max)},
              {"count", p.count}};
}

Json UsPercentiles(const Percentiles& p) {
  return Json{{"p50", RoundUs(p.p50)},
              {"p95", RoundUs(p.p95)},
              {"max", RoundUs(p.max)},
              {"count", p.count}};
}

Json EventJson(const StepEvent& e) {
  Json j = {
      {"session", e.session}, {"step", e.step},       {"kind", std::string(StepKindName(e.kind))},
      {"attempt", e.attempt}, {"sent_us", e.sent_us}, {"completed_us", e.completed_us},
      {"skipped", e.skipped}};
  if (e.rows >= 0) j["rows"] = e.rows;
  if (!e.captured.empty()) {
    Json captured = Json::object();
    for (const auto& [column, value] : e.captured) captured[column] = value;
    j["captured"] = std::move(captured);
  }
  PutIfSet(j, "sqlstate", e.sqlstate);
  PutIfSet(j, "error_code", e.error_code);
  PutIfSet(j, "message", e.message);
  j["cancelled_by_deadline"] = e.cancelled_by_deadline;
  j["lock_wait"] = e.lock_wait;
  if (e.lock_wait) {
    j["lock_wait_source"] = e.lock_wait_source;
    j["lock_wait_start_us"] = e.lock_wait_start_us;
    j["lock_wait_us"] = e.lock_wait_us;
    if (e.lock_wait_last_seen_us > 0) {
      j["lock_wait_first_seen_us"] = e.lock_wait_first_seen_us;
      j["lock_wait_last_seen_us"] = e.lock_wait_last_seen_us;
    }
  }
  PutIfSet(j, "wait_event", e.wait_event);
  PutIfSet(j, "lock_mode", e.lock_mode);
  if (!e.blocked_by.empty()) j["blocked_by"] = e.blocked_by;
  j["blocked_ms"] = RoundMs(e.blocked_ms());
  j["late_us"] = e.late_us;
  return j;
}

Json TrialJson(const TrialVerdict& t) {
  const TrialResult& r = t.result;
  Json j = {
      {"trial", r.index}, {"verdict", VerdictName(t.verdict)}, {"duration_us", r.duration_us}};
  PutIfSet(j, "error", r.error);
  j["deadline_exceeded"] = r.deadline_exceeded;

  Json checks = Json::array();
  for (const Check& c : t.checks) {
    Json cj = {{"text", c.text}, {"passed", c.passed}};
    PutIfSet(cj, "detail", c.detail);
    cj["widened_by_ms"] = RoundMs(c.widened_by_ms);
    checks.push_back(std::move(cj));
  }
  j["checks"] = std::move(checks);

  Json sessions = Json::array();
  for (const SessionResult& s : r.sessions) {
    Json sj = {{"label", s.label}, {"role", s.role}, {"committed", s.committed}, {"won", s.won}};
    if (s.claim.has_value()) sj["claim"] = *s.claim;
    PutIfSet(sj, "sqlstate", s.sqlstate);
    PutIfSet(sj, "error_code", s.error_code);
    PutIfSet(sj, "message", s.message);
    sj["attempts"] = s.attempts;
    if (s.program) {  // an exec session's program (docs/race-your-own-code.md)
      const SessionResult::Program& p = *s.program;
      Json pj = {{"ended", p.ended}};
      if (p.exit_code >= 0) pj["exit_code"] = p.exit_code;
      for (auto [name, tail, truncated, bytes] :
           {std::tuple{"stdout", &p.stdout_tail, p.stdout_truncated, p.stdout_bytes},
            std::tuple{"stderr", &p.stderr_tail, p.stderr_truncated, p.stderr_bytes}}) {
        Json o = {{"tail", *tail}, {"bytes", bytes}};
        if (truncated) o["truncated"] = true;
        pj[name] = std::move(o);
      }
      sj["program"] = std::move(pj);
    }
    sessions.push_back(std::move(sj));
  }
  j["sessions"] = std::move(sessions);

  Json barriers = Json::array();
  for (const BarrierRelease& b : r.barriers) {
    Json bj = {{"barrier", b.barrier},
               {"occurrence", b.occurrence},
               {"released_us", b.released_us},
               {"skew_us", b.skew_us}};
    if (!b.simultaneous) bj["not_simultaneous"] = b.not_simultaneous;
    barriers.push_back(std::move(bj));
  }
  j["barriers"] = std::move(barriers);

  Json events = Json::array();
  for (const StepEvent& e : r.events) events.push_back(EventJson(e));
  j["events"] = std::move(events);

  Json finals = Json::array();
  for (const FinalValue& f : r.finals) {
    Json fj = {{"sql", f.sql}};
    fj["value"] = f.value.has_value() ? Json(*f.value) : Json(nullptr);
    PutIfSet(fj, "error", f.error);
    finals.push_back(std::move(fj));
  }
  j["finals"] = std::move(finals);
  return j;
}

Json ResultJson(const ResultSummary& r) {
  const PlanItem& item = ItemOf(r);
  Json j = {{"scenario", item.scenario},
            {"title", item.title},
            {"file", item.file},
            {"engine", item.engine},
            {"isolation", std::string(IsolationName(item.isolation))},
            {"params", PairsToObject(item.params)},
            {"trials", r.trials},
            {"verdict", VerdictName(r.verdict)}};
  PutIfSet(j, "error", r.error);
  PutIfSet(j, "interrupted", r.interrupted);

  Json winners = Json::object();
  for (const auto& [n, trials] : r.winners) winners[std::to_string(n)] = trials;
  j["winners"] = std::move(winners);
  Json sqlstates = Json::object();
  for (const auto& [code, count] : r.sqlstates) sqlstates[code] = count;
  j["sqlstates"] = std::move(sqlstates);
  Json errors =
      Json::object();  // by SQLSTATE, or the engine's code where it is generic (error_key.h)
  for (const auto& [name, count] : r.errors) errors[name] = count;
  j["errors"] = std::move(errors);
  j["retries"] = r.retries;
  j["blocked_ms"] = MsPercentiles(r.blocked_ms);
  j["skew_us"] = UsPercentiles(r.skew_us);
  if (r.releases_not_simultaneous > 0) j["releases_not_simultaneous"] = r.releases_not_simultaneous;

  Json expectations = Json::array();
  for (const ExpectationTally& e : r.expectations) {
    Json ej = {{"text", e.text}, {"passed", e.passed}, {"failed", e.failed}};
    if (!e.first_failure.empty()) ej["first_failure"] = e.first_failure;
    if (e.min_fraction) ej["min_fraction"] = *e.min_fraction;
    ej["max_widened_by_ms"] = RoundMs(e.max_widened_by_ms);
    expectations.push_back(std::move(ej));
  }
  j["expectations"] = std::move(expectations);
  if (!item.expect.one_of.empty()) {  // one_of: per alternative, the trials in which it held
    Json alts = Json::array();
    for (size_t i = 0; i < item.expect.one_of.size(); ++i) {
      const PlannedAlternative& alt = item.expect.one_of[i];
      Json aj = {{"name", alt.name},
                 {"trials", i < r.alternative_trials.size() ? r.alternative_trials[i] : 0}};
      if (alt.min_fraction) aj["min_fraction"] = *alt.min_fraction;
      alts.push_back(std::move(aj));
    }
    j["alternatives"] = std::move(alts);
  }

  j["duration_us"] = r.duration_us;
  if (const TrialVerdict* representative = RepresentativeTrial(r); representative != nullptr) {
    j["representative_trial"] = representative->result.index;
  }
  j["trial_details_omitted"] = r.trial_details_omitted;
  Json details = Json::array();
  const std::vector<PlannedAlternative>& alternatives = item.expect.one_of;
  for (const TrialVerdict& t : r.trial_details) {
    Json tj = TrialJson(t);
    if (!alternatives.empty()) {  // one_of: which alternatives held (the first is "alternative")
      Json held = Json::array();
      for (int i : t.alternatives_held)
        held.push_back(alternatives.at(static_cast<size_t>(i)).name);
      if (!held.empty()) tj["alternative"] = held.front();
      tj["alternatives_held"] = std::move(held);
    }
    details.push_back(std::move(tj));
  }
  j["trial_details"] = std::move(details);
  return j;
}

Json TargetJson(const TargetInfo& t) {
  Json target = {
      {"engine", t.engine}, {"server_version", t.server_version}, {"embedded", t.embedded}};
  if (!t.embedded) PutIfSet(target, "dsn", t.dsn_redacted);
  target["settings"] = PairsToObject(t.settings);
  return target;
}

Json ReportJson(const RunReport& report) {
  Json target = TargetJson(report.target);

  const VerdictCounts counts = CountVerdicts(report.results);
  Json results = Json::array();
  for (const ResultSummary& r : report.results) results.push_back(ResultJson(r));

  Json j = {{"schema_version", kSchemaVersion},
            {"racelab_version", report.racelab_version},
            {"created_at", report.created_at},
            {"command", report.command},
            {"seed", report.seed},
            {"details", report.details},
            {"target", std::move(target)}};
  if (!report.targets.empty()) {  // a run of several engines: each one's server, in run order
    Json targets = Json::array();
    for (const TargetInfo& t : report.targets) targets.push_back(TargetJson(t));
    j["targets"] = std::move(targets);
  }
  j["summary"] = {{"results", counts.results},
                  {"pass", counts.pass},
                  {"fail", counts.fail},
                  {"error", counts.error},
                  {"interrupted", counts.interrupted},
                  {"not_run", report.not_run.size()}};
  PutIfSet(j, "run_error", report.run_error);
  j["results"] = std::move(results);
  if (!report.not_run.empty()) {
    Json not_run = Json::array();
    for (const NotRunResult& n : report.not_run) {
      const PlanItem& item = ItemOf(n);
      not_run.push_back({{"scenario", item.scenario},
                         {"engine", item.engine},
                         {"isolation", std::string(IsolationName(item.isolation))},
                         {"params", PairsToObject(item.params)},
                         {"reason", n.reason}});
    }
    j["not_run"] = std::move(not_run);
  }
  if (!report.skipped.empty()) {
    Json skipped = Json::array();
    for (const SkippedOnEngine& k : report.skipped) {
      Json kj = {{"scenario", k.scenario}, {"engine", k.engine}};
      PutIfSet(kj, "isolation", k.isolation);
      kj["reason"] = k.reason;
      skipped.push_back(std::move(kj));
    }
    j["skipped"] = std::move(skipped);
  }
  return j;
}

class JsonReporter : public Reporter {
 public:
  std::string_view name() const override { return "json"; }
  std::string_view file_name() const override { return "racelab.json"; }
  void Write(const RunReport& report, std::ostream& out) const override {
    out << ReportJson(report).dump(2, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace)
        << '\n';
  }
};

}  // namespace

std::unique_ptr<Reporter> MakeJsonReporter() { return std::make_unique<JsonReporter>(); }

}  // namespace racelab::internal
