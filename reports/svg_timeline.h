// The picture of one trial for the "html" reporter: an inline SVG swim-lane timeline.
//
// One horizontal lane per session label (plan order); x is ms since the trial's start, with tick
// labels. Each step is a bar from sent_us to completed_us, coloured by what it did: ok, rows
// returned, SQLSTATE error, skipped, or waiting (barrier, sleep, await_blocked, await_ended). A
// statement the monitor saw in a lock wait is drawn in the lock-wait colour, with a cap at its end
// in the colour of its outcome. Every bar has a <title> tooltip (times, result, blocked ms and
// blocked_by). Barrier releases are vertical dashed lines labelled with the barrier name. Bars too
// short to be seen are drawn a few pixels wide; a bar's label is written inside it, or just after
// it, only when it fits.
//
// Internal to reports/. Output is deterministic: fixed geometry, coordinates with one decimal, no
// clocks, ids or randomness. All text goes through XmlWriter (the one escaping writer).
// Thread-safety: pure functions over their arguments.
#pragma once

#include <string>
#include <string_view>

#include "harness/model/trial_result.h"
#include "reports/format_util.h"
#include "reports/xml_writer.h"

namespace racelab::internal {

// True when `text` has none of & < > " ', so EscapeXml leaves it unchanged: the condition for CSS
// written as the text of <style>, where the browser does not decode character references.
constexpr bool NeedsNoEscaping(std::string_view text) {
  for (char c : text) {
    if (c == '&' || c == '<' || c == '>' || c == '"' || c == '\'') return false;
  }
  return true;
}

// The timeline's CSS rules (classes used by WriteSvgTimeline and WriteTimelineLegend), for the
// page's <style>. NeedsNoEscaping holds for it.
std::string_view TimelineCss();

// Writes <svg class="timeline" …>…</svg> for `trial`.
void WriteSvgTimeline(const TrialResult& trial, XmlWriter& xml);

// Writes the short legend of the timeline's colours and lines: <p class="legend">…</p>.
void WriteTimelineLegend(XmlWriter& xml);

}  // namespace racelab::internal
