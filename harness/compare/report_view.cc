#include "harness/compare/report_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "harness/compare/report_file.h"

namespace racelab::compare {
namespace {

using Json = nlohmann::json;

// Reads typed fields and remembers the first problem, with its place ("results[2].winners").
class Reader {
 public:
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  void Fail(const std::string& where, const std::string& what) {
    if (error_.empty()) error_ = fmt::format("{}: {}", where, what);
  }

  // obj[key] when present (nullptr otherwise); a wrong type of `obj` itself is reported by callers.
  const Json* Find(const Json& obj, const char* key) {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }

  std::string String(const Json& obj, const char* key, const std::string& where, bool required) {
    const Json* v = Find(obj, key);
    if (v == nullptr) {
      if (required) Fail(where + "." + key, "missing (expected a string)");
      return "";
    }
    if (!v->is_string()) {
      Fail(where + "." + key, "expected a string");
      return "";
    }
    return v->get<std::string>();
  }

  int64_t Integer(const Json& obj, const char* key, const std::string& where, bool required) {
    const Json* v = Find(obj, key);
    if (v == nullptr) {
      if (required) Fail(where + "." + key, "missing (expected an integer)");
      return 0;
    }
    return Checked(*v, where + "." + key, std::numeric_limits<int64_t>::min(),
                   std::numeric_limits<int64_t>::max());
  }

  // obj[key] as a count: an integer from 0 to kMaxReportCount (the schema's range).
  int64_t Count(const Json& obj, const char* key, const std::string& where, bool required) {
    const Json* v = Find(obj, key);
    if (v == nullptr) {
      if (required) Fail(where + "." + key, "missing (expected an integer)");
      return 0;
    }
    return Checked(*v, where + "." + key, 0, kMaxReportCount);
  }

  // `v` as an integer within [lo, hi], else a failure at `here` naming the range.
  int64_t Checked(const Json& v, const std::string& here, int64_t lo, int64_t hi) {
    if (!v.is_number_integer() && !v.is_number_unsigned()) {
      Fail(here, "expected an integer");
      return 0;
    }
    const bool above = v.is_number_unsigned() ? v.get<uint64_t>() > static_cast<uint64_t>(hi)
                                              : v.get<int64_t>() > hi;
    const bool below = !v.is_number_unsigned() && v.get<int64_t>() < lo;
    if (above || below) {
      Fail(here, fmt::format("{} is out of range (expected {} to {})", v.dump(), lo, hi));
      return 0;
    }
    return v.get<int64_t>();
  }

  double Number(const Json& obj, const char* key, const std::string& where) {
    const Json* v = Find(obj, key);
    if (v == nullptr) return 0;
    if (!v->is_number()) {
      Fail(where + "." + key, "expected a number");
      return 0;
    }
    return v->get<double>();
  }

  std::map<std::string, int64_t> Counts(const Json& obj, const char* key,
                                        const std::string& where) {
    std::map<std::string, int64_t> out;
    const Json* v = Find(obj, key);
    if (v == nullptr) return out;
    if (!v->is_object()) {
      Fail(where + "." + key, "expected an object of integers");
      return out;
    }
    for (const auto& [k, n] : v->items()) {
      out[k] = Checked(n, fmt::format("{}.{}.{}", where, key, k), 0, kMaxReportCount);
      if (!ok()) return out;
    }
    return out;
  }

  PercentileView Percentiles(const Json& obj, const char* key, const std::string& where) {
    PercentileView p;
    const Json* v = Find(obj, key);
    if (v == nullptr) return p;
    const std::string here = where + "." + key;
    if (!v->is_object()) {
      Fail(here, "expected an object (p50, p95, max, count)");
      return p;
    }
    p.p50 = Number(*v, "p50", here);
    p.p95 = Number(*v, "p95", here);
    p.max = Number(*v, "max", here);
    p.count = Count(*v, "count", here, false);
    return p;
  }

