// `one_of` (docs/scenario-format.md "One of several outcomes"): a list of at least two
// alternatives, each a mapping with the keys of `expect` (not `at`, not a nested `one_of`) plus an
// optional `name` and `min_fraction`. Issue 11 item 4b/c.
#include <fmt/format.h>

#include <set>

#include "harness/loader/loader_context.h"

namespace racelab::internal {
namespace {

std::vector<std::string_view> AlternativeKeys() {
  std::vector<std::string_view> keys;
  for (std::string_view key : ExpectKeys()) {
    if (key != "one_of") keys.push_back(key);
  }
  keys.push_back("name");
  keys.push_back("min_fraction");
  return keys;
}

}  // namespace

std::optional<std::vector<ExpectAlternative>> ReadOneOf(LoadContext& ctx, const Ref& ref) {
  std::optional<std::vector<Ref>> items = ctx.reader.Seq(ref);
  if (!items) return std::nullopt;
  if (items->size() < 2) {
    ctx.reader.Error(ref, "one_of lists at least two alternatives (one outcome is a plain expect)");
    return std::nullopt;
  }
  std::vector<ExpectAlternative> out;
  std::set<std::string> names;
  for (size_t i = 0; i < items->size(); ++i) {
    const Ref& item = (*items)[i];
    if (item.node.IsMap() && item.node["one_of"]) {
      ctx.reader.Error(
          item,
          "a one_of alternative cannot hold another one_of (list every outcome in one one_of)");
      continue;
    }
    std::optional<Fields> f = ctx.reader.Map(item, AlternativeKeys());
    if (!f) continue;
    ExpectAlternative alt;
    alt.loc = ctx.reader.Loc(item.mark);
    alt.name = fmt::format("alternative {}", i + 1);
    if (const Ref* r = f->Get("name")) {
      if (std::optional<std::string> name = ctx.reader.Name(*r)) {
        alt.name = *name;
        if (!names.insert(*name).second)
          ctx.reader.Error(*r, fmt::format("two alternatives are named '{}'", *name));
      }
    }
    if (const Ref* r = f->Get("min_fraction"))
      alt.min_fraction = ReadExpr(ctx, *r, NumberRule::kFraction);
    size_t errors_before = ctx.reader.error_count();
    ExpectSpec checks = ReadExpectFields(ctx, *f);
    if (ctx.reader.error_count() == errors_before && !HasCheck(checks)) {
      ctx.reader.Error(
          item,
          "this alternative checks nothing: it would hold whatever happened (set one of winners, "
          "sqlstates, lock_waits, step_rows, blocked, reads, final, errors)");
    }
    alt.checks = std::make_shared<const ExpectSpec>(std::move(checks));
    out.push_back(std::move(alt));
  }
  return out;
}

}  // namespace racelab::internal
