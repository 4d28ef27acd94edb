#include "harness/loader/spec_convert.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>
#include <sstream>

namespace racelab {
namespace {

// A YAML block scalar (|-) holding `text` verbatim, indented by `indent` spaces.
std::string Block(const std::string& text, int indent) {
  std::string pad(indent, ' ');
  std::string out = "|-\n";
  std::istringstream in(text);
  std::string line;
  // Leading newlines of a spec block would need an indentation indicator; drop blank edge lines.
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  while (!lines.empty() && lines.front().find_first_not_of(" \t\r") == std::string::npos)
    lines.erase(lines.begin());
  while (!lines.empty() && lines.back().find_first_not_of(" \t\r") == std::string::npos)
    lines.pop_back();
  // Common indentation is removed so that the first line sets the block's indentation.
  size_t common = std::string::npos;
  for (const std::string& l : lines) {
    if (l.find_first_not_of(" \t") == std::string::npos) continue;
    common = std::min(common, l.find_first_not_of(' '));
  }
  if (common == std::string::npos) common = 0;
  // A first line indented deeper than a later one cannot open a block scalar: quote the text
  // instead.
  if (!lines.empty() && lines.front().find_first_not_of(' ') > common) {
    std::string q = "\"";
    for (char c : text) {
      if (c == '"' || c == '\\') q += '\\';
      if (c == '\n') {
        q += "\\n";
      } else if (c == '\t') {
        q += "\\t";
      } else {
        q += c;
      }
    }
    return q + "\"\n";
  }
  for (const std::string& l : lines) {
    std::string body = l.size() >= common ? l.substr(common) : "";
    while (!body.empty() && (body.back() == ' ' || body.back() == '\t' || body.back() == '\r'))
      body.pop_back();
    out += body.empty() ? "\n" : pad + body + "\n";
  }
  if (lines.empty()) out = "\"\"\n";
  return out;
}

// `raw` as a name matching [first][rest]*, with `fallback` when nothing is left.
std::string Sanitize(const std::string& raw, bool lower, const std::string& prefix) {
  std::string out;
  for (char c : raw) {
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (alnum) {
      out += lower && c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  bool letter_first = !out.empty() && ((out[0] >= 'a' && out[0] <= 'z') ||
                                       (!lower && out[0] >= 'A' && out[0] <= 'Z'));
  if (!letter_first) out = prefix + out;
  return out;
}

std::string Unique(const std::string& base, std::set<std::string>* taken) {
  std::string name = base;
  for (int n = 2; taken->count(name); ++n) name = fmt::format("{}_{}", base, n);
  taken->insert(name);
  return name;
}

std::string FileStem(const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base.size() > 5 && base.compare(base.size() - 5, 5, ".spec") == 0)
    base.resize(base.size() - 5);
  std::string out;
  for (char c : base) {
    char l = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    bool ok = (l >= 'a' && l <= 'z') || (l >= '0' && l <= '9');
    if (ok) {
      out += l;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "spec" : out;
}

std::string Quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

ConvertedScenario ConvertSpec(const IsolationSpec& spec, const std::vector<NumberedOrder>& orders) {
  ConvertedScenario out;
  out.name = FileStem(spec.loc.file);
  const size_t n_sessions = spec.sessions.size();

  // Role names, step names per session, and each spec step's name in the YAML.
  std::vector<std::string> role(n_sessions);
  std::set<std::string> roles_taken;
  std::vector<std::vector<std::string>> step_name(n_sessions);
  std::vector<std::string> setup_name(n_sessions), teardown_name(n_sessions);
  std::string sessions_yaml;
  for (size_t i = 0; i < n_sessions; ++i) {
    const SpecSession& session = spec.sessions[i];
    role[i] = Unique(Sanitize(session.name, true, "s"), &roles_taken);
    // The spec's steps keep their names; setup and teardown take names none of them has.
    std::set<std::string> taken;
    for (const SpecStep& st : session.steps)
      step_name[i].push_back(Unique(Sanitize(st.name, false, "s"), &taken));
    if (session.setup) setup_name[i] = Unique("setup", &taken);
    if (session.teardown) teardown_name[i] = Unique("teardown", &taken);
    std::string steps;
    auto add = [&](const std::string& name, const std::string& sql) {
      // An empty block is an empty query to the server; a comment alone is one too.
      const bool empty = sql.find_first_not_of(" \t\r\n") == std::string::npos;
      steps += fmt::format("      - sql: {}        name: {}\n        on_error: continue\n",
                           empty ? "\"-- empty step\"\n" : Block(sql, 10), name);
    };
    if (session.setup) add(setup_name[i], session.setup->text);
    for (size_t k = 0; k < session.steps.size(); ++k)
      add(step_name[i][k], session.steps[k].sql.text);
    if (session.teardown) add(teardown_name[i], session.teardown->text);
    sessions_yaml += fmt::format("  - name: {}\n    steps:\n{}", role[i], steps);
  }

  // order: one entry per permutation.
  std::vector<std::string> notes;
  std::string order_yaml = "order:\n";
  std::map<std::string, size_t>
      written;  // an order's entries → the number of the permutation that wrote it
  for (const NumberedOrder& o : orders) {
    std::vector<std::string> entries;
    for (size_t i = 0; i < n_sessions; ++i) {
      if (!setup_name[i].empty()) entries.push_back(role[i] + "." + setup_name[i]);
    }
    for (const OrderedStep& st : o.order->steps) {
      std::vector<std::string> markers;
      for (const OrderedBlocker& b : st.blockers) {
        if (b.kind == SpecBlocker::Kind::kOnce) {
          markers.push_back("*");
        } else if (b.kind == SpecBlocker::Kind::kStep) {
          markers.push_back(role[static_cast<size_t>(b.session)] + "." +
                            step_name[static_cast<size_t>(b.session)][static_cast<size_t>(b.step)]);
        } else {
          notes.push_back(fmt::format(
              "permutation {}: the marker '{} notices {}' of step {} is dropped (the runner "
              "counts no NOTICE messages)",
              o.number,
              spec.sessions[static_cast<size_t>(b.session)].steps[static_cast<size_t>(b.step)].name,
              b.notices,
              spec.sessions[static_cast<size_t>(st.session)]
                  .steps[static_cast<size_t>(st.step)]
                  .name));
        }
      }
      std::string entry = role[static_cast<size_t>(st.session)] + "." +
                          step_name[static_cast<size_t>(st.session)][static_cast<size_t>(st.step)];
      if (!markers.empty()) entry += fmt::format("({})", fmt::join(markers, ", "));
      entries.push_back(entry);
    }
    for (size_t i = 0; i < n_sessions; ++i) {
      if (!teardown_name[i].empty()) entries.push_back(role[i] + "." + teardown_name[i]);
    }
    std::vector<std::string> quoted;
    for (const std::string& e : entries) quoted.push_back(Quoted(e));
    // A permutation line listed twice: the scenario's loader refuses the same order twice (one
    // result name each); --trials runs it again.
    const std::string line = fmt::format("{}", fmt::join(quoted, ", "));
    if (auto seen = written.find(line); seen != written.end()) {
      notes.push_back(fmt::format("permutation {} is permutation {} again: listed once", o.number,
                                  seen->second));
      continue;
    }
    written.emplace(line, o.number);
    order_yaml += fmt::format("  # permutation {}: {}\n  - [{}]\n", o.number, o.order->name, line);
  }

  // What could not be carried over.
  notes.push_back(
      "the rows each step returns are not compared (isolationtester prints them): state what must "
      "hold under expect (final, reads, step_rows, sqlstates)");
  if (spec.setup.size() > 1) {
    notes.push_back(
        fmt::format("the {} setup blocks are joined into one setup text, sent as one string "
                    "(a statement that cannot run inside a multi-statement string, such as "
                    "VACUUM, fails there)",
                    spec.setup.size()));
  }
  notes.push_back(
      "the SQL runs in a schema of its own as racelab's generated role, not in a database's "
      "public schema: SQL that names public or needs more rights fails (use racelab run X.spec)");
  notes.push_back("NOTICE and NOTIFY messages are not recorded");
  notes.push_back(
      "session teardowns are order entries: each starts once the step before it ended or is seen "
      "waiting (isolationtester first waits for every step to end)");

  std::string y;
  y += fmt::format("# Converted by `racelab convert` from {}: {} permutation(s) in order:\n",
                   spec.loc.file, written.size());
  y += "# Not carried over:\n";
  for (const std::string& n : notes) y += "#  - " + n + "\n";
  y += fmt::format("name: {}\n", out.name);
  y += fmt::format("title: {}\n", Quoted(fmt::format("{} (isolation spec)", out.name)));
  y += fmt::format("teaches: {}\n",
                   Quoted(fmt::format("The steps of {} in the orders of its permutations: each "
                                      "starts when the one before it ended or is seen waiting.",
                                      spec.loc.file)));
  y += "tags: [isolation-spec]\n";
  y += "isolation: read committed   # the spec's SQL sets its own levels (BEGIN ISOLATION LEVEL "
       "…)\n";
  if (!spec.setup.empty()) {
    std::string joined;
    for (const SpecSql& s : spec.setup) {
      size_t b = s.text.find_first_not_of(" \t\r\n"), e = s.text.find_last_not_of(" \t\r\n");
      if (b != std::string::npos)
        joined += (joined.empty() ? "" : "\n") + s.text.substr(b, e - b + 1);
    }
    y += "setup: " + Block(joined, 2);
  }
  if (spec.teardown) y += "teardown: " + Block(spec.teardown->text, 2);
  y += "sessions:\n" + sessions_yaml;
  y += order_yaml;
  y += "expect:\n";
  y += "  # convert cannot know what must hold: replace this placeholder with the real checks\n";
  y += "  final: [ { sql: \"SELECT 'converted'\", equals: \"converted\" } ]\n";
  out.yaml = y;
  return out;
}

}  // namespace racelab
