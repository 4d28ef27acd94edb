// Top level of a scenario file: YAML parsing, metadata, params, isolation, setup/teardown SQL, and
// the helpers shared by the other parts (ReadExpr, CheckReferences). Sessions, steps, cross-session
// checks, outcome and expect live in session_parser.cc, step_parser.cc, session_checks.cc,
// expect_parser.cc.
#include "harness/loader/scenario_loader.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/loader/engine_maps.h"
#include "harness/loader/limits.h"
#include "harness/loader/loader_context.h"
#include "harness/loader/yaml_nesting.h"
#include "harness/model/engine_traits.h"

namespace racelab {
namespace internal {
namespace {

std::string TrimTrailing(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

bool IsKebabName(const std::string& name) {
  if (name.empty() || name.front() == '-' || name.back() == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

void ReadParams(LoadContext& ctx, const Ref& ref) {
  std::optional<Fields> fields = ctx.reader.Map(ref, {}, {}, limits::kMaxParams);
  if (!fields) return;
  for (const Fields::Entry& entry : fields->entries) {
    if (!IsIdentifier(entry.key)) {
      ctx.reader.Error(entry.key_mark, entry.value.path,
                       "a param name must match [A-Za-z_][A-Za-z0-9_]*");
      continue;
    }
    const YAML::Node& value = entry.value.node;
    if (!value.IsScalar() || value.Scalar().empty()) {
      ctx.reader.Error(entry.value,
                       fmt::format("a param default must be a number or text, found {}",
                                   value.IsScalar() ? "empty text" : Describe(value)));
      continue;
    }
    RememberLoc(ctx, entry.value);  // for the planner's errors about a --set value
    std::optional<std::string> text = ctx.reader.Text(entry.value);  // length checked here
    if (!text) continue;
    if (text->find("${") != std::string::npos) {
      ctx.reader.Error(entry.value, "a param default may not reference other params (${...})");
      continue;
    }
    ctx.scenario.params.emplace_back(entry.key, *text);
    ctx.defaults[entry.key] = *text;
  }
}

void ReadIsolation(LoadContext& ctx, const Ref& ref) {
  std::vector<Ref> items;
  if (ref.node.IsSequence()) {
    std::optional<std::vector<Ref>> seq = ctx.reader.Seq(ref);
    if (!seq) return;
    items = std::move(*seq);
  } else {
    items.push_back(ref);
  }
  if (items.empty()) ctx.reader.Error(ref, "list at least one isolation level");
  for (const Ref& item : items) {
    std::optional<std::string> text = ctx.reader.Text(item);
    if (!text) continue;
    std::optional<IsolationLevel> level = ParseIsolation(*text);
    if (!level) {
      ctx.reader.Error(item, fmt::format("unknown isolation level '{}' (expected read uncommitted, "
                                         "read committed, repeatable read, serializable, or ru, "
                                         "rc, rr, ser)",
                                         *text));
    } else if (std::find(ctx.scenario.isolation.begin(), ctx.scenario.isolation.end(), *level) !=
               ctx.scenario.isolation.end()) {
      ctx.reader.Error(item, fmt::format("isolation level '{}' is listed twice", *text));
    } else if (!EngineRunsLevel(ctx.scenario.engine, *level)) {
      // Asked of the engine's traits: a level it does not have could only fail at its BEGIN.
      ctx.reader.Error(item,
                       fmt::format("{}: it cannot run at {} (list its levels only, or give {} its "
                                   "own list with an engine map)",
                                   EngineLevelsSentence(ctx.scenario.engine), IsolationName(*level),
                                   ctx.scenario.engine));
    } else {
      ctx.scenario.isolation.push_back(*level);
    }
  }
}

std::optional<std::string> ReadSql(LoadContext& ctx, const Ref& ref, bool allow_empty) {
  RememberLoc(ctx, ref);
  std::optional<std::string> sql = ctx.reader.Text(ref, allow_empty, limits::kMaxTextBytes);
  if (sql && !CheckReferences(ctx, ref, *sql, nullptr)) return std::nullopt;
  return sql;
}

void ReadScenario(LoadContext& ctx, const YAML::Node& root) {
  Ref top{root, root.Mark(), ""};
  std::optional<Fields> fields =
      ctx.reader.Map(top,
                     {"name", "title", "teaches", "tags", "engines", "params", "isolation", "setup",
                      "teardown", "reset", "sessions", "outcome", "expect", "order"},
                     {"name", "title", "teaches", "sessions"});
  if (!fields) return;
  Scenario& s = ctx.scenario;
  if (const Ref* ref = fields->Get("name")) {
    std::optional<std::string> name = ctx.reader.Name(*ref);
    if (name && !IsKebabName(*name)) {
      ctx.reader.Error(*ref, fmt::format("'{}' is not a kebab-case name (expected [a-z0-9-]+, "
                                         "e.g. guarded-cas-claim)",
                                         *name));
    }
    if (name) s.name = *name;
  }
  if (const Ref* ref = fields->Get("title"))
    s.title = TrimTrailing(ctx.reader.Text(*ref).value_or(""));
  if (const Ref* ref = fields->Get("teaches")) {
    s.teaches = TrimTrailing(ctx.reader.Text(*ref, false, limits::kMaxTextBytes).value_or(""));
  }
  if (const Ref* ref = fields->Get("tags")) {
    s.tags = ctx.reader.TextList(*ref, limits::kMaxTags, limits::kMaxNameBytes).value_or(s.tags);
  }
  if (const Ref* ref = fields->Get("params")) ReadParams(ctx, *ref);
  if (const Ref* ref = fields->Get("isolation")) ReadIsolation(ctx, *ref);
  // No list: the default levels that this engine has (SQLite: serializable only, once).
  if (s.isolation.empty()) s.isolation = DefaultLevelsOn(s.engine);
  if (const Ref* ref = fields->Get("setup")) s.setup = ReadSql(ctx, *ref, true).value_or("");
  if (const Ref* ref = fields->Get("teardown")) s.teardown = ReadSql(ctx, *ref, true).value_or("");
  if (const Ref* ref = fields->Get("reset")) s.reset = ReadSql(ctx, *ref, true).value_or("");
  if (const Ref* ref = fields->Get("sessions")) {
    ReadSessions(ctx, *ref);
    CheckSessionLinks(ctx);
  }
  if (const Ref* ref = fields->Get("outcome")) ReadOutcome(ctx, *ref);
  if (const Ref* ref = fields->Get("expect")) {
    ReadExpect(ctx, *ref);
  } else if (!ctx.reader.has_errors()) {  // after a typo such as `expectt:` that error says it all
    ReportNoExpect(ctx, top);
  }
  if (const Ref* ref = fields->Get("order")) ReadOrder(ctx, *ref);
}

}  // namespace

std::string SyntaxHint(const std::string& text, int line) {
  std::istringstream lines(text);
  std::string current;
  for (int n = 1; std::getline(lines, current) && n <= line; ++n) {
    if (n < line - 1) continue;
    size_t indent_end = current.find_first_not_of(" \t");
    if (current.substr(0, indent_end).find('\t') != std::string::npos) {
      return " (indent with spaces: YAML does not allow tabs there)";
    }
    // A plain ${param} inside { } or [ ], where braces are YAML syntax.
    size_t ref = current.find("${");
    size_t flow = current.find_first_of("{[");
    if (ref != std::string::npos && flow != std::string::npos && flow < ref) {
      return " (inside { } or [ ], quote a value that uses ${...}, e.g. \"${workers} - 1\")";
    }
  }
  return "";
}

void RememberLoc(LoadContext& ctx, const Ref& ref) {
  ctx.scenario.field_locs[ref.path] = ctx.reader.Loc(ref.mark);
}

std::optional<Expr> ReadExpr(LoadContext& ctx, const Ref& ref, NumberRule rule) {
  RememberLoc(ctx, ref);
  std::optional<std::string> text = ctx.reader.ExprText(ref);
  if (!text || !CheckReferences(ctx, ref, *text, nullptr)) return std::nullopt;
  Result<double> value = EvalWithRule(*text, ctx.defaults, rule);
  if (!value.ok()) {
    ctx.reader.Error(ref, value.status().message());
    return std::nullopt;
  }
  return *text;
}

bool CheckReferences(LoadContext& ctx, const Ref& ref, const std::string& text,
                     const std::vector<std::string>* captures) {
  bool ok = true;
  for (const std::string& name : ReferencedNames(text)) {
    if (ctx.reader.full()) return false;
    bool param = ctx.defaults.count(name) != 0;
    bool captured = captures != nullptr &&
                    std::find(captures->begin(), captures->end(), name) != captures->end();
    if (param && captured) {
      ctx.reader.Error(ref, fmt::format("${{{}}} is ambiguous: both a param and a capture of an "
                                        "earlier step; rename one of them",
                                        name));
      ok = false;
    }
    if (param || captured) continue;
    std::vector<std::string> params;
    for (const auto& [param, unused] : ctx.scenario.params) params.push_back(param);
    std::string message = fmt::format(
        "unknown reference ${{{}}}: not a declared param (params: {})", name, JoinNames(params));
    if (captures != nullptr) {
      message += fmt::format(
          " nor a capture of an earlier step in this session (captured so "
          "far: {})",
          JoinNames(*captures));
    }
    ctx.reader.Error(ref, message);
    ok = false;
  }
  return ok;
}

bool IsRoleName(const std::string& name) {
  if (name.empty() || !(name[0] >= 'a' && name[0] <= 'z')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool IsStepName(const std::string& name) {
  if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    unsigned char u = static_cast<unsigned char>(c);
    return u < 0x80 && (std::isalnum(u) || c == '_' || c == '-');
  });
}

}  // namespace internal

Result<Scenario> LoadScenarioText(const std::string& yaml_text, const std::string& file_name) {
  if (yaml_text.size() > limits::kMaxFileBytes) {
    return Status::Usage(
        fmt::format("{}:1:1: the file has {} bytes; a scenario file may have at "
                    "most {} (256 KiB)",
                    file_name, yaml_text.size(), limits::kMaxFileBytes));
  }
  if (std::optional<internal::NestingProblem> deep = internal::CheckYamlNesting(yaml_text)) {
    return Status::Usage(
        fmt::format("{}:{}:{}: {}", file_name, deep->line, deep->column, deep->message));
  }
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(yaml_text);
  } catch (const YAML::Exception& e) {
    int line = e.mark.is_null() ? 1 : e.mark.line + 1;
    int column = e.mark.is_null() ? 1 : e.mark.column + 1;
    return Status::Usage(fmt::format("{}:{}:{}: invalid YAML: {}{}", file_name, line, column,
                                     internal::Clip(e.msg, internal::kMaxMessageBytes),
                                     internal::SyntaxHint(yaml_text, line)));
  }
  if (documents.empty() || documents[0].IsNull()) {
    return Status::Usage(fmt::format(
        "{}:1:1: the file is empty (expected a mapping with name, title, teaches and sessions)",
        file_name));
  }
  for (size_t i = 1; i < documents.size(); ++i) {
    if (documents[i].IsNull()) continue;  // a trailing "---" is harmless
    const YAML::Mark mark = documents[i].Mark();
    return Status::Usage(
        fmt::format("{}:{}:{}: one scenario per file (found a second YAML document)", file_name,
                    mark.line + 1, mark.column + 1));
  }
  // The file is read once per engine it lists, each time with its engine maps resolved for that
  // engine; an error in a part they share is reported once (YamlReader drops repeats).
  internal::YamlReader reader(file_name);
  std::vector<std::string> engines = internal::ReadEngines(reader, documents[0]);
  std::vector<Scenario> read(engines.size());
  for (size_t i = 0; i < engines.size(); ++i) {
    Scenario& scenario = read[i];
    internal::LoadContext ctx(reader, scenario);
    scenario.loc = SourceLoc{file_name, 1, 1};
    scenario.engines = engines;
    scenario.engine = engines[i];
    try {
      YAML::Node root = i == 0 ? documents[0] : YAML::Load(yaml_text);
      internal::ResolveEngineMaps(reader, root, engines[i], engines);
      internal::ReadScenario(ctx, root);
    } catch (const YAML::Exception& e) {  // broken invariant in the loader; still a file error
      reader.Error(e.mark, "", fmt::format("cannot read: {}", e.msg));
    }
  }
  if (reader.has_errors()) return reader.ToStatus();
  Scenario scenario = std::move(read[0]);
  for (size_t i = 1; i < engines.size(); ++i) {
    scenario.variants[engines[i]] = std::make_shared<const Scenario>(std::move(read[i]));
  }
  return scenario;
}

Result<Scenario> LoadScenarioFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    return Status::Usage(fmt::format("{}: cannot open scenario file: {}", path,
                                     err != 0 ? std::strerror(err) : "unknown reason"));
  }
  // Reads at most one byte more than the limit: a huge file (or /dev/zero) costs nothing.
  std::string text(limits::kMaxFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return Status::Usage(fmt::format("{}: cannot read scenario file", path));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > limits::kMaxFileBytes) {
    std::error_code ec;
    uintmax_t size = std::filesystem::file_size(path, ec);
    return Status::Usage(fmt::format(
        "{}:1:1: the file has {} bytes; a scenario file may have at most {} (256 KiB)", path,
        ec ? fmt::format("more than {}", limits::kMaxFileBytes) : std::to_string(size),
        limits::kMaxFileBytes));
  }
  // A NUL byte is refused where it is (docs/scenario-format.md "Limits"): YAML would keep it in a
  // string, and libpq would cut a statement there.
  if (size_t nul = text.find('\0'); nul != std::string::npos) {
    size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + nul, '\n'));
    size_t line_start = text.rfind('\n', nul == 0 ? 0 : nul - 1);
    size_t column = line_start == std::string::npos || nul == 0 ? nul + 1 : nul - line_start;
    return Status::Usage(fmt::format(
        "{}:{}:{}: a NUL byte (0x00): a scenario file is text, and no statement may hold one", path,
        line, column));
  }
  return LoadScenarioText(text, path);
}

}  // namespace racelab
