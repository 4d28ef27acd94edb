#include "harness/compare/compare_output.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "harness/model/terminal_text.h"
#include "reports/xml_writer.h"

namespace racelab::compare {
namespace {

std::string Verdicts(const ResultComparison& r) {
  return fmt::format("{} → {}", r.base_verdict.value_or("(absent)"),
                     r.new_verdict.value_or("(absent)"));
}

// "regression"; "only in BASE" / "only in NEW"; "changed": a significant change that is not a
// regression (fewer failures), a flagged timing shift, another verdict or an edited expectation;
// "interrupted": NEW's result was cut short by SIGINT/SIGTERM (not judged complete); "within
// chance": counts moved, none significantly; "same".
std::string Judgement(const ResultComparison& r) {
  if (r.regression) return "regression";
  if (!r.base_verdict) return "only in NEW";
  if (!r.new_verdict) return "only in BASE";
  if (r.new_interrupted) return "interrupted";
  const bool changed = std::any_of(r.tests.begin(), r.tests.end(),
                                   [](const CountTest& t) { return t.significant; }) ||
                       std::any_of(r.timing.begin(), r.timing.end(),
                                   [](const TimingShift& s) { return s.flagged; }) ||
                       *r.base_verdict != *r.new_verdict || !r.expectation_changes.empty();
  if (changed) return "changed";
  const bool moved =
      std::any_of(r.tests.begin(), r.tests.end(), [](const CountTest& t) { return t.differs(); });
  return moved ? "within chance" : "same";
}

std::string TestLine(const CountTest& t) {
  const char* unit = t.per_trial ? "trials" : "per trial";
  const std::string counts = t.per_trial
                                 ? fmt::format("{}/{} → {}/{} {}", t.base_count, t.base_trials,
                                               t.new_count, t.new_trials, unit)
                                 : fmt::format("{} in {} → {} in {} trials", t.base_count,
                                               t.base_trials, t.new_count, t.new_trials);
  return fmt::format("{}: {}, p = {:.2g}{}{}", t.subject, counts, t.p,
                     t.in_family ? fmt::format(", Holm-adjusted {:.2g}", t.p_adjusted) : "",
                     t.regression ? " — REGRESSION"
                     : t.significant && t.kind == "lock waits"
                         ? " — significant, does not gate (timing-dependent)"
                     : t.significant ? " — significant"
                                     : " — within chance");
}

std::string TimingLine(const TimingShift& s) {
  return fmt::format(
      "{} median {:.3f} → {:.3f} (shift {:+.3f}; noise allowance {:.3f}: p50→p95 spreads {:.3f} "
      "and "
      "{:.3f} plus a floor){}",
      s.what, s.base.p50, s.now.p50, s.shift, s.allowed, s.base.p95 - s.base.p50,
      s.now.p95 - s.now.p50,
      s.regression ? " — REGRESSION"
      : s.what == "blocked ms"
          ? " — flagged, does not gate"
          : " — flagged, never gates (racelab's own precision: a busy machine?)");
}

// "expectation changed: 'winners = 1' → 'winners = 2' (NEW: failed in 20 of 20 trials) —
// REGRESSION".
std::string ChangeLine(const ExpectationChange& e) {
  const std::string in_new =
      e.new_failing ? fmt::format("NEW: failed in {} of {} trials", e.new_failed, e.new_trials)
      : e.new_failed > 0
          ? fmt::format("NEW: held, failed in {} of {} trials (within its min_fraction)",
                        e.new_failed, e.new_trials)
          : "NEW: held in every trial";
  const char* mark = e.new_failing ? " — REGRESSION" : "";
  if (e.new_text.empty()) return fmt::format("expectation removed in NEW: '{}'", e.base_text);
  if (e.base_text.empty())
    return fmt::format("expectation added in NEW: '{}' ({}){}", e.new_text, in_new, mark);
  return fmt::format("expectation changed: '{}' → '{}' ({}){}", e.base_text, e.new_text, in_new,
                     mark);
}

// Details worth showing for one result: edited expectations, every test whose counts moved, flagged
// timing, notes.
std::vector<std::string> DetailLines(const ResultComparison& r) {
  std::vector<std::string> lines;
  // A result only in NEW has no tests: its reasons (a fail with no baseline) are its details.
  if (!r.base_verdict) lines = r.reasons;
  for (const auto& e : r.expectation_changes) lines.push_back(ChangeLine(e));
  for (const auto& t : r.tests)
    if (t.differs()) lines.push_back(TestLine(t));
  for (const auto& s : r.timing)
    if (s.flagged) lines.push_back(TimingLine(s));
  for (const auto& n : r.notes) lines.push_back(n);
  return lines;
}

// Markdown text: every character CommonMark/GFM could read as syntax is backslash-escaped; line
// breaks become spaces (the same rule as reports/markdown_reporter.cc).
std::string Md(std::string_view text) {
  static constexpr std::string_view kSyntax = "\\`*_[]<>!#|~&$";
  std::string out;
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '\n' || c == '\r' || c == '\t')
      out += ' ';
    else if (c < 0x20 || c == 0x7F)
      out += '?';
    else {
      if (kSyntax.find(ch) != std::string_view::npos) out += '\\';
      out += ch;
    }
  }
  return out;
}

}  // namespace

std::string TallyLine(const Comparison& c) {
  std::map<std::string, int> n;
  for (const auto& r : c.results) ++n[Judgement(r)];
  std::string out = fmt::format("{} result{}: {} regression{}", c.results.size(),
                                c.results.size() == 1 ? "" : "s", n["regression"],
                                n["regression"] == 1 ? "" : "s");
  for (const char* k :
       {"changed", "interrupted", "within chance", "same", "only in BASE", "only in NEW"}) {
    if (n[k] > 0) out += fmt::format(", {} {}", n[k], k);
  }
  return out;
}

