#include "harness/loader/spec_convert.h"

#include <fmt/format.h>

#include <map>
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
  while (!lines.empty() && lines.front().find_first_not_of(" \t\r") == std::string::npos) lines.erase(lines.begin());
  while (!lines.empty() && lines.back().find_first_not_of(" \t\r") == std::string::npos) lines.pop_back();
  // Common indentation is removed so that the first line sets the block's indentation.
  size_t common = std::string::npos;
  for (const std::string& l : lines) {
    if (l.find_first_not_of(" \t") == std::string::npos) continue;
    common = std::min(common, l.find_first_not_of(' '));
  }
  if (common == std::string::npos) common = 0;
  // A first line indented deeper than a later one cannot open a block scalar: quote the text instead.
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
    while (!body.empty() && (body.back() == ' ' || body.back() == '\t' || body.back() == '\r')) body.pop_back();
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
  bool letter_first = !out.empty() && ((out[0] >= 'a' && out[0] <= 'z') || (!lower && out[0] >= 'A' && out[0] <= 'Z'));
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
  if (base.size() > 5 && base.compare(base.size() - 5, 5, ".spec") == 0) base.resize(base.size() - 5);
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

struct Item {          // one entry of a session's converted step list
  std::string yaml;    // its lines, indented for a step list under `steps:`
};

}  // namespace

ConvertedScenario ConvertSpecPermutation(const IsolationSpec& spec, const StepOrder& order, size_t number,
                                         const std::set<std::string>& blocking) {
  ConvertedScenario out;
  out.name = fmt::format("{}-{}", FileStem(spec.loc.file), number);
  const size_t n_sessions = spec.sessions.size();

  // Role names, and which sessions take part (a step in the order, or a setup/teardown of their own).
  std::vector<std::string> role(n_sessions);
  std::set<std::string> roles_taken;
  std::vector<bool> active(n_sessions, false);
  for (const OrderedStep& s : order.steps) active[s.session] = true;
  for (size_t i = 0; i < n_sessions; ++i) {
    role[i] = Unique(Sanitize(spec.sessions[i].name, true, "s"), &roles_taken);
    if (spec.sessions[i].setup || spec.sessions[i].teardown) active[i] = true;
  }
  size_t n_active = 0;
  bool any_teardown = false, any_setup = false;
  for (size_t i = 0; i < n_sessions; ++i) {
    n_active += active[i];
    any_setup |= active[i] && spec.sessions[i].setup.has_value();
    any_teardown |= active[i] && spec.sessions[i].teardown.has_value();
  }

  std::vector<std::vector<std::string>> steps(n_sessions);  // YAML lines per session
  std::vector<std::set<std::string>> names_taken(n_sessions);
  auto add_sql = [&](size_t session, const std::string& name, const std::string& sql) {
    std::string step_name = Unique(Sanitize(name, false, "s"), &names_taken[session]);
    steps[session].push_back(fmt::format("      - sql: {}        name: {}\n        on_error: continue\n",
                                         Block(sql, 10), step_name));
  };
  auto add_barrier = [&](size_t session, const std::string& barrier) {
    steps[session].push_back(fmt::format("      - barrier: {}\n", barrier));
  };

  std::vector<std::string> notes;
  for (size_t i = 0; i < n_sessions; ++i) {
    if (active[i] && spec.sessions[i].setup) add_sql(i, "setup", spec.sessions[i].setup->text);
    if (active[i] && any_setup && n_active >= 2) add_barrier(i, "setup_done");
  }
  int handover = 0;
  bool any_marker = false;
  for (size_t k = 0; k < order.steps.size(); ++k) {
    const OrderedStep& s = order.steps[k];
    const SpecStep& step = spec.sessions[s.session].steps[s.step];
    bool once = false, waits_for_other = false;
    for (const OrderedBlocker& b : s.blockers) {
      once |= b.kind == SpecBlocker::Kind::kOnce;
      waits_for_other |= b.kind != SpecBlocker::Kind::kOnce;
      any_marker = true;
      if (b.kind == SpecBlocker::Kind::kNotices) {
        notes.push_back(fmt::format("step {}: the marker '{} notices {}' has no equivalent (notices are not "
                                    "counted)", step.name, spec.sessions[b.session].steps[b.step].name, b.notices));
      }
    }
    bool blocks = blocking.count(step.name) > 0 || waits_for_other;
    bool next_other = k + 1 < order.steps.size() && order.steps[k + 1].session != s.session;
    std::string barrier = next_other ? fmt::format("h{}", ++handover) : "";
    if (next_other && (blocks || once)) add_barrier(s.session, barrier);  // met before a blocking step
    add_sql(s.session, step.name, step.sql.text);
    if (next_other && !(blocks || once)) add_barrier(s.session, barrier);
    if (next_other) {
      size_t next = order.steps[k + 1].session;
      add_barrier(next, barrier);
      if (blocks && !once) {
        steps[next].push_back(fmt::format("      - await_blocked: {}\n        timeout_ms: 10000\n", role[s.session]));
      }
    }
  }
  for (size_t i = 0; i < n_sessions; ++i) {
    if (!active[i]) continue;
    if (any_teardown && n_active >= 2) add_barrier(i, "steps_done");
    if (spec.sessions[i].teardown) add_sql(i, "teardown", spec.sessions[i].teardown->text);
  }

  // What could not be carried over.
  notes.push_back("the rows each step returns are not compared (isolationtester prints them): state what must "
                  "hold under expect (final, step_rows, sqlstates)");
  if (spec.setup.size() > 1) {
    notes.push_back(fmt::format("the {} setup blocks are joined into one setup text, sent as one string "
                                "(a statement that cannot run inside a multi-statement string, such as "
                                "VACUUM, fails there)", spec.setup.size()));
  }
  if (any_marker) notes.push_back("markers are approximated: (*) starts the next step as soon as this one "
                                  "was sent; (STEP) makes the next session await this one blocked");
  if (blocking.empty()) notes.push_back("which steps block was not given (--expected): only steps with markers "
                                        "are taken as blocking; a step that blocks otherwise stalls its session "
                                        "at the next barrier until the trial deadline");
  notes.push_back("the SQL runs in a schema of its own as racelab's generated role, not in a database's "
                  "public schema: SQL that names public or needs more rights fails (use racelab run X.spec)");
  notes.push_back("NOTICE and NOTIFY messages are not recorded");

  std::string y;
  y += fmt::format("# Converted by `racelab convert` from {}, permutation {}: {}\n", spec.loc.file, number, order.name);
  y += "# Not carried over:\n";
  for (const std::string& n : notes) y += "#  - " + n + "\n";
  y += fmt::format("name: {}\n", out.name);
  y += fmt::format("title: {}\n", Quoted(fmt::format("{} (isolation spec), permutation {}", FileStem(spec.loc.file),
                                                      number)));
  y += fmt::format("teaches: {}\n", Quoted(fmt::format("The steps of {} in the order {}, one at a time: each "
                                                        "starts when the one before it ended or blocked.",
                                                        spec.loc.file, order.name)));
  y += "tags: [isolation-spec]\n";
  y += "isolation: read committed   # the spec's SQL sets its own levels (BEGIN ISOLATION LEVEL …)\n";
  if (!spec.setup.empty()) {
    std::string joined;
    for (const SpecSql& s : spec.setup) {
      size_t b = s.text.find_first_not_of(" \t\r\n"), e = s.text.find_last_not_of(" \t\r\n");
      if (b != std::string::npos) joined += (joined.empty() ? "" : "\n") + s.text.substr(b, e - b + 1);
    }
    y += "setup: " + Block(joined, 2);
  }
  if (spec.teardown) y += "teardown: " + Block(spec.teardown->text, 2);
  y += "sessions:\n";
  for (size_t i = 0; i < n_sessions; ++i) {
    if (!active[i]) continue;
    y += fmt::format("  - name: {}\n    steps:\n", role[i]);
    for (const std::string& line : steps[i]) y += line;
  }
  y += "expect:\n";
  y += "  # convert cannot know what must hold: replace this placeholder with the real checks\n";
  y += "  final: [ { sql: \"SELECT 'converted'\", equals: \"converted\" } ]\n";
  out.yaml = y;
  return out;
}

