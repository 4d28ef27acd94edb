// Values an expectation accepts (docs/scenario-format.md "Expect"): counts with bounds (issue 11
// item 4a), `errors` entries — a step's or a session's SQLSTATE, message and DETAIL (item 3) — and
// a final entry's `any_of` (item 10). Every problem is reported at its node: file:line:col and
// field path.
#include <fmt/format.h>

#include "harness/loader/limits.h"
#include "harness/loader/loader_context.h"
#include "harness/model/engine_traits.h"
#include "harness/model/error_pattern.h"

namespace racelab::internal {
namespace {

// A bound of `{at_least, at_most}`, evaluated with the param defaults (nullopt when it does not
// evaluate: ReadExpr reported that already).
std::optional<long> DefaultValue(LoadContext& ctx, const Expr& text) {
  Result<double> value = EvalWithRule(text, ctx.defaults, NumberRule::kCount);
  if (!value.ok()) return std::nullopt;
  return static_cast<long>(*value);
}

// A `message` or `detail` pattern: an ECMAScript regular expression that CompileErrorPattern
// accepts (harness/model/error_pattern.h: no back-reference; libstdc++ refuses an automaton over
// its state limit).
std::string ReadPattern(LoadContext& ctx, const Ref& ref) {
  std::optional<std::string> text = ctx.reader.Text(ref, false, kMaxErrorPatternBytes);
  if (!text) return "";
  try {
    CompileErrorPattern(*text);
  } catch (const std::regex_error& e) {
    ctx.reader.Error(
        ref, fmt::format("'{}' is not an ECMAScript regular expression ({}); a pattern is searched "
                         "anywhere in the text: write a plain word such as pivot, or escape "
                         "( ) [ ] {{ }} . * + ? ^ $ | \\ with a backslash",
                         Clip(*text), e.what()));
    return "";
  }
  return *text;
}

}  // namespace

std::optional<CountExpr> ReadCount(LoadContext& ctx, const Ref& ref) {
  if (!ref.node.IsMap()) {
    std::optional<Expr> exact = ReadExpr(ctx, ref, NumberRule::kCount);
    if (!exact) return std::nullopt;
    return CountExpr(*exact);
  }
  std::optional<Fields> f = ctx.reader.Map(ref, {"at_least", "at_most"});
  if (!f) return std::nullopt;
  const Ref* least = f->Get("at_least");
  const Ref* most = f->Get("at_most");
  if (least == nullptr && most == nullptr) {
    if (ref.node.size() != 0) return std::nullopt;  // only unknown keys: reported by Map already
    ctx.reader.Error(
        ref,
        "a count with bounds has at_least, at_most or both (e.g. { at_least: 1, at_most: 2 }); "
        "an exact count is a number: 1");
    return std::nullopt;
  }
  CountExpr count;
  count.exact = false;
  bool ok = true;
  if (least != nullptr) {
    std::optional<Expr> e = ReadExpr(ctx, *least, NumberRule::kCount);
    ok = ok && e.has_value();
    count.at_least = e.value_or("");
  }
  if (most != nullptr) {
    std::optional<Expr> e = ReadExpr(ctx, *most, NumberRule::kCount);
    ok = ok && e.has_value();
    count.at_most = e.value_or("");
  }
  if (!ok) return std::nullopt;
  if (least != nullptr && most != nullptr) {
    std::optional<long> low = DefaultValue(ctx, count.at_least);
    std::optional<long> high = DefaultValue(ctx, count.at_most);
    if (low && high && *low > *high) {
      ctx.reader.Error(*least,
                       fmt::format("at_least '{}' = {} is greater than at_most '{}' = {}: no count "
                                   "could pass",
                                   count.at_least, *low, count.at_most, *high));
      return std::nullopt;
    }
  }
  return count;
}

// errors: { session?, step?, sqlstate?, message?, detail?, sessions? } (docs "Errors of a step or a
// session").
void ReadError(LoadContext& ctx, const Ref& item, ErrorSpec& out) {
  std::optional<Fields> f =
      ctx.reader.Map(item, {"session", "step", "sqlstate", "message", "detail", "sessions"});
  if (!f) return;
  const Ref* session = f->Get("session");
  const Ref* step = f->Get("step");
  if (session == nullptr && step == nullptr) {
    ctx.reader.Error(item, "an errors entry names a session (role), a step, or both");
  }
  if (f->Get("sqlstate") == nullptr && f->Get("message") == nullptr &&
      f->Get("detail") == nullptr) {
    ctx.reader.Error(item, "an errors entry checks sqlstate, message, detail, or several of them");
  }
  if (session == nullptr && f->Get("sessions") == nullptr) {
    ctx.reader.Error(item,
                     "an errors entry without session needs sessions: how many sessions failed so "
                     "(with session, the default is every instance of that role)");
  }
  const SessionSpec* role = nullptr;
  if (session != nullptr) {
    out.session = ReadRoleRef(ctx, *session).value_or("");
    role = FindRole(ctx.scenario, out.session);
    if (role == nullptr) return;
  }
  if (step != nullptr) out.step = ReadStepRef(ctx, *step, role).value_or("");
  if (const Ref* r = f->Get("sqlstate")) out.sqlstate = ReadErrorKey(ctx, *r);
  if (const Ref* r = f->Get("message")) out.message = ReadPattern(ctx, *r);
  if (const Ref* r = f->Get("detail")) {
    out.detail = ReadPattern(ctx, *r);
    // This reading's engine (the file is read once per engine).
    const EngineTraits* t = FindEngineTraits(ctx.scenario.engine);
    if (t != nullptr && !t->sends_error_detail) {
      auto sends = [](const EngineTraits& e) { return e.sends_error_detail; };
      ctx.reader.Error(
          *r, fmt::format("{} sends no DETAIL with its errors (only {} does): check "
                          "message instead, or write detail in a {}: entry of an "
                          "engine map",
                          t->name, EnginesWith(sends, /*display=*/true), EnginesWith(sends)));
    }
  }
  if (const Ref* r = f->Get("sessions")) out.sessions = ReadCount(ctx, *r);
}

void ReadFinalAnyOf(LoadContext& ctx, const Ref& ref, FinalCheck& out) {
  std::optional<std::vector<Ref>> items = ctx.reader.Seq(ref);
  if (!items) return;
  if (items->size() < 2) {
    ctx.reader.Error(ref, "any_of lists at least two values (one value is equals: …)");
    return;
  }
  for (const Ref& value : *items) {
    if (value.node.IsNull()) {
      out.any_of.push_back("NULL");  // as `equals: null`: SQL NULL or no row
    } else if (std::optional<std::string> text =
                   ctx.reader.Text(value, true, limits::kMaxTextBytes)) {
      if (CheckReferences(ctx, value, *text, nullptr)) out.any_of.push_back(*text);
    }
  }
}

}  // namespace racelab::internal
