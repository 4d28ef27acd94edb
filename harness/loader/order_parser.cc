// `order:` — the permutations of an ordered scenario (docs/scenario-format.md "Ordered steps and
// permutations"): `all`, or a list whose items are a list of SESSION.STEP entries or a mapping
// { steps: [...], expect: {...} }. REQUIRES: sessions (and outcome, for an expect override) are read.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "harness/loader/limits.h"
#include "harness/loader/loader_context.h"
#include "harness/loader/order_planner.h"
#include "harness/loader/spec_permutations.h"

namespace racelab::internal {
namespace {

// The step names of each session, for messages.
std::vector<std::string> StepNames(const SessionSpec& role) {
  std::vector<std::string> names;
  for (const Step& s : role.steps) names.push_back(s.name);
  return names;
}

// One entry "SESSION.STEP"; false (error reported) when it names nothing.
bool ReadEntry(LoadContext& ctx, const Ref& ref, OrderEntry& entry, int* role_index, int* step_index) {
  std::optional<std::string> text = ctx.reader.Name(ref);
  if (!text) return false;
  entry.loc = ctx.reader.Loc(ref.mark);
  const size_t dot = text->find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == text->size()) {
    ctx.reader.Error(ref, fmt::format("'{}' is not SESSION.STEP (e.g. a.claim)", *text));
    return false;
  }
  entry.session = text->substr(0, dot);
  entry.step = text->substr(dot + 1);
  const auto& roles = ctx.scenario.sessions;
  auto role = std::find_if(roles.begin(), roles.end(), [&](const SessionSpec& s) { return s.name == entry.session; });
  if (role == roles.end()) {
    std::vector<std::string> names;
    for (const SessionSpec& s : roles) names.push_back(s.name);
    std::string hint = Suggest(entry.session, names);
    ctx.reader.Error(ref, fmt::format("unknown session '{}' in '{}' ({}sessions: {})", entry.session, *text,
                                      hint.empty() ? "" : fmt::format("did you mean '{}'? ", hint),
                                      JoinNames(names)));
    return false;
  }
  auto step = std::find_if(role->steps.begin(), role->steps.end(),
                           [&](const Step& s) { return s.name == entry.step; });
  if (step == role->steps.end()) {
    std::string hint = Suggest(entry.step, StepNames(*role));
    ctx.reader.Error(ref, fmt::format("unknown step '{}' in session '{}' ({}steps: {})", entry.step,
                                      entry.session, hint.empty() ? "" : fmt::format("did you mean '{}'? ", hint),
                                      JoinNames(StepNames(*role))));
    return false;
  }
  *role_index = static_cast<int>(role - roles.begin());
  *step_index = static_cast<int>(step - role->steps.begin());
  return true;
}

// One permutation's entries: each session's steps in its own order, each at most once.
void ReadEntries(LoadContext& ctx, const Ref& ref, Permutation& perm) {
  std::optional<std::vector<Ref>> items = ctx.reader.Seq(ref, limits::kMaxListItems);
  if (!items) return;
  if (items->empty()) ctx.reader.Error(ref, "list at least one SESSION.STEP");
  std::map<int, std::pair<int, std::string>> last;  // role -> (step index, entry text) of its last entry
  for (const Ref& item : *items) {
    OrderEntry entry;
    int role = -1, step = -1;
    if (!ReadEntry(ctx, item, entry, &role, &step)) continue;
    auto it = last.find(role);
    if (it != last.end() && it->second.first >= step) {
      ctx.reader.Error(item, fmt::format("'{}.{}' {} '{}': a permutation runs each session's steps at most "
                                         "once, in the order the session lists them",
                                         entry.session, entry.step,
                                         it->second.first == step ? "repeats" : "comes after",
                                         it->second.second));
    }
    last[role] = {step, entry.session + "." + entry.step};
    perm.steps.push_back(std::move(entry));
  }
}

// `order: all`: every interleaving of the sessions' steps, in isolationtester's order.
void ExpandAll(LoadContext& ctx, const Ref& ref, OrderSpec& order) {
  IsolationSpec spec;  // only the shape: sessions with their step counts
  spec.loc = ctx.scenario.loc;
  for (const SessionSpec& role : ctx.scenario.sessions) {
    SpecSession s;
    s.name = role.name;
    for (const Step& st : role.steps) s.steps.push_back(SpecStep{st.name, {}, {}});
    spec.sessions.push_back(std::move(s));
  }
  Result<std::vector<StepOrder>> orders = ExpandSpecPermutations(spec);
  if (!orders.ok()) {
    ctx.reader.Error(ref, fmt::format("the sessions' steps have more than {} interleavings; list the orders "
                                      "to run instead of all",
                                      kMaxSpecPermutations));
    return;
  }
  for (const StepOrder& o : *orders) {
    Permutation perm;
    perm.loc = ctx.reader.Loc(ref.mark);
    for (const OrderedStep& st : o.steps) {
      const SessionSpec& role = ctx.scenario.sessions[static_cast<size_t>(st.session)];
      perm.steps.push_back(OrderEntry{role.name, role.steps[static_cast<size_t>(st.step)].name, perm.loc});
    }
    order.permutations.push_back(std::move(perm));
  }
}

// What an ordered scenario may not have: the order replaces barriers and await_blocked, a retry would
// run steps again out of order, and each session is one connection in the order.
void CheckSessionsFitAnOrder(LoadContext& ctx, const Ref& ref) {
  for (size_t i = 0; i < ctx.scenario.sessions.size(); ++i) {
    const SessionSpec& role = ctx.scenario.sessions[i];
    if (role.retry) {
      ctx.reader.Error(ref, fmt::format("session '{}' has retry: an ordered scenario runs each step once, in "
                                        "its permutation's order (drop retry or order)",
                                        role.name));
    }
    if (i < ctx.role_counts.size() && ctx.role_counts[i] && *ctx.role_counts[i] != 1) {
      ctx.reader.Error(ref, fmt::format("session '{}' has count {}: the steps of an ordered scenario are "
                                        "SESSION.STEP, one session each (write one session per instance)",
                                        role.name, *ctx.role_counts[i]));
    }
    for (const Step& step : role.steps) {
      if (step.kind != StepKind::kBarrier && step.kind != StepKind::kAwaitBlocked) continue;
      ctx.reader.Error(step.loc, ref.path,
                       fmt::format("session '{}' step '{}' is {}: in an ordered scenario the order says "
                                   "when each step runs (remove it)",
                                   role.name, step.name,
                                   step.kind == StepKind::kBarrier ? "a barrier" : "an await_blocked"));
    }
  }
}

}  // namespace