Result<std::vector<std::set<std::string>>> BlockingStepsFromExpected(const IsolationSpec& spec,
                                                                     const std::vector<StepOrder>& orders,
                                                                     const std::string& expected_text,
                                                                     const std::string& expected_file) {
  std::map<std::string, std::string> sql_of;
  for (const SpecSession& s : spec.sessions) {
    for (const SpecStep& st : s.steps) sql_of[st.name] = st.sql.text;
  }
  const std::string kStart = "\nstarting permutation: ";
  std::vector<std::set<std::string>> out;
  size_t pos = expected_text.find(kStart);
  while (pos != std::string::npos) {
    size_t line_end = expected_text.find('\n', pos + 1);
    std::string name = expected_text.substr(pos + kStart.size(), line_end - pos - kStart.size());
    size_t next = expected_text.find(kStart, line_end);
    std::string block = expected_text.substr(line_end, next == std::string::npos ? std::string::npos : next - line_end);
    size_t index = out.size();
    if (index >= orders.size() || orders[index].name != name) {
      return Status::Usage(fmt::format("{}: permutation {} is '{}', not '{}' of the spec: the output of another "
                                       "spec, or of another version of it",
                                       expected_file, index + 1, name,
                                       index < orders.size() ? orders[index].name : "(none)"));
    }
    std::set<std::string> waits;
    for (const auto& [step, sql] : sql_of) {
      if (block.find(fmt::format("\nstep {}: {} <waiting ...>\n", step, sql)) != std::string::npos) waits.insert(step);
    }
    out.push_back(std::move(waits));
    pos = next;
  }
  if (out.size() != orders.size()) {
    return Status::Usage(fmt::format("{}: has {} permutations, the spec runs {}", expected_file, out.size(),
                                     orders.size()));
  }
  return out;
}

}  // namespace racelab
