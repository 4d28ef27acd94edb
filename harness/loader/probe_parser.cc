// A `probe` step (issue 11 item 10a): `probe: SQL` with `equals:` (the rows it must read) and an
// optional `timeout_ms`, run on racelab's control connection between the session's steps
// (docs/scenario-format.md "`probe`: what another transaction sees, mid-history").
#include <fmt/format.h>

#include "harness/loader/limits.h"
#include "harness/loader/loader_context.h"

namespace racelab::internal {

void ReadProbeValue(LoadContext& ctx, const Ref& ref, const std::vector<std::string>& captures,
                    Step& step) {
  std::optional<std::string> sql = ctx.reader.Text(ref, false, limits::kMaxTextBytes);
  if (!sql) return;
  CheckReferences(ctx, ref, *sql, &captures);  // ${param}s and this session's earlier captures
  step.sql = *sql;
}

void ReadProbeFields(LoadContext& ctx, const Ref& item, const Fields& fields, Step& step) {
  const Ref* equals = fields.Get("equals");
  if (equals == nullptr) {
    ctx.reader.Error(
        item,
        "a probe needs equals: the rows it must read (e.g. equals: \"queued\", equals: "
        "[\"1|a\", \"2|b\"], or equals: [] for no row)");
  } else if (equals->node.IsNull()) {
    step.equals = {"NULL"};  // `equals: null`: one row holding SQL NULL, as expect.reads
  } else if (auto rows =
                 ctx.reader.TextItems(*equals, limits::kMaxListItems, limits::kMaxLineBytes)) {
    for (const auto& [text, row] : *rows) {
      if (CheckReferences(ctx, row, text, nullptr)) step.equals.push_back(text);  // ${param}s only
    }
  }
}

}  // namespace racelab::internal
