// `order:` — the permutations of an ordered scenario (docs/scenario-format.md "Ordered steps and
// permutations"): `all`, or a list whose items are a list of SESSION.STEP entries or a mapping
// { steps: [...], expect: {...} }. REQUIRES: sessions (and outcome, for an expect override) are
// read.
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

// Resolves "SESSION.STEP" (`what` names it in messages: "'a.x'", "marker 'a.x'"); false (error
// reported at `ref`) when it names nothing.
bool Resolve(LoadContext& ctx, const Ref& ref, const std::string& text, std::string* session,
             std::string* step, int* role_index) {
  const size_t dot = text.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == text.size()) {
    ctx.reader.Error(ref, fmt::format("'{}' is not SESSION.STEP (e.g. a.claim)", text));
    return false;
  }
  *session = text.substr(0, dot);
  *step = text.substr(dot + 1);
  const auto& roles = ctx.scenario.sessions;
  auto role = std::find_if(roles.begin(), roles.end(),
                           [&](const SessionSpec& s) { return s.name == *session; });
  if (role == roles.end()) {
    std::vector<std::string> names;
    for (const SessionSpec& s : roles) names.push_back(s.name);
    std::string hint = Suggest(*session, names);
    ctx.reader.Error(ref,
                     fmt::format("unknown session '{}' in '{}' ({}sessions: {})", *session, text,
                                 hint.empty() ? "" : fmt::format("did you mean '{}'? ", hint),
                                 JoinNames(names)));
    return false;
  }
  auto found = std::find_if(role->steps.begin(), role->steps.end(),
                            [&](const Step& s) { return s.name == *step; });
  if (found == role->steps.end()) {
    std::string hint = Suggest(*step, StepNames(*role));
    ctx.reader.Error(ref,
                     fmt::format("unknown step '{}' in session '{}' ({}steps: {})", *step, *session,
                                 hint.empty() ? "" : fmt::format("did you mean '{}'? ", hint),
                                 JoinNames(StepNames(*role))));
    return false;
  }
  *role_index = static_cast<int>(role - roles.begin());
  return true;
}

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// The markers in "(…)" of an entry: `*`, `SESSION.STEP`; false (error reported) on bad input.
bool ReadMarkers(LoadContext& ctx, const Ref& ref, const std::string& text, int role,
                 OrderEntry& entry) {
  size_t from = 0;
  for (;;) {
    const size_t comma = text.find(',', from);
    const std::string marker =
        Trim(text.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (marker == "*") {
      entry.once = true;
    } else if (marker.empty()) {
      ctx.reader.Error(ref,
                       "an empty marker: write (*), (SESSION.STEP) or several separated by commas");
      return false;
    } else if (marker.find(' ') != std::string::npos) {
      const bool notices = marker.find(" notices ") != std::string::npos;
      ctx.reader.Error(
          ref, notices
                   ? fmt::format("marker '{}': 'notices N' is not supported in a scenario's order "
                                 "(the runner does not count NOTICE messages; use racelab run "
                                 "X.spec for a spec that needs it)",
                                 marker)
                   : fmt::format("marker '{}' is not *, SESSION.STEP", marker));
      return false;
    } else {
      std::string session, step;
      int other = -1;
      if (!Resolve(ctx, ref, marker, &session, &step, &other)) return false;
      if (other == role) {
        ctx.reader.Error(
            ref, fmt::format("marker '{}' names a step of the entry's own session: a marker names "
                             "another session's step",
                             marker));
        return false;
      }
      entry.after.emplace_back(session, step);
    }
    if (comma == std::string::npos) return true;
    from = comma + 1;
  }
}

// One entry "SESSION.STEP" with optional markers "(*)", "(b.commit)", "(*, b.commit)"; false (error
// reported) when it names nothing or its markers are bad.
bool ReadEntry(LoadContext& ctx, const Ref& ref, OrderEntry& entry) {
  std::optional<std::string> text = ctx.reader.Text(ref, false, limits::kMaxLineBytes);
  if (!text) return false;
  entry.loc = ctx.reader.Loc(ref.mark);
  const size_t open = text->find('(');
  const std::string name = Trim(text->substr(0, open));
  int role = -1;
  if (open != std::string::npos && (text->back() != ')' || text->find(')') != text->size() - 1)) {
    ctx.reader.Error(
        ref,
        fmt::format("'{}': markers are (…) at the end of the entry; inside [ … ] quote an entry "
                    "with several markers, e.g. \"a.write(*, b.commit)\"",
                    *text));
    return false;
  }
  if (open == std::string::npos && text->find(')') != std::string::npos) {
    ctx.reader.Error(
        ref, fmt::format("'{}' has a ')' without '(': inside [ … ] quote an entry with several "
                         "markers, e.g. \"a.write(*, b.commit)\"",
                         *text));
    return false;
  }
  if (!Resolve(ctx, ref, name, &entry.session, &entry.step, &role)) return false;
  if (open == std::string::npos) return true;
  return ReadMarkers(ctx, ref, text->substr(open + 1, text->size() - open - 2), role, entry);
}

// One permutation's entries, in the order they run: any step of any session, any number of times
// (as isolationtester's permutation lines); a marker names a step the permutation runs. True when
// every entry read without error (else `perm` lacks the bad ones: it is not what the file says).
bool ReadEntries(LoadContext& ctx, const Ref& ref, Permutation& perm) {
  const size_t errors_before = ctx.reader.error_count();
  std::optional<std::vector<Ref>> items = ctx.reader.Seq(ref, limits::kMaxListItems);
  if (!items) return false;
  if (items->empty()) ctx.reader.Error(ref, "list at least one SESSION.STEP");
  std::vector<const Ref*> refs;
  for (const Ref& item : *items) {
    OrderEntry entry;
    if (!ReadEntry(ctx, item, entry)) continue;
    perm.steps.push_back(std::move(entry));
    refs.push_back(&item);
  }
  for (size_t i = 0; i < perm.steps.size(); ++i) {
    for (const auto& [session, step] : perm.steps[i].after) {
      bool runs = std::any_of(perm.steps.begin(), perm.steps.end(), [&](const OrderEntry& e) {
        return e.session == session && e.step == step;
      });
      if (!runs) {
        ctx.reader.Error(*refs[i],
                         fmt::format("marker '{}.{}' names a step this permutation does not run",
                                     session, step));
      }
    }
  }
  return ctx.reader.error_count() == errors_before;
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
    // The count limit, or the steps budget (limits.h kMaxSpecPlanSteps): both ask for a list.
    const bool count = orders.status().message().find("interleavings") != std::string::npos;
    ctx.reader.Error(
        ref, count ? fmt::format("the sessions' steps have more than {} interleavings; list the "
                                 "orders to run instead of all",
                                 kMaxSpecPermutations)
                   : fmt::format("every interleaving of the sessions' steps would run more than {} "
                                 "steps in all; list the orders to run instead of all",
                                 limits::kMaxSpecPlanSteps));
    return;
  }
  for (const StepOrder& o : *orders) {
    Permutation perm;
    perm.loc = ctx.reader.Loc(ref.mark);
    for (const OrderedStep& st : o.steps) {
      const SessionSpec& role = ctx.scenario.sessions[static_cast<size_t>(st.session)];
      OrderEntry entry;
      entry.session = role.name;
      entry.step = role.steps[static_cast<size_t>(st.step)].name;
      entry.loc = perm.loc;
      perm.steps.push_back(std::move(entry));
    }
    order.permutations.push_back(std::move(perm));
  }
}

