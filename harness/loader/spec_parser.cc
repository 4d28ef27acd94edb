#include "harness/loader/spec_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "harness/loader/limits.h"
#include "harness/loader/spec_lexer.h"

namespace racelab {
namespace {

using spec_internal::Describe;
using spec_internal::SpecLexer;
using spec_internal::Tok;
using spec_internal::Token;

// Recursive descent over the grammar in spec_parser.h, one token of look-ahead.
class Parser {
 public:
  Parser(const std::string& text, const std::string& file) : lexer_(text, file), file_(file) {}

  Result<IsolationSpec> Parse() {
    IsolationSpec spec;
    spec.loc = SourceLoc{file_, 0, 0};
    if (Status s = Shift(); !s.ok()) return s;
    while (look_.kind == Tok::kSetup) {
      if (spec.setup.size() == limits::kMaxListItems) {
        return ErrorAt(
            look_,
            fmt::format("setup: more than {0} setup blocks; at most {0} are allowed in one file",
                        limits::kMaxListItems));
      }
      auto sql = KeywordSql("setup");
      if (!sql.ok()) return sql.status();
      spec.setup.push_back(*sql);
    }
    if (look_.kind == Tok::kTeardown) {
      auto sql = KeywordSql("teardown");
      if (!sql.ok()) return sql.status();
      spec.teardown = *sql;
    }
    if (look_.kind != Tok::kSession) {
      return Unexpected(spec.setup.empty() && !spec.teardown
                            ? "'setup', 'teardown' or 'session'"
                            : "'session' (setup and teardown come first, "
                              "at most one teardown)");
    }
    while (look_.kind == Tok::kSession) {
      if (spec.sessions.size() == limits::kMaxRoles) {
        return ErrorAt(
            look_,
            fmt::format("session: more than {0} sessions; at most {0} are allowed in one file",
                        limits::kMaxRoles));
      }
      auto session = ParseSession();
      if (!session.ok()) return session.status();
      spec.sessions.push_back(std::move(*session));
    }
    while (look_.kind == Tok::kPermutation) {
      if (spec.permutations.size() == limits::kMaxSpecPermutations) {
        return ErrorAt(
            look_,
            fmt::format("permutation: more than {0} permutation lines; at most {0} are allowed "
                        "in one file",
                        limits::kMaxSpecPermutations));
      }
      auto perm = ParsePermutation();
      if (!perm.ok()) return perm.status();
      spec.permutations.push_back(std::move(*perm));
    }
    if (look_.kind != Tok::kEnd)
      return Unexpected("'session', 'permutation' or the end of the file");
    return spec;
  }

  // The text is one permutation line and nothing else.
  Result<SpecPermutation> ParseOnePermutation() {
    if (Status s = Shift(); !s.ok()) return s;
    if (look_.kind != Tok::kPermutation) return Unexpected("'permutation'");
    auto perm = ParsePermutation();
    if (!perm.ok()) return perm.status();
    if (look_.kind != Tok::kEnd) return Unexpected("a step name or the end");
    return perm;
  }

 private:
  Status Shift() {
    auto tok = lexer_.Next();
    if (!tok.ok()) return tok.status();
    look_ = std::move(*tok);
    return Status::Ok();
  }
  SourceLoc Loc(const Token& t) const { return SourceLoc{file_, t.line, t.column}; }
  Status ErrorAt(const Token& t, const std::string& what) const {
    return Status::Usage(fmt::format("{}:{}:{}: {}", file_, t.line, t.column, what));
  }
  Status Unexpected(const std::string& expected) const {
    return ErrorAt(look_, fmt::format("expected {}, found {}", expected, Describe(look_)));
  }

  // `look_` is the keyword; reads "KEYWORD { SQL }".
  Result<SpecSql> KeywordSql(const char* keyword) {
    if (Status s = Shift(); !s.ok()) return s;
    if (look_.kind != Tok::kSql)
      return Unexpected(fmt::format("a {{ SQL }} block after '{}'", keyword));
    if (Status s = CheckSql(keyword); !s.ok()) return s;
    SpecSql sql{look_.text, Loc(look_)};
    if (Status s = Shift(); !s.ok()) return s;
    return sql;
  }

