#include "harness/loader/order_planner.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

namespace racelab {

std::string EntryName(const OrderEntry& e) {
  std::string name = e.session + "." + e.step;
  std::vector<std::string> markers;
  if (e.once) markers.push_back("*");
  for (const auto& [session, step] : e.after) markers.push_back(session + "." + step);
  if (!markers.empty()) name += fmt::format("({})", fmt::join(markers, ", "));
  return name;
}

std::string PermutationName(const Permutation& perm) {
  std::string name;
  for (const OrderEntry& e : perm.steps) name += (name.empty() ? "" : " ") + EntryName(e);
  return name;
}

Status ApplyPermutation(const Permutation& perm, PlanItem* item) {
  std::vector<std::vector<PlannedStep>> steps(item->sessions.size());
  auto session_of = [&](const std::string& role) -> int {
    for (size_t i = 0; i < item->sessions.size(); ++i) {
      if (item->sessions[i].role == role) return static_cast<int>(i);
    }
    return -1;
  };
  // Per session, the markers `(other)` of its latest entry: its next entry waits for them.
  std::vector<std::vector<std::pair<std::string, std::string>>> pending(item->sessions.size());
  int prev_session = -1;
  for (size_t k = 0; k < perm.steps.size(); ++k) {
    const OrderEntry& entry = perm.steps[k];
    const int s = session_of(entry.session);
    if (s < 0 ||
        std::count_if(item->sessions.begin(), item->sessions.end(),
                      [&](const PlannedSession& p) { return p.role == entry.session; }) != 1) {
      return Status::Usage(
          fmt::format("{}:{}:{}: order: session '{}' must have exactly one instance (count 1)",
                      item->file, entry.loc.line, entry.loc.column, entry.session));
    }
    const auto& planned = item->sessions[static_cast<size_t>(s)].steps;
    auto it = std::find_if(planned.begin(), planned.end(),
                           [&](const PlannedStep& p) { return p.name == entry.step; });
    if (it == planned.end()) {  // the loader checked the names: a broken invariant
      return Status::Internal(
          fmt::format("order: no step '{}' in session '{}'", entry.step, entry.session));
    }
    PlannedStep step = *it;
    step.order_entry = static_cast<int>(k);
    if (step.kind == StepKind::kProgram) step.barrier.clear();  // the order releases the point
    // A hand-over: this step waits for the one before it, another session's, to end or wait.
    if (prev_session >= 0 && prev_session != s) step.await_entry = static_cast<int>(k) - 1;
    // isolationtester launches a session's step only once its previous step is reported complete,
    // which a marker `(other)` delays until no earlier entry of `other` still runs.
    for (const auto& [role, name] : pending[static_cast<size_t>(s)]) {
      for (size_t e = 0; e < k; ++e) {
        if (perm.steps[e].session == role && perm.steps[e].step == name)
          step.await_ended.push_back(static_cast<int>(e));
      }
    }
    pending[static_cast<size_t>(s)] = entry.after;
    item->order_entries.push_back(PlannedOrderEntry{entry.session, entry.step, entry.once});
    steps[static_cast<size_t>(s)].push_back(std::move(step));
    prev_session = s;
  }
  for (size_t i = 0; i < item->sessions.size(); ++i) {
    // A program cannot skip a pause point nor pass one twice: an exec session's stretches are each
    // listed once, in its order.
    const PlannedSession& session = item->sessions[i];
    if (session.exec.empty()) continue;
    std::vector<std::string> want, got;
    for (const PlannedStep& p : session.steps) want.push_back(p.name);
    for (const PlannedStep& p : steps[i]) got.push_back(p.name);
    if (want != got) {
      return Status::Usage(fmt::format(
          "{}:{}:{}: order: session '{}' runs a program: list each of its steps once, in its order "
          "({}), not {}",
          item->file, perm.loc.line, perm.loc.column, session.role, fmt::join(want, ", "),
          got.empty() ? "none" : fmt::format("{}", fmt::join(got, ", "))));
    }
  }
  for (size_t i = 0; i < item->sessions.size(); ++i) item->sessions[i].steps = std::move(steps[i]);
  item->params.emplace_back(kOrderParam, PermutationName(perm));
  return Status::Ok();
}

namespace {

// An ordered item's PermutationName (its param `order`).
std::string OrderName(const PlanItem& item) {
  for (const auto& [name, value] : item.params) {
    if (name == kOrderParam) return value;
  }
  return "";
}

// "FILE:LINE:COL: order[i]: NAME (--permutation i+1)": where a permutation is written and how to
// select it.
std::string PermutationLine(const PlanItem& item) {
  return fmt::format("{}:{}:{}: order[{}]: {} (--permutation {})", item.file,
                     item.permutation_loc.line, item.permutation_loc.column, item.permutation - 1,
                     OrderName(item), item.permutation);
}

// One ordered scenario's permutations, each once (a scenario runs on several levels and engines),
// by number.
struct ScenarioPermutations {
  std::string scenario;
  std::map<int, std::string> kept, skipped;  // number -> PermutationLine
};

}  // namespace

Status KeepPermutations(const std::vector<std::string>& only, std::vector<PlanItem>* items,
                        std::vector<std::string>* notes) {
  if (only.empty()) return Status::Ok();
  auto wanted = [&](const PlanItem& item) {
    const std::string name = OrderName(item);
    return std::any_of(only.begin(), only.end(), [&](const std::string& o) {
      return o == name || o == std::to_string(item.permutation);
    });
  };
  std::vector<ScenarioPermutations> ordered;  // in plan order
  std::vector<std::string> unordered;         // scenarios without order:, in plan order
  for (const PlanItem& item : *items) {
    if (item.permutation == 0) {
      if (std::find(unordered.begin(), unordered.end(), item.scenario) == unordered.end()) {
        unordered.push_back(item.scenario);
      }
      continue;
    }
    auto at = std::find_if(ordered.begin(), ordered.end(), [&](const ScenarioPermutations& s) {
      return s.scenario == item.scenario;
    });
    if (at == ordered.end())
      at = ordered.insert(ordered.end(), ScenarioPermutations{item.scenario, {}, {}});
    (wanted(item) ? at->kept : at->skipped).emplace(item.permutation, PermutationLine(item));
  }
  if (ordered.empty())
    return Status::Usage("--permutation: no selected scenario has order: (permutations)");
  const std::string asked = fmt::format("--permutation {}", fmt::join(only, ", "));
  auto lines = [](const std::map<int, std::string>& numbered) {
    std::vector<std::string> out;
    for (const auto& [number, line] : numbered) out.push_back(line);
    return out;
  };
  const bool matched = std::any_of(ordered.begin(), ordered.end(),
                                   [](const ScenarioPermutations& s) { return !s.kept.empty(); });
  if (!matched) {
    // Every ordered scenario's permutations, where each is written.
    std::string message = fmt::format(
        "{}: no permutation matches (a number from 1, or the steps as the order "
        "param writes them); ",
        asked);
    for (size_t i = 0; i < ordered.size(); ++i) {
      message += fmt::format("{}scenario {}'s are:\n  {}", i == 0 ? "" : "\n", ordered[i].scenario,
                             fmt::join(lines(ordered[i].skipped), "\n  "));
    }
    return Status::Usage(message);
  }
  if (notes != nullptr) {
    for (const ScenarioPermutations& s : ordered) {
      const size_t all = s.kept.size() + s.skipped.size();
      if (s.kept.empty()) {
        notes->push_back(fmt::format(
            "{}: scenario {} skipped: none of its {} permutation{} matches:\n  {}", asked,
            s.scenario, all, all == 1 ? "" : "s", fmt::join(lines(s.skipped), "\n  ")));
        continue;
      }
      std::string note =
          fmt::format("{}: scenario {} runs {} of its {} permutation{}:\n  {}", asked, s.scenario,
                      s.kept.size(), all, all == 1 ? "" : "s", fmt::join(lines(s.kept), "\n  "));
      if (!s.skipped.empty())
        note += fmt::format("\nskipped:\n  {}", fmt::join(lines(s.skipped), "\n  "));
      notes->push_back(std::move(note));
    }
    if (!unordered.empty()) {
      notes->push_back(fmt::format("{}: scenario{} without order: run{} whole: {}", asked,
                                   unordered.size() == 1 ? "" : "s",
                                   unordered.size() == 1 ? "s" : "", fmt::join(unordered, ", ")));
    }
  }
  std::vector<PlanItem> kept;
  for (PlanItem& item : *items) {
    if (item.permutation == 0 || wanted(item)) kept.push_back(std::move(item));
  }
  *items = std::move(kept);
  return Status::Ok();
}

}  // namespace racelab