// What an ordered scenario may not have: the order replaces barriers and await_blocked, a retry
// would run steps again out of order, and each session is one connection in the order.
void CheckSessionsFitAnOrder(LoadContext& ctx, const Ref& ref) {
  for (size_t i = 0; i < ctx.scenario.sessions.size(); ++i) {
    const SessionSpec& role = ctx.scenario.sessions[i];
    if (role.retry) {
      ctx.reader.Error(
          ref, fmt::format("session '{}' has retry: an ordered scenario runs each step once, in "
                           "its permutation's order (drop retry or order)",
                           role.name));
    }
    if (i < ctx.role_counts.size() && ctx.role_counts[i] && *ctx.role_counts[i] != 1) {
      ctx.reader.Error(
          ref, fmt::format("session '{}' has count {}: the steps of an ordered scenario are "
                           "SESSION.STEP, one session each (write one session per instance)",
                           role.name, *ctx.role_counts[i]));
    }
    for (size_t j = 0; j < role.steps.size(); ++j) {
      const Step& step = role.steps[j];
      if (step.kind == StepKind::kAwaitEnded) {
        ctx.reader.Error(
            step.loc, fmt::format("sessions[{}].steps[{}]", i, j),
            fmt::format("session '{}' step '{}' is an await_ended, which an ordered scenario "
                        "does not run (its order hands over when a step completes or is seen "
                        "waiting); write the scenario with barriers instead of order",
                        role.name, step.name));
        continue;
      }
      if (step.kind != StepKind::kBarrier && step.kind != StepKind::kAwaitBlocked) continue;
      ctx.reader.Error(
          step.loc, fmt::format("sessions[{}].steps[{}]", i, j),
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
    ctx.reader.Error(
        ref,
        fmt::format("a scenario with order may not declare a param named '{}' (the reports name "
                    "each permutation's results by it)",
                    kOrderParam));
  }
  if (ref.node.IsScalar()) {
    std::optional<std::string> text = ctx.reader.Text(ref);
    if (text && *text == "all") {
      order.all = true;
      ExpandAll(ctx, ref, order);
    } else if (text) {
      ctx.reader.Error(
          ref, fmt::format("order: expected all or a list of permutations, found '{}'", *text));
    }
    ctx.scenario.order = std::move(order);
    return;
  }
  std::optional<std::vector<Ref>> perms = ctx.reader.Seq(ref, limits::kMaxListItems);
  if (!perms) return;
  if (perms->empty()) ctx.reader.Error(ref, "list at least one permutation (or write order: all)");
  // The permutations whose entries all read, by name: only these are compared for duplicates (one
  // that lost a bad entry would look like another that lacks that step).
  struct Whole {
    std::string name;
    size_t index;  // in order:
    int line;
  };
  std::vector<Whole> whole;
  for (size_t index = 0; index < perms->size(); ++index) {
    const Ref& item = (*perms)[index];
    Permutation perm;
    perm.loc = ctx.reader.Loc(item.mark);
    bool entries_read = false;
    if (item.node.IsMap()) {
      std::optional<Fields> f = ctx.reader.Map(item, {"steps", "expect"}, {"steps"});
      if (!f) continue;
      if (const Ref* steps = f->Get("steps")) entries_read = ReadEntries(ctx, *steps, perm);
      if (const Ref* expect = f->Get("expect")) {
        perm.expect.emplace();
        std::map<IsolationLevel, Ref> at_refs;
        ReadExpectAndAt(ctx, *expect, &*perm.expect, &perm.expect_at, &at_refs);
      }
    } else {
      entries_read = ReadEntries(ctx, item, perm);
    }
    // Each permutation is one result per level named by its entries: the same one twice would be
    // two results with one name (`--trials` runs a permutation again).
    if (entries_read) {
      const std::string name = PermutationName(perm);
      auto same =
          std::find_if(whole.begin(), whole.end(), [&](const Whole& w) { return w.name == name; });
      if (same != whole.end()) {
        ctx.reader.Error(
            item, fmt::format("the same permutation as order[{}] (line {}): '{}' (list each order "
                              "once; --trials runs it again)",
                              same->index, same->line, name));
      }
      whole.push_back(Whole{name, index, perm.loc.line});
    }
    order.permutations.push_back(std::move(perm));
  }
  ctx.scenario.order = std::move(order);
}

}  // namespace racelab::internal
