// `exec:` and `pauses:` of a session (docs/race-your-own-code.md): a program run instead of steps,
// found when the file loads — a program or interpreter that cannot be found is an error of the
// file (exit 2) naming it, not a fault of a trial.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "harness/loader/limits.h"
#include "harness/loader/loader_context.h"

namespace racelab::internal {
namespace {

namespace fs = std::filesystem;

bool IsExecutableFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

// `name` found: a path with '/' taken from `dir` (the scenario file's folder) when relative; a bare
// name looked up on PATH. "" with *why when it cannot be found or run.
std::string FindProgram(const std::string& name, const fs::path& dir, std::string* why) {
  if (name.find('/') != std::string::npos) {
    fs::path p = (fs::path(name).is_absolute() ? fs::path(name) : dir / name).lexically_normal();
    std::error_code ec;
    if (!fs::exists(p, ec)) {
      *why = fmt::format("program '{}' not found ({} does not exist)", name, p.string());
      return "";
    }
    if (!IsExecutableFile(p)) {
      *why = fmt::format(
          "program '{}' is not an executable file ({}: give it the x bit, or run it with its "
          "interpreter, e.g. exec: [/usr/bin/python3, {}])",
          name, p.string(), name);
      return "";
    }
    return fs::absolute(p).lexically_normal().string();
  }
  const char* env = std::getenv("PATH");
  const std::string path = env != nullptr ? env : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    const std::string folder = path.substr(start, end - start);
    fs::path p = fs::path(folder.empty() ? "." : folder) / name;
    if (IsExecutableFile(p)) return fs::absolute(p).lexically_normal().string();
    start = end + 1;
  }
  *why = fmt::format(
      "program '{}' not found on PATH ({}); install it, or give its path (exec: [/usr/bin/{}, …])",
      name, path, name);
  return "";
}

// A script's `#!` interpreter, when it names an absolute path that does not exist: the error; else
// "". (`#!/usr/bin/env python3` finds its interpreter when it runs.)
std::string MissingInterpreter(const std::string& program) {
  std::ifstream in(program, std::ios::binary);
  char head[2] = {0, 0};
  if (!in.read(head, 2) || head[0] != '#' || head[1] != '!') return "";
  std::string line;
  std::getline(in, line);
  size_t b = line.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t e = line.find_first_of(" \t\r", b);
  const std::string interpreter = line.substr(b, e == std::string::npos ? e : e - b);
  if (interpreter.empty() || interpreter[0] != '/' || IsExecutableFile(interpreter)) return "";
  return fmt::format("program '{}' names the interpreter {} (its #! line), which is not installed",
                     program, interpreter);
}

}  // namespace

void ReadExec(LoadContext& ctx, const Fields& fields, SessionSpec& session) {
  const Ref* exec = fields.Get("exec");
  const Ref* pauses = fields.Get("pauses");
  const Ref* timeout = fields.Get("timeout_ms");
  if (exec == nullptr) {
    if (pauses != nullptr)
      ctx.reader.Error(*pauses, "pauses are the pause points of a program: give the session exec:");
    if (timeout != nullptr)
      ctx.reader.Error(*timeout,
                       "a session's timeout_ms is for a program (exec:); a step has its "
                       "own timeout_ms");
    return;
  }
  Expr stretch_ms;  // each stretch's deadline; "" = the run's statement deadline
  if (timeout != nullptr) stretch_ms = ReadExpr(ctx, *timeout, NumberRule::kTimeoutMs).value_or("");
  if (fields.Get("steps") != nullptr) {
    ctx.reader.Error(*exec, "a session runs either steps or a program (exec): not both");
    return;
  }
  for (const char* key : {"retry"}) {
    if (const Ref* r = fields.Get(key))
      ctx.reader.Error(*r, fmt::format("'{}' is for steps: a program (exec) retries itself", key));
  }
  session.exec_loc = ctx.reader.Loc(exec->mark);
  auto argv = ctx.reader.TextItems(*exec, limits::kMaxListItems, limits::kMaxTextBytes);
  if (!argv) return;
  if (argv->empty() || argv->front().first.empty()) {
    ctx.reader.Error(*exec,
                     "list the program and its arguments, e.g. exec: [/usr/bin/python3, "
                     "worker.py]");
    return;
  }
  for (const auto& [arg, ref] : *argv) {
    if (!CheckReferences(ctx, ref, arg, nullptr)) return;
    session.exec.push_back(arg);
  }
  const fs::path file(ctx.reader.file());
  std::error_code ec;
  fs::path dir = fs::absolute(file.has_parent_path() ? file.parent_path() : fs::path("."), ec);
  dir = dir.lexically_normal();
  if (dir.has_relative_path() && !dir.has_filename()) dir = dir.parent_path();  // "/a/b/" -> "/a/b"
  session.exec_dir = dir.string();
  std::string why;
  session.program = FindProgram(session.exec.front(), dir, &why);
  if (session.program.empty()) {
    ctx.reader.Error(argv->front().second, why);
    return;
  }
  if (std::string missing = MissingInterpreter(session.program); !missing.empty())
    ctx.reader.Error(argv->front().second, missing);

  std::vector<std::pair<std::string, Ref>> points;
  if (pauses != nullptr) {
    auto items = ctx.reader.TextItems(*pauses, limits::kMaxListItems, limits::kMaxNameBytes);
    if (items) points = std::move(*items);
  }
  Step start;
  start.kind = StepKind::kProgram;
  start.name = "start";
  start.loc = session.exec_loc;
  start.timeout_ms = stretch_ms;
  session.steps.push_back(start);
  for (const auto& [name, ref] : points) {
    if (!IsRoleName(name) || name == "start") {
      ctx.reader.Error(ref, fmt::format("'{}' is not a pause point name (expected [a-z][a-z0-9_]*, "
                                        "not 'start', e.g. after_read)",
                                        name));
      continue;
    }
    bool twice = false;
    for (const std::string& p : session.pauses) twice = twice || p == name;
    if (twice) {
      ctx.reader.Error(ref, fmt::format("pause point '{}' is listed twice", name));
      continue;
    }
    session.pauses.push_back(name);
    Step step;
    step.kind = StepKind::kProgram;
    step.name = name;
    step.barrier = name;  // met by every instance that lists it (the planner drops it when ordered)
    step.loc = ctx.reader.Loc(ref.mark);
    step.timeout_ms = stretch_ms;
    session.steps.push_back(step);
  }
}

}  // namespace racelab::internal
