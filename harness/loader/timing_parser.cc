// `expect.timing` and the k-of-N and wait-event keys of `expect.blocked` (issue 11 item 9;
// docs/scenario-format.md "Timing of steps" and "`blocked` for k of N instances, and the wait
// event"). REQUIRES: sessions have been read, so roles and steps can be checked.
#include <fmt/format.h>

#include "harness/loader/limits.h"
#include "harness/loader/loader_context.h"
#include "harness/model/step_kind.h"

namespace racelab::internal {
namespace {

std::vector<std::string> StepNames(const SessionSpec& role) {
  std::vector<std::string> names;
  for (const Step& step : role.steps) names.push_back(step.name);
  return names;
}

// The role `name` (reported at `ref` when unknown), or nullptr.
const SessionSpec* RoleAt(LoadContext& ctx, const Ref& ref, const std::string& name) {
  const SessionSpec* role = FindRole(ctx.scenario, name);
  if (role == nullptr) {
    std::string hint = Suggest(name, RoleNames(ctx.scenario));
    ctx.reader.Error(ref, fmt::format("unknown session '{}' ({}sessions: {})", Clip(name),
                                      hint.empty() ? "" : fmt::format("did you mean '{}'? ", hint),
                                      JoinNames(RoleNames(ctx.scenario))));
  }
  return role;
}

// A step of `role` that sends or times something: a statement step or a probe.
bool StepAt(LoadContext& ctx, const Ref& ref, const SessionSpec& role, const std::string& name) {
  for (const Step& step : role.steps) {
    if (step.name != name) continue;
    if (InfoOf(step.kind).is_wait) {  // barrier, sleep_ms, await_blocked, await_ended
      ctx.reader.Error(
          ref, fmt::format("step '{}' of session '{}' is a wait racelab makes, not a statement: "
                           "time a begin, sql, commit, rollback, terminate or probe step",
                           name, role.name));
      return false;
    }
    return true;
  }
  std::string hint = Suggest(name, StepNames(role));
  ctx.reader.Error(
      ref, fmt::format("unknown step '{}' in session '{}' ({}steps: {})", Clip(name), role.name,
                       hint.empty() ? "" : fmt::format("did you mean '{}'? ", hint),
                       JoinNames(StepNames(role))));
  return false;
}

void ReadOneTiming(LoadContext& ctx, const Ref& item, TimingSpec& out) {
  std::optional<Fields> f = ctx.reader.Map(
      item, {"session", "step", "after", "min_ms", "max_ms", "waited"}, {"session", "step"});
  if (!f) return;
  const SessionSpec* role = nullptr;
  if (const Ref* r = f->Get("session")) {
    if (std::optional<std::string> name = ctx.reader.Name(*r)) {
      out.session = *name;
      role = RoleAt(ctx, *r, *name);
    }
  }
  if (const Ref* r = f->Get("step"); r && role) {
    if (std::optional<std::string> name = ctx.reader.Name(*r);
        name && StepAt(ctx, *r, *role, *name)) {
      out.step = *name;
    }
  }
  if (const Ref* r = f->Get("after")) {
    std::optional<std::string> text = ctx.reader.Text(*r);
    const size_t dot = text ? text->find('.') : std::string::npos;
    if (text && (dot == std::string::npos || dot == 0 || dot + 1 == text->size())) {
      ctx.reader.Error(
          *r, fmt::format("'{}' is not SESSION.STEP (e.g. after: a.commit: the step of another "
                          "session this one answers after)",
                          Clip(*text)));
    } else if (text) {
      const SessionSpec* ref_role = RoleAt(ctx, *r, text->substr(0, dot));
      if (ref_role != nullptr && StepAt(ctx, *r, *ref_role, text->substr(dot + 1))) {
        out.after_session = ref_role->name;
        out.after_step = text->substr(dot + 1);
      }
      if (ref_role != nullptr && ref_role == role) {
        ctx.reader.Error(
            *r, fmt::format("after names session '{}' itself: the time between two steps of one "
                            "session is the scenario's own, time each step instead",
                            role->name));
      }
    }
  }
  if (const Ref* r = f->Get("min_ms")) out.min_ms = ReadExpr(ctx, *r, NumberRule::kAnyMs);
  if (const Ref* r = f->Get("max_ms")) out.max_ms = ReadExpr(ctx, *r, NumberRule::kAnyMs);
  if (const Ref* r = f->Get("waited")) out.waited = ctx.reader.Bool(*r);
  if (!f->Get("min_ms") && !f->Get("max_ms") && !f->Get("waited") && !f->Get("after")) {
    ctx.reader.Error(item,
                     "a timing entry checks nothing without min_ms, max_ms, waited or after (e.g. "
                     "{ session: b, step: claim, max_ms: 5, waited: false })");
  }
}

}  // namespace

std::optional<std::vector<TimingSpec>> ReadTiming(LoadContext& ctx, const Ref& ref) {
  std::optional<std::vector<Ref>> items = ctx.reader.Seq(ref);
  if (!items) return std::nullopt;
  std::vector<TimingSpec> out;
  for (const Ref& item : *items) {
    TimingSpec spec;
    spec.loc = ctx.reader.Loc(item.mark);
    ReadOneTiming(ctx, item, spec);
    out.push_back(std::move(spec));
  }
  return out;
}

void ReadBlockedCounts(LoadContext& ctx, const Fields& fields, BlockedSpec& out) {
  if (const Ref* r = fields.Get("instances")) out.instances = ReadExpr(ctx, *r, NumberRule::kCount);
  if (const Ref* r = fields.Get("wait_event")) {
    std::optional<std::string> text = ctx.reader.Name(*r);
    if (text) out.wait_event = *text;
  }
}

}  // namespace racelab::internal