void WriteConsole(const Comparison& c, std::ostream& out) {
  out << SanitizeForTerminal(
             fmt::format("racelab compare: BASE {} → NEW {}", c.base_name, c.new_name))
      << "\n";
  for (const auto& w : c.warnings) out << "warning: " << SanitizeForTerminal(w) << "\n";
  for (const auto& r : c.results) {
    const std::string judgement = Judgement(r);
    out << SanitizeForTerminal(fmt::format("{:<13} {}: {}", r.regression ? "REGRESSION" : judgement,
                                           r.key, Verdicts(r)),
                               false)
        << "\n";
    if (judgement == "same") continue;
    for (const auto& line : DetailLines(r))
      out << "    " << SanitizeForTerminal(line, false) << "\n";
  }
  out << SanitizeForTerminal(TallyLine(c)) << "\n" << MethodLine(c) << "\n";
}

void WriteMarkdown(const Comparison& c, std::ostream& out) {
  out << "# racelab compare\n\n";
  out << fmt::format("BASE `{}` → NEW `{}`: **{}**\n\n", Md(c.base_name), Md(c.new_name),
                     Md(TallyLine(c)));
  for (const auto& w : c.warnings) out << "> **Warning:** " << Md(w) << "\n>\n";
  if (!c.warnings.empty()) out << "\n";
  out << "| result | verdict | judgement |\n|---|---|---|\n";
  for (const auto& r : c.results) {
    const std::string j = Judgement(r);
    out << fmt::format("| {} | {} | {} |\n", Md(r.key), Md(Verdicts(r)),
                       j == "regression" ? "**regression**" : j);
  }
  bool heading = false;
  for (const auto& r : c.results) {
    if (Judgement(r) == "same") continue;
    if (!heading) out << "\n## What changed\n";
    heading = true;
    out << fmt::format("\n### {}{}\n\n", r.regression ? "Regression: " : "", Md(r.key));
    for (const auto& reason : r.reasons) out << "- **" << Md(reason) << "**\n";
    for (const auto& line : DetailLines(r)) {
      if (std::find(r.reasons.begin(), r.reasons.end(), line) == r.reasons.end())
        out << "- " << Md(line) << "\n";
    }
  }
  out << "\n" << Md(MethodLine(c)) << " See docs/compare.md.\n";
}

void WriteJunit(const Comparison& c, std::ostream& out) {
  int regressions = 0, skipped = 0;
  for (const auto& r : c.results) {
    regressions += r.regression;
    skipped += !r.regression && (!r.base_verdict || !r.new_verdict || r.new_interrupted);
  }
  XmlWriter xml(out);
  xml.WriteDeclaration();
  // `skipped` only on <testsuite>: the Jenkins xUnit schema (junit-10.xsd) rejects it on
  // <testsuites>.
  auto counts = [&](XmlWriter& x) {
    x.Attribute("tests", static_cast<int64_t>(c.results.size()))
        .Attribute("failures", int64_t{regressions})
        .Attribute("errors", int64_t{0})
        .Attribute(
            "time",
            "0.000");  // a comparison takes no test time; JUnit readers require the attribute
  };
  xml.StartElement("testsuites").Attribute("name", "racelab compare");
  counts(xml);
  xml.StartElement("testsuite").Attribute("name", "racelab compare");
  counts(xml);
  xml.Attribute("skipped", int64_t{skipped});
  xml.StartElement("properties");
  xml.StartElement("property")
      .Attribute("name", "base")
      .Attribute("value", c.base_name)
      .EndElement();
  xml.StartElement("property").Attribute("name", "new").Attribute("value", c.new_name).EndElement();
  xml.StartElement("property")
      .Attribute("name", "alpha")
      .Attribute("value", fmt::format("{}", c.options.alpha))
      .EndElement();
  xml.StartElement("property")
      .Attribute("name", "method")
      .Attribute("value", MethodLine(c))
      .EndElement();
  for (const auto& w : c.warnings)
    xml.StartElement("property").Attribute("name", "warning").Attribute("value", w).EndElement();
  xml.EndElement();
  for (const auto& r : c.results) {
    xml.StartElement("testcase")
        .Attribute("name", r.key)
        .Attribute("classname", "racelab.compare." + r.scenario)
        .Attribute("time", "0.000");
    std::string body;
    for (const auto& line : DetailLines(r)) body += line + "\n";
    if (r.regression) {
      std::string message;
      for (const auto& reason : r.reasons) message += (message.empty() ? "" : "; ") + reason;
      xml.StartElement("failure").Attribute("message", message).Attribute("type", "regression");
      if (!body.empty()) xml.Text(body);
      xml.EndElement();
    } else if (!r.base_verdict || !r.new_verdict) {
      xml.StartElement("skipped")
          .Attribute("message", r.notes.empty() ? "in one report only" : r.notes.front())
          .EndElement();
    } else if (r.new_interrupted) {
      xml.StartElement("skipped")
          .Attribute("message", r.notes.empty() ? "interrupted in NEW" : r.notes.front())
          .EndElement();
      if (!body.empty()) xml.StartElement("system-out").Text(body).EndElement();
    } else if (!body.empty()) {
      xml.StartElement("system-out").Text(body).EndElement();
    }
    xml.EndElement();
  }
  xml.Close();
}

}  // namespace racelab::compare