 private:
  std::string error_;
};

// The outcome categories of one trial (ResultView::trial_outcomes): for each role and SQL step, the
// rows of each of its sessions' last attempt at that step, sorted ("worker/claim rows 0,1"); and
// each final value ("final #1 = 2"). Skipped steps and steps without a row count (rows omitted) are
// left out.
std::vector<std::string> OutcomesOfTrial(const Json& trial, const std::string& where, Reader& r,
                                         std::map<std::string, std::string>* final_sql) {
  std::map<std::string, std::string> role_of;
  if (const Json* sessions = r.Find(trial, "sessions");
      sessions != nullptr && sessions->is_array()) {
    for (const Json& s : *sessions) {
      if (s.is_object())
        role_of[r.String(s, "label", where + ".sessions[]", false)] =
            r.String(s, "role", where, false);
    }
  }
  // (role/step) -> (session label -> (attempt, rows))
  std::map<std::string, std::map<std::string, std::pair<int64_t, int64_t>>> rows;
  if (const Json* events = r.Find(trial, "events"); events != nullptr) {
    if (!events->is_array()) {
      r.Fail(where + ".events", "expected an array");
      return {};
    }
    for (size_t i = 0; i < events->size(); ++i) {
      const Json& e = (*events)[i];
      const std::string here = fmt::format("{}.events[{}]", where, i);
      if (!e.is_object()) {
        r.Fail(here, "expected an object");
        return {};
      }
      if (r.Find(e, "rows") == nullptr) continue;
      if (const Json* skipped = r.Find(e, "skipped");
          skipped != nullptr && skipped->is_boolean() && skipped->get<bool>())
        continue;
      const std::string label = r.String(e, "session", here, true);
      const std::string role = role_of.count(label) ? role_of[label] : label;
      const int64_t attempt = r.Integer(e, "attempt", here, false);
      const int64_t n = r.Integer(e, "rows", here, true);
      auto& slot = rows[role + "/" + r.String(e, "step", here, true)][label];
      if (attempt >= slot.first) slot = {attempt, n};
    }
  }
  std::vector<std::string> out;
  for (const auto& [step, by_session] : rows) {
    std::vector<int64_t> values;
    for (const auto& [label, v] : by_session) values.push_back(v.second);
    std::sort(values.begin(), values.end());
    std::string text;
    for (int64_t v : values) text += (text.empty() ? "" : ",") + std::to_string(v);
    out.push_back(step + " rows " + text);
  }
  if (const Json* finals = r.Find(trial, "finals"); finals != nullptr && finals->is_array()) {
    for (size_t i = 0; i < finals->size(); ++i) {
      const Json& f = (*finals)[i];
      if (!f.is_object()) continue;
      const std::string name = fmt::format("final #{}", i + 1);
      (*final_sql)[name] = r.String(f, "sql", where, false);
      const Json* value = r.Find(f, "value");
      out.push_back(name + " = " +
                    (value == nullptr || value->is_null() ? "NULL"
                     : value->is_string()                 ? value->get<std::string>()
                                                          : value->dump()));
    }
  }
  return out;
}

ResultView ReadResult(const Json& j, const std::string& where, const std::string& engine,
                      Reader& r) {
  ResultView v;
  if (!j.is_object()) {
    r.Fail(where, "expected an object");
    return v;
  }
  v.scenario = r.String(j, "scenario", where, true);
  v.engine = r.Find(j, "engine") != nullptr ? r.String(j, "engine", where, true) : engine;
  v.isolation = r.String(j, "isolation", where, true);
  if (const Json* params = r.Find(j, "params"); params != nullptr) {
    if (!params->is_object())
      r.Fail(where + ".params", "expected an object of strings");
    else {
      for (const auto& [k, value] : params->items()) {
        v.params.emplace_back(k, value.is_string() ? value.get<std::string>() : value.dump());
      }
    }
  }
  v.trials = r.Count(j, "trials", where, true);
  v.verdict = r.String(j, "verdict", where, true);
  if (r.ok() && v.verdict != "pass" && v.verdict != "fail" && v.verdict != "error" &&
      v.verdict != "interrupted") {
    r.Fail(where + ".verdict",
           fmt::format("expected \"pass\", \"fail\", \"error\" or \"interrupted\", not \"{}\"",
                       v.verdict));
  }
  v.error = r.String(j, "error", where, false);
  v.interrupted = r.String(j, "interrupted", where, false);
  v.winners = r.Counts(j, "winners", where);
  for (const auto& [k, n] : v.winners) {
    if (r.ok() && n > v.trials) {
      r.Fail(fmt::format("{}.winners.{}", where, k),
             fmt::format("{} is more than the result's {} trials", n, v.trials));
    }
  }
  v.sqlstates = r.Counts(j, "sqlstates", where);
  if (r.Find(j, "errors") != nullptr) v.errors = r.Counts(j, "errors", where);
  v.retries = r.Count(j, "retries", where, false);
  v.blocked_ms = r.Percentiles(j, "blocked_ms", where);
  v.skew_us = r.Percentiles(j, "skew_us", where);
  if (const Json* expectations = r.Find(j, "expectations"); expectations != nullptr) {
    if (!expectations->is_array())
      r.Fail(where + ".expectations", "expected an array");
    else {
      for (size_t i = 0; i < expectations->size(); ++i) {
        const std::string here = fmt::format("{}.expectations[{}]", where, i);
        const Json& e = (*expectations)[i];
        if (!e.is_object()) {
          r.Fail(here, "expected an object");
          break;
        }
        ExpectationView ev{r.String(e, "text", here, true), r.Count(e, "passed", here, true),
                           r.Count(e, "failed", here, true)};
        if (r.Find(e, "min_fraction") != nullptr)
          ev.min_fraction = r.Number(e, "min_fraction", here);
        if (r.ok() && ev.passed + ev.failed > v.trials) {
          r.Fail(here, fmt::format("passed + failed = {} is more than the result's {} trials",
                                   ev.passed + ev.failed, v.trials));
        }
        v.expectations.push_back(std::move(ev));
      }
    }
  }
  const Json* details = r.Find(j, "trial_details");
  if (details != nullptr && details->is_array()) {
    for (const Json& t : *details) {
      if (!t.is_object()) continue;  // reported below when every trial is kept
      const Json* verdict = r.Find(t, "verdict");
      if (verdict != nullptr && verdict->is_string() && verdict->get<std::string>() != "pass")
        ++v.failing_trials_kept;
    }
  }
  if (details != nullptr && details->is_array() &&
      static_cast<int64_t>(details->size()) == v.trials) {
    std::vector<std::vector<std::string>> outcomes;
    for (size_t i = 0; i < details->size() && r.ok(); ++i) {
      const Json& t = (*details)[i];
      const std::string here = fmt::format("{}.trial_details[{}]", where, i);
      if (!t.is_object()) {
        r.Fail(here, "expected an object");
        break;
      }
      outcomes.push_back(OutcomesOfTrial(t, here, r, &v.final_sql));
    }
    v.trial_outcomes = std::move(outcomes);
  }
  return v;
}

}  // namespace

bool ExpectationView::Failing() const {
  if (!min_fraction) return failed > 0;
  return static_cast<double>(passed) + 1e-9 < *min_fraction * static_cast<double>(passed + failed);
}

std::string ResultView::Key() const {
  std::string key = fmt::format("{} [{}] {}", scenario, isolation, engine);
  if (!params.empty()) {
    std::string p;
    for (const auto& [k, value] : params)
      p += fmt::format("{}{}={}", p.empty() ? "" : ", ", k, value);
    key += " {" + p + "}";
  }
  return key;
}

Result<ReportView> ReportViewFromJson(const Json& doc, const std::string& name) {
  if (!doc.is_object())
    return Status::Usage(name + ": not a racelab report (expected a JSON object at the top)");
  if (doc.find("schema_version") == doc.end() || doc.find("results") == doc.end()) {
    return Status::Usage(
        name + ": not a racelab report (no schema_version or results; docs/report-schema.md)");
  }
  Reader r;
  ReportView view;
  view.name = name;
  view.schema_version = r.Integer(doc, "schema_version", "", true);
  view.racelab_version = r.String(doc, "racelab_version", "", false);
  view.command = r.String(doc, "command", "", false);
  if (const Json* target = r.Find(doc, "target"); target != nullptr) {
    if (!target->is_object())
      r.Fail("target", "expected an object");
    else {
      view.engine = r.String(*target, "engine", "target", false);
      view.server_version = r.String(*target, "server_version", "target", false);
    }
  }
  const Json& results = doc["results"];
  if (!results.is_array()) r.Fail("results", "expected an array");
  for (size_t i = 0; r.ok() && i < results.size(); ++i) {
    view.results.push_back(ReadResult(results[i], fmt::format("results[{}]", i), view.engine, r));
  }
  if (!r.ok()) {
    std::string where = r.error();
    if (!where.empty() && where[0] == '.') where.erase(0, 1);
    return Status::Usage(fmt::format("{}: {}", name, where));
  }
  return view;
}

Result<ReportView> ReadReportView(const std::string& path, const StopFlag* stop) {
  Result<Json> doc = ReadReportJson(path, stop);
  if (!doc.ok()) return doc.status();
  return ReportViewFromJson(*doc, path);
}

}  // namespace racelab::compare