  // `look_` is a { SQL } block of `what` ("setup", "step \"s1\""): at most limits::kMaxTextBytes.
  Status CheckSql(const std::string& what) const {
    if (look_.text.size() <= limits::kMaxTextBytes) return Status::Ok();
    return ErrorAt(look_, fmt::format("{}: its SQL is {} bytes long; at most {} are allowed", what,
                                      look_.text.size(), limits::kMaxTextBytes));
  }

  // `look_` is a name token of `what` ("session name"): at most limits::kMaxNameBytes, shown cut.
  Status CheckName(const char* what) const {
    if (look_.text.size() <= limits::kMaxNameBytes) return Status::Ok();
    return ErrorAt(look_, fmt::format("{} \"{}…\" is {} bytes long; at most {} are allowed", what,
                                      look_.text.substr(0, limits::kMaxNameBytes),
                                      look_.text.size(), limits::kMaxNameBytes));
  }

  Result<std::string> Name(const char* what) {
    if (look_.kind != Tok::kName) {
      std::string hint =
          look_.text.empty() || look_.kind == Tok::kInteger || look_.kind == Tok::kSql
              ? ""
              : fmt::format(" (to use the keyword '{}' as a name, quote it: \"{}\")", look_.text,
                            look_.text);
      return Unexpected(fmt::format("{}{}", what, hint));
    }
    // "a session name" -> "session name"
    if (Status s = CheckName(std::strncmp(what, "a ", 2) == 0 ? what + 2 : what); !s.ok()) return s;
    std::string name = look_.text;
    if (Status s = Shift(); !s.ok()) return s;
    return name;
  }

  Result<SpecSession> ParseSession() {
    SpecSession session;
    session.loc = Loc(look_);
    if (Status s = Shift(); !s.ok()) return s;
    auto name = Name("a session name");
    if (!name.ok()) return name.status();
    session.name = *name;
    if (look_.kind == Tok::kSetup) {
      auto sql = KeywordSql("setup");
      if (!sql.ok()) return sql.status();
      session.setup = *sql;
    }
    if (look_.kind != Tok::kStep) {
      return Unexpected(fmt::format("'step' (session \"{}\" needs at least one step{})",
                                    session.name,
                                    session.setup ? "" : "; its 'setup' comes first"));
    }
    while (look_.kind == Tok::kStep) {
      if (session.steps.size() == limits::kMaxStepsPerSession) {
        return ErrorAt(
            look_,
            fmt::format("session \"{0}\": more than {1} steps; at most {1} are allowed in one "
                        "session",
                        session.name, limits::kMaxStepsPerSession));
      }
      SpecStep step;
      step.loc = Loc(look_);
      if (Status s = Shift(); !s.ok()) return s;
      auto step_name = Name("a step name");
      if (!step_name.ok()) return step_name.status();
      step.name = *step_name;
      if (look_.kind != Tok::kSql)
        return Unexpected(fmt::format("a {{ SQL }} block for step \"{}\"", step.name));
      if (Status s = CheckSql(fmt::format("step \"{}\"", step.name)); !s.ok()) return s;
      step.sql = SpecSql{look_.text, Loc(look_)};
      if (Status s = Shift(); !s.ok()) return s;
      session.steps.push_back(std::move(step));
    }
    if (look_.kind == Tok::kTeardown) {
      auto sql = KeywordSql("teardown");
      if (!sql.ok()) return sql.status();
      session.teardown = *sql;
    }
    return session;
  }

