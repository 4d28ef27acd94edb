#include "harness/cli/man_page.h"

#include <fmt/format.h>

#include <sstream>
#include <utility>
#include <vector>

namespace racelab::cli {
namespace {

// Typographic characters of the help texts and their groff escapes.
constexpr std::pair<std::string_view, std::string_view> kGlyphs[] = {
    {"\u2014", "\\(em"}, {"\u2013", "\\(en"}, {"\u2026", "..."},   {"\u00d7", "\\(mu"},
    {"\u2192", "\\(->"}, {"\u2264", "\\(<="}, {"\u2265", "\\(>="}, {"\u2019", "'"},
};

// The App's description as paragraphs (separated by an empty line).
std::vector<std::string> Paragraphs(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find("\n\n", start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 2;
  }
  return out;
}

// A paragraph as roff: lines indented by two spaces (examples) are kept as written (.nf), the
// others are filled text.
std::string Paragraph(const std::string& paragraph) {
  std::string out;
  bool literal = false;
  std::istringstream lines(paragraph);
  for (std::string line; std::getline(lines, line);) {
    const bool indented = line.rfind("  ", 0) == 0;
    if (indented && !literal) out += ".nf\n";
    if (!indented && literal) out += ".fi\n";
    literal = indented;
    out += RoffEscape(indented ? line.substr(2) : line) + "\n";
  }
  if (literal) out += ".fi\n";
  return out;
}

// "INT:INT in [1 - 100000]" -> "INT"; "TEXT:{none,failed,all}" -> "{none,failed,all}".
std::string ValueName(const CLI::Option& option) {
  std::string type = option.get_type_name();
  if (size_t set = type.find(":{"); set != std::string::npos) return type.substr(set + 1);
  return type.substr(0, type.find(':'));
}

bool Listed(const CLI::Option* option, const CLI::App& app) {
  return !option->get_group().empty() && option != app.get_help_ptr() &&
         option != app.get_help_all_ptr();
}

// ".TP" + "-q, --quiet" / "--trials INT" / "scenarios ..." + the help text and default.
std::string OptionEntry(const CLI::Option& option) {
  std::string names;
  if (!option.nonpositional()) {
    names = "\\fI" + RoffEscape(option.get_name(true)) + "\\fR";
  } else {
    for (const std::string& s : option.get_snames())
      names += (names.empty() ? "" : ", ") + ("\\fB\\-" + s + "\\fR");
    for (const std::string& l : option.get_lnames())
      names += (names.empty() ? "" : ", ") + ("\\fB" + RoffEscape("--" + l) + "\\fR");
  }
  const std::string value = option.get_items_expected_max() == 0 ? "" : ValueName(option);
  if (!value.empty() && option.nonpositional()) names += " \\fI" + RoffEscape(value) + "\\fR";
  if (option.get_expected_max() > 1) names += " ...";
  std::string text = option.get_description();
  if (option.get_required()) text += " (required)";
  if (!option.get_default_str().empty() && option.get_items_expected_max() != 0)
    text += " (default: " + option.get_default_str() + ")";
  return ".TP\n" + names + "\n" + RoffEscape(text) + "\n";
}

// A footer's exit codes, one .TP entry per command: the table of --help ("Exit codes (…):" then
// "  run            0 … · 1 …" rows) or a subcommand's ("Exit codes:" then "  run: 0 … · 1 …"
// rows). Any other footer is a paragraph.
std::string ExitCodes(const std::string& footer) {
  std::string out;
  std::istringstream lines(footer);
  std::string line;
  std::getline(lines, line);  // the heading
  for (std::string row; std::getline(lines, row);) {
    if (row.rfind("  ", 0) != 0) return footer.empty() ? "" : ".PP\n" + RoffEscape(footer) + "\n";
    size_t end = row.find("  ", 2), text = std::string::npos;
    if (end != std::string::npos) {
      text = row.find_first_not_of(' ', end);
    } else if ((end = row.find(": ", 2)) != std::string::npos) {
      text = end + 2;
    }
    if (text == std::string::npos || text >= row.size()) return ".PP\n" + RoffEscape(footer) + "\n";
    out += ".TP\n.B " + RoffEscape(row.substr(2, end - 2)) + "\n" + RoffEscape(row.substr(text)) +
           "\n";
  }
  return out.empty() || footer.empty() ? out : ".PP\nExit codes:\n" + out;
}

std::string Synopsis(const CLI::App& sub) {
  std::string line = ".B racelab " + RoffEscape(sub.get_name()) + "\n";
  for (const CLI::Option* p :
       sub.get_options([](const CLI::Option* o) { return !o->nonpositional(); })) {
    std::string name =
        "\\fI" + RoffEscape(p->get_name(true)) + "\\fR" + (p->get_expected_max() > 1 ? " ..." : "");
    line += p->get_required() ? name + "\n" : "[" + name + "]\n";
  }
  line += "[\\fIoptions\\fR]\n.br\n";
  return line;
}

constexpr const char* kEnvironment = R"(.SH ENVIRONMENT
.TP
.B RACELAB_SCENARIOS
Catalogue folder when \fB\-\-scenarios\fR is not given.
.TP
.B RACELAB_TMPDIR
Base folder of the embedded servers' run folders and cached initdb template (default /dev/shm/racelab\-<uid>
when /dev/shm is a tmpfs with 2 GiB free, else /tmp/racelab\-<uid>).
.TP
.BR PGHOST ", " PGPORT ", " PGDATABASE ", " PGUSER ", " PGPASSWORD ", " PGSERVICE ", ..."
libpq's variables apply to a PostgreSQL \fB\-\-dsn\fR (\fB\-\-dsn postgresql://\fR takes everything from
them). Without \fB\-\-dsn\fR the run is on a throwaway embedded PostgreSQL whatever they say; when one of
them names a server, racelab says so in one line on stderr. An empty \fB\-\-dsn ''\fR is a usage error
(exit 2).
)";

