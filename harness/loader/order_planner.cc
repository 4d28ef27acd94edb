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

// An ordered item's PermutationName (its param `order`).
std::string OrderName(const PlanItem& item) {
  for (const auto& [name, value] : item.params) {
    if (name == kOrderParam) return value;
  }
  return "";
}

}  // namespace

Status KeepPermutations(const std::vector<std::string>& only, std::vector<PlanItem>* items) {
  if (only.empty()) return Status::Ok();
  auto wanted = [&](const PlanItem& item) {
    const std::string name = OrderName(item);
    return std::any_of(only.begin(), only.end(),
                       [&](const std::string& o) { return o == name || o == std::to_string(item.permutation); });
  };
  const PlanItem* first = nullptr;  // an item of the first ordered scenario, for the message
  bool matched = false;
  for (const PlanItem& item : *items) {
    if (item.permutation == 0) continue;
    if (first == nullptr) first = &item;
    matched |= wanted(item);
  }
  if (first == nullptr) return Status::Usage("--permutation: no selected scenario has order: (permutations)");
  if (!matched) {
    // That scenario's permutations (on its engine), by number, where each is written.
    std::map<int, std::string> numbered;
    for (const PlanItem& item : *items) {
      if (item.permutation == 0 || item.scenario != first->scenario || item.engine != first->engine) continue;
      numbered.emplace(item.permutation, fmt::format("{}:{}:{}: order[{}]: {} (--permutation {})", item.file,
                                                     item.permutation_loc.line, item.permutation_loc.column,
                                                     item.permutation - 1, OrderName(item), item.permutation));
    }
    std::vector<std::string> lines;
    for (const auto& [number, line] : numbered) lines.push_back(line);
    return Status::Usage(fmt::format("--permutation {}: no permutation matches (a number from 1, or the steps as "
                                     "the order param writes them); scenario {}'s are:\n  {}",
                                     fmt::join(only, ", "), first->scenario, fmt::join(lines, "\n  ")));
  }
  std::vector<PlanItem> kept;
  for (PlanItem& item : *items) {
    if (item.permutation == 0 || wanted(item)) kept.push_back(std::move(item));
  }
  *items = std::move(kept);
  return Status::Ok();
}

}  // namespace racelab