void ReadOrder(LoadContext& ctx, const Ref& ref) {
  OrderSpec order;
  order.loc = ctx.reader.Loc(ref.mark);
  CheckSessionsFitAnOrder(ctx, ref);
  if (ctx.defaults.count(kOrderParam) != 0) {
    ctx.reader.Error(ref, fmt::format("a scenario with order may not declare a param named '{}' (the reports name "
                                      "each permutation's results by it)",
                                      kOrderParam));
  }
  if (ref.node.IsScalar()) {
    std::optional<std::string> text = ctx.reader.Text(ref);
    if (text && *text == "all") {
      order.all = true;
      ExpandAll(ctx, ref, order);
    } else if (text) {
      ctx.reader.Error(ref, fmt::format("order: expected all or a list of permutations, found '{}'", *text));
    }
    ctx.scenario.order = std::move(order);
    return;
  }
  std::optional<std::vector<Ref>> perms = ctx.reader.Seq(ref, limits::kMaxListItems);
  if (!perms) return;
  if (perms->empty()) ctx.reader.Error(ref, "list at least one permutation (or write order: all)");
  for (const Ref& item : *perms) {
    Permutation perm;
    perm.loc = ctx.reader.Loc(item.mark);
    if (item.node.IsMap()) {
      std::optional<Fields> f = ctx.reader.Map(item, {"steps", "expect"}, {"steps"});
      if (!f) continue;
      if (const Ref* steps = f->Get("steps")) ReadEntries(ctx, *steps, perm);
      if (const Ref* expect = f->Get("expect")) {
        perm.expect.emplace();
        std::map<IsolationLevel, Ref> at_refs;
        ReadExpectAndAt(ctx, *expect, &*perm.expect, &perm.expect_at, &at_refs);
      }
    } else {
      ReadEntries(ctx, item, perm);
    }
    order.permutations.push_back(std::move(perm));
  }
  ctx.scenario.order = std::move(order);
}

}  // namespace racelab::internal
