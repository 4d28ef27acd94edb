// The steps as step mode names them (step_session.h): what each sends (DescribeSteps) and
// --permutation "a.x b.y …" as an instructor's order (ParsePermutation).
#include <fmt/format.h>

#include <sstream>

#include "harness/model/step_kind.h"
#include "harness/step/step_session.h"

namespace racelab::step {

std::vector<std::vector<std::string>> DescribeSteps(const PlanItem& item, const Engine& engine) {
  std::vector<std::vector<std::string>> out;
  for (const PlannedSession& s : item.sessions) {
    std::vector<std::string>& mine = out.emplace_back();
    for (const PlannedStep& st : s.steps) {
      switch (st.kind) {
        case StepKind::kBegin:
          mine.push_back(engine.BeginSql(st.isolation.value_or(item.isolation)));
          break;
        case StepKind::kSql:
          mine.push_back(OneLine(st.sql));
          break;
        case StepKind::kCommit:
          mine.push_back("COMMIT");
          break;
        case StepKind::kRollback:
          mine.push_back("ROLLBACK");
          break;
        case StepKind::kBarrier:
          mine.push_back("barrier " + st.barrier);
          break;
        case StepKind::kSleep:
          mine.push_back(fmt::format("sleep {} ms", st.sleep_ms));
          break;
        case StepKind::kAwaitBlocked:
          mine.push_back("await_blocked " + st.target);
          break;
        case StepKind::kAwaitEnded:
          mine.push_back("await_ended " + st.target);
          break;
        case StepKind::kTerminate:
          mine.push_back("terminate " + st.target);
          break;
        case StepKind::kProbe:
          mine.push_back("probe: " + OneLine(st.sql));
          break;
        case StepKind::kProgram:  // a stretch of an exec session's program, to its pause point
          mine.push_back(st.barrier.empty() ? "program " + st.name
                                            : "program to pause " + st.barrier);
          break;
      }
    }
  }
  return out;
}

Result<std::vector<InstructorStep>> ParsePermutation(const PlanItem& item,
                                                     const std::string& text) {
  std::vector<InstructorStep> out;
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    // A label may hold a dot itself ("worker.2"): the step's name is after the last one.
    const size_t dot = word.rfind('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == word.size()) {
      return Status::Usage(
          fmt::format("--permutation: '{}' is not SESSION.STEP (e.g. a.claim)", word));
    }
    const std::string label = word.substr(0, dot), name = word.substr(dot + 1);
    int session = -1;
    std::vector<std::string> labels;
    for (size_t s = 0; s < item.sessions.size(); ++s) {
      labels.push_back(item.sessions[s].label);
      if (item.sessions[s].label == label) session = static_cast<int>(s);
    }
    if (session < 0) {
      return Status::Usage(fmt::format("--permutation: no session '{}' in {} (its sessions: {})",
                                       label, item.scenario, fmt::join(labels, ", ")));
    }
    const auto& steps = item.sessions[static_cast<size_t>(session)].steps;
    std::vector<std::string> names;
    size_t found = steps.size();
    for (size_t k = 0; k < steps.size(); ++k) {
      if (!InstructorGate::Holds(steps[k])) continue;
      names.push_back(steps[k].name);
      if (steps[k].name == name && found == steps.size()) found = k;
    }
    if (found == steps.size()) {
      return Status::Usage(
          fmt::format("--permutation: session {} has no step '{}' that step mode holds (its "
                      "steps: {}; barriers, sleeps and awaits run by themselves)",
                      label, name, fmt::join(names, ", ")));
    }
    for (const InstructorStep& e : out) {
      if (e.session_index == session && e.step_index == found)
        return Status::Usage(fmt::format("--permutation: {} is listed twice", word));
    }
    out.push_back({session, found});
  }
  if (out.empty()) return Status::Usage("--permutation: no step given (e.g. \"a.begin b.begin\")");
  return out;
}

}  // namespace racelab::step