  Result<SpecPermutation> ParsePermutation() {
    SpecPermutation perm;
    perm.loc = Loc(look_);
    if (Status s = Shift(); !s.ok()) return s;
    if (look_.kind != Tok::kName) return Unexpected("a step name after 'permutation'");
    while (look_.kind == Tok::kName) {
      if (perm.steps.size() == limits::kMaxSpecPermutationSteps) {
        return ErrorAt(
            Token{Tok::kPermutation, "", perm.loc.line, perm.loc.column},
            fmt::format(
                "permutation: more than {0} steps; at most {0} are allowed in one permutation",
                limits::kMaxSpecPermutationSteps));
      }
      if (Status s = CheckName("permutation step name"); !s.ok()) return s;
      SpecPermutationStep pstep;
      pstep.loc = Loc(look_);
      pstep.name = look_.text;
      if (Status s = Shift(); !s.ok()) return s;
      if (look_.kind == Tok::kLParen) {
        if (Status s = Shift(); !s.ok()) return s;
        for (;;) {
          if (pstep.blockers.size() == limits::kMaxListItems) {
            return ErrorAt(
                look_,
                fmt::format("permutation step \"{0}\": more than {1} markers; at most {1} are "
                            "allowed on one step",
                            pstep.name, limits::kMaxListItems));
          }
          auto marker = ParseMarker();
          if (!marker.ok()) return marker.status();
          pstep.blockers.push_back(std::move(*marker));
          if (look_.kind == Tok::kComma) {
            if (Status s = Shift(); !s.ok()) return s;
            continue;
          }
          if (look_.kind != Tok::kRParen)
            return Unexpected("',' or ')' in the markers of step \"" + pstep.name + "\"");
          if (Status s = Shift(); !s.ok()) return s;
          break;
        }
      }
      perm.steps.push_back(std::move(pstep));
    }
    return perm;
  }

  Result<SpecBlocker> ParseMarker() {
    SpecBlocker b;
    b.loc = Loc(look_);
    if (look_.kind == Tok::kStar) {
      b.kind = SpecBlocker::Kind::kOnce;
      if (Status s = Shift(); !s.ok()) return s;
      return b;
    }
    if (look_.kind != Tok::kName)
      return Unexpected("a marker: '*', a step name, or STEP notices N");
    if (Status s = CheckName("marker step name"); !s.ok()) return s;
    b.kind = SpecBlocker::Kind::kStep;
    b.step = look_.text;
    if (Status s = Shift(); !s.ok()) return s;
    if (look_.kind == Tok::kNotices) {
      if (Status s = Shift(); !s.ok()) return s;
      if (look_.kind != Tok::kInteger) return Unexpected("a number after 'notices'");
      if (look_.text.size() > 9)
        return ErrorAt(look_, "notices: number too large (at most 999999999)");
      b.kind = SpecBlocker::Kind::kNotices;
      b.notices = std::stoi(look_.text);
      if (Status s = Shift(); !s.ok()) return s;
    }
    return b;
  }

