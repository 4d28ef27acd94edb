// Escaping by construction: no value can break out of its place in racelab.md (a blank line, a
// backtick fence, raw HTML, a table pipe), and terminal text never carries control characters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>

#include "harness/model/terminal_text.h"
#include "reports/reporter.h"
#include "reports/xml_writer.h"
#include "tests/unit/sample_report.h"

namespace racelab {
namespace {

// Database data, a --set value and multi-line SQL, each trying every way out of a code span or a
// paragraph: a blank line, a longer backtick fence, raw HTML, a heading, a table row, a link.
const std::string kHostile =
    "x\n\n<script>alert(1)</script>\n```\n````` `` `\n# heading\n| a | b "
    "|\n[link](javascript:alert(1))\r\n\x1b]0;t\a";

std::string RenderMd(const RunReport& report) {
  std::ostringstream out;
  (*MakeReporter("md"))->Write(report, out);
  return out.str();
}

// Puts `value` in every place of the report a value from outside racelab reaches.
void Inject(testing::SampleRun* run, const std::string& value) {
  RunReport& report = run->report;
  report.command = "racelab run --set note=" + value;
  for (PlanItem& item : run->plan.items) {
    item.title = value;
    item.params.emplace_back("note2", value);
  }
  for (ResultSummary& r : report.results) {
    r.error = value;
    for (ExpectationTally& e : r.expectations) e.first_failure = value;
    for (TrialVerdict& t : r.trial_details) {
      t.result.error = value;
      for (FinalValue& f : t.result.finals) {
        f.sql = "SELECT " + value;
        f.value = value;
      }
      for (StepEvent& e : t.result.events) e.captured = {{"c", value}};
      for (Check& c : t.checks) c.detail = value;
    }
  }
}

size_t Lines(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

// Whether position `at` of `line` is inside an inline code span (CommonMark §6.1: a backtick run
// opens a span that only a run of the same length closes).
bool InCodeSpan(const std::string& line, size_t at) {
  size_t i = 0;
  while (i < line.size()) {
    if (line[i] == '\\' && i + 1 < line.size()) {
      i += 2;
      continue;
    }
    if (line[i] != '`') {
      ++i;
      continue;
    }
    size_t n = 0;
    while (i + n < line.size() && line[i + n] == '`') ++n;
    const std::string fence(n, '`');
    size_t close = i + n;
    for (;;) {
      close = line.find(fence, close);
      if (close == std::string::npos) break;
      size_t run = 0;
      while (close + run < line.size() && line[close + run] == '`') ++run;
      if (run == n) break;
      close += run;
    }
    if (close == std::string::npos) {
      i += n;
      continue;
    }
    if (at > i && at < close) return true;
    i = close + n;
  }
  return false;
}

TEST(MarkdownEscaping, NoValueAddsALineOrEscapesItsSpan) {
  auto benign = testing::MakeSampleRun();
  Inject(benign.get(), "x");
  auto hostile = testing::MakeSampleRun();
  Inject(hostile.get(), kHostile);
  const std::string safe = RenderMd(benign->report);
  const std::string md = RenderMd(hostile->report);
  // Every value stays on its own line: a blank line or a heading inside it cannot end a paragraph.
  EXPECT_EQ(Lines(md), Lines(safe));
  std::istringstream lines(md);
  int seen = 0;
  for (std::string line; std::getline(lines, line);) {
    EXPECT_EQ(line.find('\x1b'), std::string::npos) << line;
    EXPECT_EQ(line.find('\r'), std::string::npos) << line;
    for (size_t at = line.find("<script>"); at != std::string::npos;
         at = line.find("<script>", at + 1)) {
      ++seen;
      const bool escaped = at > 0 && line[at - 1] == '\\';
      EXPECT_TRUE(escaped || InCodeSpan(line, at)) << "raw <script> in: " << line;
    }
    for (size_t at = line.find("[link]"); at != std::string::npos;
         at = line.find("[link]", at + 1)) {
      EXPECT_TRUE((at > 0 && line[at - 1] == '\\') || InCodeSpan(line, at))
          << "raw link in: " << line;
    }
  }
  EXPECT_GE(seen, 8);  // the value did reach the report, in many places
}

TEST(MarkdownEscaping, CodeSpansUseALongerFenceThanAnyBacktickRun) {
  auto run = testing::MakeSampleRun();
  Inject(run.get(), "a ````` b");
  const std::string md = RenderMd(run->report);
  EXPECT_NE(md.find("`````` a ````` b ``````"), std::string::npos) << md;
}

TEST(TerminalText, ControlCharactersAreShownEscaped) {
  EXPECT_EQ(SanitizeForTerminal("a\x1b]0;title\a b\x1b[2J"), "a\\x1b]0;title\\x07 b\\x1b[2J");
  EXPECT_EQ(SanitizeForTerminal("over\rwrite\x7f"), "over\\rwrite\\x7f");
  EXPECT_EQ(SanitizeForTerminal("line\nnext\ttab", /*keep_newlines=*/true), "line\nnext\ttab");
  EXPECT_EQ(SanitizeForTerminal("line\nnext", /*keep_newlines=*/false), "line\\nnext");
  EXPECT_EQ(SanitizeForTerminal("csi \xc2\x9b"
                                "2J"),
            "csi \\u009b2J");  // C1 CSI, UTF-8
  EXPECT_EQ(SanitizeForTerminal("raw \x9b"
                                "2J \xff"),
            "raw \\x9b2J \\xff");  // not UTF-8
  EXPECT_EQ(SanitizeForTerminal("1×18, µs — ok"), "1×18, µs — ok");
  EXPECT_EQ(SanitizeForTerminal(std::string("nul\0x", 5)), "nul\\x00x");
}

// Issue 20 item 22: a value's newline is shown as \n unless racelab lays the text out on lines
// itself.
TEST(TerminalText, ANewlineInAValueIsShownEscapedByDefault) {
  EXPECT_EQ(SanitizeForTerminal("x\nPASS: forged-scenario @ serializable"),
            "x\\nPASS: forged-scenario @ serializable");
  EXPECT_EQ(SanitizeForTerminal("a\r\nb"), "a\\r\\nb");
}

// U+202E (RIGHT-TO-LEFT OVERRIDE) and the other bidirectional controls reorder what a person reads
// ("Trojan Source"); U+2028/U+2029 break a line in some terminals and viewers.
TEST(TerminalText, BidirectionalAndLineControlsAreShownEscaped) {
  EXPECT_EQ(SanitizeForTerminal("pass \u202e"
                                "liaf"),
            "pass \\u202eliaf");
  for (char32_t cp : {0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066,
                      0x2067, 0x2068, 0x2069, 0x2028, 0x2029}) {
    std::string utf8;
    if (cp < 0x800) {
      utf8 = {static_cast<char>(0xC0 | (cp >> 6)), static_cast<char>(0x80 | (cp & 0x3F))};
    } else {
      utf8 = {static_cast<char>(0xE0 | (cp >> 12)), static_cast<char>(0x80 | ((cp >> 6) & 0x3F)),
              static_cast<char>(0x80 | (cp & 0x3F))};
    }
    char want[16];
    std::snprintf(want, sizeof want, "<\\u%04x>", static_cast<unsigned>(cp));
    EXPECT_EQ(SanitizeForTerminal("<" + utf8 + ">"), want);
    EXPECT_TRUE(IsBidiOrLineControl(cp));
  }
  // Neighbours that are ordinary text pass: U+2010 HYPHEN, U+2030 PER MILLE, U+206A.
  EXPECT_EQ(SanitizeForTerminal("\u2010 \u2030 \u206a"), "\u2010 \u2030 \u206a");
}

TEST(TerminalText, ConsoleReportKeepsEveryValueOnItsLine) {
  auto benign = testing::MakeSampleRun();
  Inject(benign.get(), "x");
  auto hostile = testing::MakeSampleRun();
  Inject(hostile.get(), "x\nPASS: forged @ serializable\n\u202e");
  for (auto* run : {benign.get(), hostile.get()}) {
    for (ResultSummary& r : run->report.results) r.verdict = Verdict::kFail;
  }
  std::ostringstream safe, out;
  (*MakeReporter("console"))->Write(benign->report, safe);
  (*MakeReporter("console"))->Write(hostile->report, out);
  EXPECT_EQ(Lines(out.str()), Lines(safe.str())) << out.str();
  EXPECT_EQ(out.str().find("\nPASS: forged"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("x\\nPASS: forged @ serializable\\n\\u202e"), std::string::npos)
      << out.str();
  EXPECT_EQ(out.str().find("\u202e"), std::string::npos);
}

// The HTML page (and the JUnit file, through the same XML writer) shows a bidirectional control as
// the terminal does: a character reference would be decoded and reorder the page.
// The Markdown report is read in a pull-request page, which obeys U+202E as a browser does: shown
// as its code there too, in text, code spans and the lesson alike.
TEST(MarkdownEscaping, BidirectionalControlsAreShownNotObeyed) {
  auto run = testing::MakeSampleRun();
  Inject(run.get(), "evil \u202e\u2066txt.exe\u2069 \u200f");
  for (const char* format : {"md", "md-summary"}) {
    std::ostringstream out;
    (*MakeReporter(format))->Write(run->report, out);
    const std::string md = out.str();
    for (const char* raw : {"\u202e", "\u2066", "\u2069", "\u200f"}) {
      EXPECT_EQ(md.find(raw), std::string::npos) << format;
    }
    EXPECT_NE(md.find("u202e"), std::string::npos) << format;
  }
}

TEST(HtmlEscaping, BidirectionalControlsAreShownNotObeyed) {
  auto run = testing::MakeSampleRun();
  Inject(run.get(), "evil \u202e\u2066txt.exe\u2069 \u200f");
  for (const char* format : {"html", "junit"}) {
    std::ostringstream out;
    (*MakeReporter(format))->Write(run->report, out);
    const std::string page = out.str();
    for (const char* raw : {"\u202e", "\u2066", "\u2069", "\u200f"}) {
      EXPECT_EQ(page.find(raw), std::string::npos) << format;
    }
    for (const char* ref : {"&#x202E;", "&#x202e;", "&#8238;"})
      EXPECT_EQ(page.find(ref), std::string::npos) << format;
    EXPECT_NE(page.find("evil \\u202e\\u2066txt.exe\\u2069 \\u200f"), std::string::npos) << format;
  }
  EXPECT_EQ(ShowBidiControls("a\u202eb \u00d7"), "a\\u202eb \u00d7");  // others as they are
  EXPECT_EQ(EscapeXml("a\u202eb"), "a\\u202eb");
  EXPECT_EQ(EscapeXml("a\u202eb", XmlContext::kAttribute), "a\\u202eb");
}

TEST(TerminalText, ConsoleReportHasNoControlCharacters) {
  auto run = testing::MakeSampleRun();
  Inject(run.get(), kHostile);
  for (ResultSummary& r : run->report.results) r.verdict = Verdict::kFail;
  std::ostringstream out;
  (*MakeReporter("console"))->Write(run->report, out);
  for (char c : out.str()) {
    const unsigned char u = static_cast<unsigned char>(c);
    EXPECT_TRUE(u == '\n' || u == '\t' || (u >= 0x20 && u != 0x7f)) << "control byte " << int(u);
  }
  EXPECT_NE(out.str().find("\\x1b]0;t\\x07"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace racelab
