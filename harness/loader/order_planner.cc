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
    if (s < 0 || std::count_if(item->sessions.begin(), item->sessions.end(),
                               [&](const PlannedSession& p) { return p.role == entry.session; }) != 1) {
      return Status::Usage(fmt::format("{}:{}:{}: order: session '{}' must have exactly one instance (count 1)",
                                       item->file, entry.loc.line, entry.loc.column, entry.session));
    }
    const auto& planned = item->sessions[static_cast<size_t>(s)].steps;
    auto it = std::find_if(planned.begin(), planned.end(), [&](const PlannedStep& p) { return p.name == entry.step; });
    if (it == planned.end()) {  // the loader checked the names: a broken invariant
      return Status::Internal(fmt::format("order: no step '{}' in session '{}'", entry.step, entry.session));
    }
    PlannedStep step = *it;
    step.order_entry = static_cast<int>(k);
    // A hand-over: this step waits for the one before it, another session's, to end or wait.
    if (prev_session >= 0 && prev_session != s) step.await_entry = static_cast<int>(k) - 1;
    // isolationtester launches a session's step only once its previous step is reported complete,
    // which a marker `(other)` delays until no earlier entry of `other` still runs.
    for (const auto& [role, name] : pending[static_cast<size_t>(s)]) {
      for (size_t e = 0; e < k; ++e) {
        if (perm.steps[e].session == role && perm.steps[e].step == name) step.await_ended.push_back(static_cast<int>(e));
      }
    }
    pending[static_cast<size_t>(s)] = entry.after;
    item->order_entries.push_back(PlannedOrderEntry{entry.session, entry.step, entry.once});
    steps[static_cast<size_t>(s)].push_back(std::move(step));
    prev_session = s;
  }
  for (size_t i = 0; i < item->sessions.size(); ++i) item->sessions[i].steps = std::move(steps[i]);
  item->params.emplace_back(kOrderParam, PermutationName(perm));
  return Status::Ok();
}

namespace {

const std::string* OrderOf(const PlanItem& item) {
  for (const auto& [name, value] : item.params) {
    if (name == kOrderParam && !item.order_entries.empty()) return &value;
  }
  return nullptr;
}

}  // namespace

Status KeepPermutations(const std::vector<std::string>& only, std::vector<PlanItem>* items) {
  if (only.empty()) return Status::Ok();
  // Each scenario's permutations (per engine: a plan item's engine), numbered as the file lists them;
  // the planner gives every level the permutations in that order.
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> names;
  for (const PlanItem& item : *items) {
    const std::string* order = OrderOf(item);
    if (order == nullptr) continue;
    auto& list = names[{item.engine, item.scenario}];
    if (std::find(list.begin(), list.end(), *order) == list.end()) list.push_back(*order);
  }
  if (names.empty()) return Status::Usage("--permutation: no selected scenario has order: (permutations)");
  std::vector<PlanItem> kept;
  bool matched = false;
  for (PlanItem& item : *items) {
    const std::string* order = OrderOf(item);
    if (order == nullptr) {
      kept.push_back(std::move(item));
      continue;
    }
    const auto& list = names[{item.engine, item.scenario}];
    const size_t number = static_cast<size_t>(std::find(list.begin(), list.end(), *order) - list.begin()) + 1;
    const bool keep = std::any_of(only.begin(), only.end(),
                                  [&](const std::string& o) { return o == *order || o == std::to_string(number); });
    matched |= keep;
    if (keep) kept.push_back(std::move(item));
  }
  if (!matched) {
    const auto& [key, list] = *names.begin();
    std::vector<std::string> numbered;
    for (size_t i = 0; i < list.size(); ++i) numbered.push_back(fmt::format("{}: {}", i + 1, list[i]));
    return Status::Usage(fmt::format("--permutation: no permutation matches (scenario {}'s are {})", key.second,
                                     fmt::join(numbered, "; ")));
  }
  *items = std::move(kept);
  return Status::Ok();
}

}  // namespace racelab
