#include "harness/compare/report_view.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

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
    if (!v->is_number_integer() && !v->is_number_unsigned()) {
      Fail(where + "." + key, "expected an integer");
      return 0;
    }
    return v->get<int64_t>();
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

  std::map<std::string, int64_t> Counts(const Json& obj, const char* key, const std::string& where) {
    std::map<std::string, int64_t> out;
    const Json* v = Find(obj, key);
    if (v == nullptr) return out;
    if (!v->is_object()) {
      Fail(where + "." + key, "expected an object of integers");
      return out;
    }
    for (const auto& [k, n] : v->items()) {
      if (!n.is_number_integer() && !n.is_number_unsigned()) {
        Fail(fmt::format("{}.{}.{}", where, key, k), "expected an integer");
        return out;
      }
      out[k] = n.get<int64_t>();
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
    p.count = Integer(*v, "count", here, false);
    return p;
  }

 private:
  std::string error_;
};

// The outcome categories of one trial (ResultView::trial_outcomes): for each role and SQL step, the
// rows of each of its sessions' last attempt at that step, sorted ("worker/claim rows 0,1"); and each
// final value ("final #1 = 2"). Skipped steps and steps without a row count (rows omitted) are left out.
std::vector<std::string> OutcomesOfTrial(const Json& trial, const std::string& where, Reader& r,
                                         std::map<std::string, std::string>* final_sql) {
  std::map<std::string, std::string> role_of;
  if (const Json* sessions = r.Find(trial, "sessions"); sessions != nullptr && sessions->is_array()) {
    for (const Json& s : *sessions) {
      if (s.is_object()) role_of[r.String(s, "label", where + ".sessions[]", false)] = r.String(s, "role", where, false);
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
      if (const Json* skipped = r.Find(e, "skipped"); skipped != nullptr && skipped->is_boolean() && skipped->get<bool>()) continue;
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
      out.push_back(name + " = " + (value == nullptr || value->is_null() ? "NULL" : value->is_string() ? value->get<std::string>() : value->dump()));
    }
  }
  return out;
}

ResultView ReadResult(const Json& j, const std::string& where, const std::string& engine, Reader& r) {
  ResultView v;
  if (!j.is_object()) {
    r.Fail(where, "expected an object");
    return v;
  }
  v.scenario = r.String(j, "scenario", where, true);
  v.engine = r.Find(j, "engine") != nullptr ? r.String(j, "engine", where, true) : engine;
  v.isolation = r.String(j, "isolation", where, true);
  if (const Json* params = r.Find(j, "params"); params != nullptr) {
    if (!params->is_object()) r.Fail(where + ".params", "expected an object of strings");
    else {
      for (const auto& [k, value] : params->items()) {
        v.params.emplace_back(k, value.is_string() ? value.get<std::string>() : value.dump());
      }
    }
  }
  v.trials = r.Integer(j, "trials", where, true);
  v.verdict = r.String(j, "verdict", where, true);
  if (r.ok() && v.verdict != "pass" && v.verdict != "fail" && v.verdict != "error" && v.verdict != "interrupted") {
    r.Fail(where + ".verdict",
           fmt::format("expected \"pass\", \"fail\", \"error\" or \"interrupted\", not \"{}\"", v.verdict));
  }
  v.error = r.String(j, "error", where, false);
  v.interrupted = r.String(j, "interrupted", where, false);
  v.winners = r.Counts(j, "winners", where);
  v.sqlstates = r.Counts(j, "sqlstates", where);
  if (r.Find(j, "errors") != nullptr) v.errors = r.Counts(j, "errors", where);
  v.retries = r.Integer(j, "retries", where, false);
  v.blocked_ms = r.Percentiles(j, "blocked_ms", where);
  v.skew_us = r.Percentiles(j, "skew_us", where);
  if (const Json* expectations = r.Find(j, "expectations"); expectations != nullptr) {
    if (!expectations->is_array()) r.Fail(where + ".expectations", "expected an array");
    else {
      for (size_t i = 0; i < expectations->size(); ++i) {
        const std::string here = fmt::format("{}.expectations[{}]", where, i);
        const Json& e = (*expectations)[i];
        if (!e.is_object()) {
          r.Fail(here, "expected an object");
          break;
        }
        ExpectationView ev{r.String(e, "text", here, true), r.Integer(e, "passed", here, true),
                           r.Integer(e, "failed", here, true)};
        if (r.Find(e, "min_fraction") != nullptr) ev.min_fraction = r.Number(e, "min_fraction", here);
        v.expectations.push_back(std::move(ev));
      }
    }
  }
  const Json* details = r.Find(j, "trial_details");
  if (details != nullptr && details->is_array()) {
    for (const Json& t : *details) {
      if (!t.is_object()) continue;  // reported below when every trial is kept
      const Json* verdict = r.Find(t, "verdict");
      if (verdict != nullptr && verdict->is_string() && verdict->get<std::string>() != "pass") ++v.failing_trials_kept;
    }
  }
  if (details != nullptr && details->is_array() && static_cast<int64_t>(details->size()) == v.trials) {
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

// 1-based line and column of byte `offset` in `text`.
std::pair<size_t, size_t> LineColumn(const std::string& text, size_t offset) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
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
    for (const auto& [k, value] : params) p += fmt::format("{}{}={}", p.empty() ? "" : ", ", k, value);
    key += " {" + p + "}";
  }
  return key;
}

Result<ReportView> ReportViewFromJson(const Json& doc, const std::string& name) {
  if (!doc.is_object()) return Status::Usage(name + ": not a racelab report (expected a JSON object at the top)");
  if (doc.find("schema_version") == doc.end() || doc.find("results") == doc.end()) {
    return Status::Usage(name + ": not a racelab report (no schema_version or results; docs/report-schema.md)");
  }
  Reader r;
  ReportView view;
  view.name = name;
  view.schema_version = r.Integer(doc, "schema_version", "", true);
  view.racelab_version = r.String(doc, "racelab_version", "", false);
  view.command = r.String(doc, "command", "", false);
  if (const Json* target = r.Find(doc, "target"); target != nullptr) {
    if (!target->is_object()) r.Fail("target", "expected an object");
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

Result<ReportView> ReadReportView(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Status::Usage(fmt::format("{}: a folder, not a report file (give its racelab.json)", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    return Status::Usage(fmt::format("{}: cannot read the file: {}", path,
                                     err != 0 ? std::strerror(err) : "unknown reason"));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::parse_error& e) {
    auto [line, column] = LineColumn(text, e.byte == 0 ? 0 : e.byte - 1);
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error …" -> after ": "
    if (size_t colon = what.find(": "); colon != std::string::npos) what = what.substr(colon + 2);
    return Status::Usage(fmt::format("{}:{}:{}: not valid JSON: {}", path, line, column, what));
  }
  return ReportViewFromJson(doc, path);
}

}  // namespace racelab::compare