  SpecLexer lexer_;
  std::string file_;
  Token look_;
};

Status FileTooLarge(const std::string& file, const std::string& size) {
  return Status::Usage(
      fmt::format("{}:1:1: the file has {} bytes; a spec file may have at most {} (256 KiB)", file,
                  size, limits::kMaxFileBytes));
}

Status LocError(const SourceLoc& loc, const std::string& what) {
  return Status::Usage(fmt::format("{}:{}:{}: {}", loc.file, loc.line, loc.column, what));
}

// isolationtester's check_testspec: unique step names, permutation steps and markers that exist, no
// marker on a step of the marked step's own session; unused steps are warnings.
Status Check(IsolationSpec* spec) {
  std::map<std::string, std::pair<size_t, const SpecStep*>> steps;  // name -> (session, step)
  std::map<std::string, size_t> sessions;
  for (size_t i = 0; i < spec->sessions.size(); ++i) {
    const SpecSession& session = spec->sessions[i];
    if (auto [it, fresh] = sessions.emplace(session.name, i); !fresh) {
      return LocError(session.loc, fmt::format("duplicate session name \"{}\" (first at line {})",
                                               session.name, spec->sessions[it->second].loc.line));
    }
    for (const SpecStep& step : session.steps) {
      if (auto [it, fresh] = steps.emplace(step.name, std::make_pair(i, &step)); !fresh) {
        return LocError(step.loc,
                        fmt::format("duplicate step name \"{}\" (first at line {}; step names are "
                                    "unique in the whole file)",
                                    step.name, it->second.second->loc.line));
      }
    }
  }
  std::map<std::string, bool> used;
  for (const SpecPermutation& perm : spec->permutations) {
    for (const SpecPermutationStep& pstep : perm.steps) {
      auto it = steps.find(pstep.name);
      if (it == steps.end())
        return LocError(pstep.loc, fmt::format("permutation: undefined step \"{}\"", pstep.name));
      used[pstep.name] = true;
    }
    for (const SpecPermutationStep& pstep : perm.steps) {
      size_t own_session = steps.at(pstep.name).first;
      for (const SpecBlocker& b : pstep.blockers) {
        if (b.kind == SpecBlocker::Kind::kOnce) continue;
        bool in_permutation = false;
        for (const SpecPermutationStep& other : perm.steps) in_permutation |= other.name == b.step;
        if (!in_permutation) {
          return LocError(
              b.loc, fmt::format("permutation step \"{}\": marker names step \"{}\", which this "
                                 "permutation does not run",
                                 pstep.name, b.step));
        }
        if (steps.at(b.step).first == own_session) {
          return LocError(
              b.loc,
              fmt::format("permutation step \"{}\" cannot wait for \"{}\", a step of its own "
                          "session \"{}\"",
                          pstep.name, b.step, spec->sessions[own_session].name));
        }
        if (b.kind == SpecBlocker::Kind::kNotices && b.notices < 1) {
          return LocError(b.loc, fmt::format("permutation step \"{}\": notices must be at least 1",
                                             pstep.name));
        }
      }
    }
  }
  if (!spec->permutations.empty()) {
    for (const auto& [name, where] : steps) {
      if (!used.count(name)) {
        spec->warnings.push_back(fmt::format("{}:{}:{}: unused step name: {}",
                                             where.second->loc.file, where.second->loc.line,
                                             where.second->loc.column, name));
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Result<IsolationSpec> ParseSpecText(const std::string& text, const std::string& file_name) {
  if (text.size() > limits::kMaxFileBytes)
    return FileTooLarge(file_name, std::to_string(text.size()));
  // A NUL byte is refused where it is, as in a scenario file: libpq would cut a statement there.
  if (size_t nul = text.find('\0'); nul != std::string::npos) {
    const size_t line = 1 + static_cast<size_t>(std::count(
                                text.begin(), text.begin() + static_cast<long>(nul), '\n'));
    const size_t line_start = nul == 0 ? std::string::npos : text.rfind('\n', nul - 1);
    const size_t column = line_start == std::string::npos ? nul + 1 : nul - line_start;
    return Status::Usage(fmt::format(
        "{}:{}:{}: a NUL byte (0x00): a spec file is text, and no statement may hold one",
        file_name, line, column));
  }
  Parser parser(text, file_name);
  auto spec = parser.Parse();
  if (!spec.ok()) return spec;
  if (Status s = Check(&*spec); !s.ok()) return s;
  return spec;
}

Result<IsolationSpec> LoadSpecFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Usage(fmt::format("{}: cannot read the spec file", path));
  // Reads at most one byte more than the limit: a huge file (or /dev/zero) costs nothing.
  std::string text(limits::kMaxFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return Status::Usage(fmt::format("{}: cannot read the spec file", path));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > limits::kMaxFileBytes) {
    std::error_code ec;
    const uintmax_t size = std::filesystem::file_size(path, ec);
    return FileTooLarge(
        path, ec ? fmt::format("more than {}", limits::kMaxFileBytes) : std::to_string(size));
  }
  return ParseSpecText(text, path);
}

Result<SpecPermutation> ParseSpecPermutationSteps(const std::string& text,
                                                  const std::string& what) {
  const std::string line = "permutation " + text;  // the lexer keeps a reference to it
  Parser parser(line, what);
  return parser.ParseOnePermutation();
}

bool IsSpecPath(const std::string& path) {
  return path.size() > 5 && path.compare(path.size() - 5, 5, ".spec") == 0;
}

}  // namespace racelab