constexpr const char* kFiles = R"(.SH FILES
The catalogue is found in this order: the \fB\-\-scenarios\fR folder; \fB$RACELAB_SCENARIOS\fR; the installed
catalogue next to the executable, \fI<prefix>/share/racelab/scenarios\fR (for /usr/bin/racelab:
\fI/usr/share/racelab/scenarios\fR).
.TP
.I /usr/share/racelab/schemas/
JSON Schemas of racelab.json and of scenario files; the XML Schema of racelab.junit.xml.
.TP
.I /usr/share/doc/racelab/
README.md and the reference in docs/ (scenario\-format.md, report\-schema.md, compare.md, ...), with the
plots they show, and the CI examples in ci/.
)";

constexpr const char* kSeeAlso = R"(.SH SEE ALSO
.BR psql (1),
.BR pgbench (1),
.BR initdb (1),
.BR sqlite3 (1),
.BR mariadb (1)
)";

}  // namespace

std::string RoffEscape(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    line_start = c == '\n';
    if (c == '\\') {
      out += "\\e";
      continue;
    }
    if (c == '-') {
      out += "\\-";
      continue;
    }
    bool mapped = false;
    for (const auto& [glyph, escape] : kGlyphs) {
      if (text.substr(i, glyph.size()) == glyph) {
        out += escape;
        i += glyph.size() - 1;
        mapped = true;
        break;
      }
    }
    if (!mapped) out += c;
  }
  return out;
}

std::string ManPage(const CLI::App& app, std::string_view version) {
  std::string description, exit_status, examples;
  for (const std::string& p : Paragraphs(app.get_description())) {
    if (p.rfind("Examples:\n", 0) == 0) {
      examples += Paragraph(p.substr(p.find('\n') + 1));
    } else if (p.rfind("Exit codes:", 0) == 0) {
      exit_status += Paragraph(p) + ".PP\n";
    } else {
      description += (description.empty() ? "" : ".PP\n") + Paragraph(p);
    }
  }
  const auto subcommands = app.get_subcommands([](const CLI::App*) { return true; });
  std::string page = fmt::format(".TH RACELAB 1 \"\" \"racelab {}\" \"User Commands\"\n", version);
  page +=
      ".SH NAME\nracelab \\- reproduce, measure and explain concurrency races against real "
      "databases\n";
  page += ".SH SYNOPSIS\n";
  for (const CLI::App* sub : subcommands) page += Synopsis(*sub);
  page += ".SH DESCRIPTION\n" + description;
  page += ".SH COMMANDS\n";
  for (const CLI::App* sub : subcommands) {
    page += ".SS racelab " + RoffEscape(sub->get_name()) + "\n" +
            RoffEscape(sub->get_description()) + "\n";
    for (const CLI::Option* o :
         sub->get_options([&](const CLI::Option* o) { return Listed(o, *sub); }))
      page += OptionEntry(*o);
    page += ExitCodes(sub->get_footer());
  }
  page += ".SH GLOBAL OPTIONS\n";
  for (const CLI::Option* o : app.get_options([&](const CLI::Option* o) { return Listed(o, app); }))
    page += OptionEntry(*o);
  exit_status += ExitCodes(app.get_footer());
  if (!exit_status.empty()) page += ".SH EXIT STATUS\n" + exit_status;
  page += kEnvironment;
  page += kFiles;
  if (!examples.empty()) page += ".SH EXAMPLES\n" + examples;
  page += kSeeAlso;
  return page;
}

}  // namespace racelab::cli
