#include "reports/svg_timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <vector>

#include "harness/model/error_key.h"
#include "harness/model/step_kind.h"
#include "harness/model/step_label.h"
#include "reports/format_util.h"

namespace racelab::internal {
namespace {

// Geometry, in viewBox units (the SVG scales to the page width).
constexpr double kWidth = 1000;
constexpr double kPlotLeft = 170;  // lane labels are right-aligned just before it
constexpr double kPlotRight = 980;
constexpr double kLaneHeight = 38;
constexpr double kBarTop = 5;  // bar offset inside its lane
constexpr double kBarHeight = 20;
constexpr double kBandRow = 16;  // one row of barrier labels above the lanes
constexpr int kMaxBandRows = 3;
constexpr double kMinBarWidth = 3;  // a sub-pixel step is still visible
constexpr double kCharWidth = 6.5;  // estimated advance of one character at 12px
constexpr size_t kMaxLabel = 16;    // code points of a lane label (14px) in the label column
constexpr size_t kMaxNote = 25;     // code points of a lane note (11px)
constexpr double kCapWidth = 6;     // outcome cap at the end of a lock-wait bar

constexpr std::string_view kCss = R"css(
svg.timeline{display:block;width:100%;height:auto;margin:8px 0 4px}
.timeline text{font-size:12px;fill:#212529}
.timeline text.lane{font-size:14px;font-weight:600}
.timeline text.note{font-size:11px;fill:#495057}
.timeline text.tick{font-size:11px;fill:#495057}
.timeline text.bl{pointer-events:none}
.timeline text.on-dark{fill:#fff}
.timeline rect.stripe{fill:#f1f3f5}
.timeline line.grid{stroke:#dee2e6;stroke-width:1}
.timeline line.axis{stroke:#495057;stroke-width:1}
.timeline rect.bar{stroke:#fff;stroke-width:0.5}
.timeline rect.b-ok{fill:#adb5bd}
.timeline rect.b-rows{fill:#2f9e44}
.timeline rect.b-error{fill:#c92a2a}
.timeline rect.b-wait{fill:#a5d8ff}
.timeline rect.b-lock{fill:#f59f00}
.timeline rect.b-skip{fill:#f8f9fa;stroke:#868e96;stroke-width:1;stroke-dasharray:3 2}
.timeline g.barrier line{stroke:#5f3dc4;stroke-width:1.5;stroke-dasharray:6 4}
.timeline g.barrier text{fill:#5f3dc4;font-weight:600}
p.legend{font-size:14px;color:#495057;margin:2px 0 12px}
p.legend span{display:inline-block;border-left:14px solid;padding-left:6px;margin-right:16px;line-height:16px}
p.legend span.k-ok{border-left-color:#adb5bd}
p.legend span.k-rows{border-left-color:#2f9e44}
p.legend span.k-error{border-left-color:#c92a2a}
p.legend span.k-skip{border-left-color:#dee2e6}
p.legend span.k-wait{border-left-color:#a5d8ff}
p.legend span.k-lock{border-left-color:#f59f00}
p.legend span.k-barrier{border-left:2px dashed #5f3dc4;padding-left:10px}
)css";
static_assert(NeedsNoEscaping(kCss), "CSS inside <style> is not unescaped by the browser");

std::string Num(double value) { return fmt::format("{:.1f}", value); }

// "1.5", "20", "0.25": µs as ms without trailing zeros, for tick labels.
std::string TickLabel(int64_t us) {
  std::string text = FormatUsAsMs(us);
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

// Tick spacing: the smallest 1, 2 or 5 × 10^k µs that gives at most about 7 ticks.
int64_t TickStep(int64_t span_us) {
  for (int64_t power = 1;; power *= 10) {
    for (int64_t m : {1, 2, 5}) {
      if (m * power * 7 >= span_us) return m * power;
    }
  }
}

size_t CodePoints(std::string_view text) {
  size_t n = 0;
  for (char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

double TextWidth(std::string_view text) {
  return static_cast<double>(CodePoints(text)) * kCharWidth;
}

// `text` cut to at most `max` code points, the last one "…" when cut (lane labels must fit the
// label column; the full text is in the step table).
std::string Truncate(std::string_view text, size_t max) {
  if (CodePoints(text) <= max) return std::string(text);
  size_t kept = 0, pos = 0;
  while (pos < text.size() && kept < max - 1) {
    ++pos;
    while (pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) ++pos;
    ++kept;
  }
  return std::string(text.substr(0, pos)) + "…";
}

std::string_view OutcomeClass(const StepEvent& e) {
  if (e.skipped) return "b-skip";
  if (!e.sqlstate.empty()) return "b-error";
  if (InfoOf(e.kind).is_wait) return "b-wait";
  return e.rows > 0 ? "b-rows" : "b-ok";
}

// Bar labels, longest first: the first that fits is written.
std::vector<std::string> LabelCandidates(const StepEvent& e) {
  const std::string step = StepLabel(e);  // "UPDATE runs", "claim #2"
  std::vector<std::string> out;
  if (e.skipped) {
    out.push_back(step + " (skipped)");
  } else if (e.lock_wait) {
    // The result after the wait is what the lesson is about: "→ 0 rows", "→ 40001".
    const std::string result = !e.sqlstate.empty() ? ErrorKey(e.sqlstate, e.error_code)
                               : e.rows >= 0
                                   ? fmt::format("{} row{}", e.rows, e.rows == 1 ? "" : "s")
                                   : "ok";
    const std::string blocked = fmt::format("{}: blocked {} ms", step, FormatMs(e.blocked_ms()));
    const std::string by =
        e.blocked_by.empty() ? "" : fmt::format(" by {}", fmt::join(e.blocked_by, ", "));
    out.push_back(fmt::format("{}{} → {}", blocked, by, result));
    if (!by.empty()) out.push_back(blocked + by);
    out.push_back(fmt::format("{} → {}", blocked, result));
    out.push_back(blocked);
  } else if (!e.sqlstate.empty()) {
    out.push_back(step + ": " + ErrorKey(e.sqlstate, e.error_code));
  } else if (e.kind == StepKind::kSql && e.rows >= 0) {
    out.push_back(fmt::format("{}: {} row{}", step, e.rows, e.rows == 1 ? "" : "s"));
  }
  out.push_back(step);
  return out;
}

std::string Tooltip(const StepEvent& e) {
  std::string text = fmt::format(
      "{} · {} ({}) · {}–{} ms · {}", e.session, StepLabel(e),
      IsGeneratedStepName(e.step, e.kind) ? std::string_view(e.step) : StepKindName(e.kind),
      FormatUsAsMs(e.sent_us), FormatUsAsMs(e.completed_us), StepOutcomeText(e));
  if (e.lock_wait) {
    text += fmt::format(" · blocked {} ms", FormatMs(e.blocked_ms()));
    if (e.lock_wait_source == "server_log")
      text += " from " + FormatUsAsMs(e.lock_wait_start_us) + " ms";
    const std::string by = BlockedByText(e);
    if (!by.empty()) text += " by " + by;
  }
  return text;
}

struct Lane {
  std::string label;
  std::string note;  // the session's outcome: "won, claim=1", "40001", …
  std::vector<const StepEvent*> steps;
};

std::vector<Lane> Lanes(const TrialResult& trial) {
  std::vector<Lane> lanes;
  for (const SessionResult& s : trial.sessions) {
    std::string note = s.won                 ? "won"
                       : !s.sqlstate.empty() ? "ended by " + ErrorKey(s.sqlstate, s.error_code)
                       : s.committed         ? "committed"
                                             : "no commit";
    if (s.won && s.claim.has_value()) note += ", claim=" + *s.claim;
    if (s.attempts > 1) note += fmt::format(", {} tries", s.attempts);
    lanes.push_back(Lane{s.label, note, {}});
  }
  for (const StepEvent& e : trial.events) {
    auto it = std::find_if(lanes.begin(), lanes.end(),
                           [&](const Lane& lane) { return lane.label == e.session; });
    if (it == lanes.end()) it = lanes.insert(lanes.end(), Lane{e.session, "", {}});
    it->steps.push_back(&e);
  }
  return lanes;
}

struct BarrierMark {
  const BarrierRelease* release;
  std::string label;
  double x;
  int row;
  bool anchor_end;  // label to the left of the line (near the right edge)
};

std::vector<BarrierMark> LayoutBarriers(const TrialResult& trial, double scale, int* rows) {
  std::vector<BarrierMark> marks;
  std::array<double, kMaxBandRows> row_end;
  row_end.fill(-std::numeric_limits<double>::infinity());
  *rows = 0;
  for (const BarrierRelease& b : trial.barriers) {
    const bool repeated =
        std::count_if(trial.barriers.begin(), trial.barriers.end(),
                      [&](const BarrierRelease& o) { return o.barrier == b.barrier; }) > 1;
    BarrierMark mark{&b, repeated ? fmt::format("{} #{}", b.barrier, b.occurrence) : b.barrier,
                     kPlotLeft + static_cast<double>(b.released_us) * scale, 0, false};
    const double width = TextWidth(mark.label);
    mark.anchor_end = mark.x + 3 + width > kWidth;
    const double start = mark.anchor_end ? mark.x - 3 - width : mark.x + 3;
    int row = 0;
    while (row < kMaxBandRows && row_end[row] > start - 6) ++row;
    if (row == kMaxBandRows) {
      row = static_cast<int>(std::min_element(row_end.begin(), row_end.end()) - row_end.begin());
    }
    mark.row = row;
    row_end[row] = start + width;
    *rows = std::max(*rows, row + 1);
    marks.push_back(std::move(mark));
  }
  return marks;
}

void Rect(XmlWriter& xml, double x, double y, double w, double h, std::string_view cls) {
  xml.StartElement("rect")
      .Attribute("class", cls)
      .Attribute("x", Num(x))
      .Attribute("y", Num(y))
      .Attribute("width", Num(w))
      .Attribute("height", Num(h))
      .EndElement();
}

void Text(XmlWriter& xml, double x, double y, std::string_view cls, std::string_view anchor,
          std::string_view text) {
  xml.StartElement("text").Attribute("x", Num(x)).Attribute("y", Num(y));
  if (!cls.empty()) xml.Attribute("class", cls);
  if (!anchor.empty()) xml.Attribute("text-anchor", anchor);
  xml.Text(text).EndElement();
}

void Line(XmlWriter& xml, double x1, double y1, double x2, double y2, std::string_view cls) {
  xml.StartElement("line")
      .Attribute("x1", Num(x1))
      .Attribute("y1", Num(y1))
      .Attribute("x2", Num(x2))
      .Attribute("y2", Num(y2));
  if (!cls.empty()) xml.Attribute("class", cls);
  xml.EndElement();
}

// A bar's label, written after the barrier lines so that no line crosses it.
struct BarLabel {
  double x, y;
  bool on_dark;
  std::string text;
};

// Writes the lane's bars and appends their labels to `labels`.
void WriteLaneSteps(const Lane& lane, double lane_y, double scale, XmlWriter& xml,
                    std::vector<BarLabel>* labels) {
  const auto bar_x = [&](const StepEvent& e) {
    return kPlotLeft + static_cast<double>(e.sent_us) * scale;
  };
  for (size_t i = 0; i < lane.steps.size(); ++i) {
    const StepEvent& e = *lane.steps[i];
    const double x = bar_x(e);
    const double w =
        std::max(kMinBarWidth, static_cast<double>(e.completed_us - e.sent_us) * scale);
    const double y = lane_y + kBarTop;
    const std::string_view outcome = OutcomeClass(e);
    // The server's record places the wait inside the bar (its own start and duration); a poll only
    // says the statement waited at some point, so its whole bar is the wait.
    const bool placed = e.lock_wait && !e.skipped && e.lock_wait_source == "server_log";
    const bool lock = e.lock_wait && !e.skipped && !placed;
    xml.StartElement("g");
    xml.StartElement("title").Text(Tooltip(e)).EndElement();
    Rect(xml, x, y, w, kBarHeight, fmt::format("bar {}", lock ? "b-lock" : outcome));
    if (lock && w >= 3 * kCapWidth) {
      Rect(xml, x + w - kCapWidth, y, kCapWidth, kBarHeight, fmt::format("bar {}", outcome));
    }
    bool on_lock = lock;  // the label sits mostly on the wait's colour
    if (placed) {
      const double wx =
          kPlotLeft + static_cast<double>(std::max(e.lock_wait_start_us, e.sent_us)) * scale;
      const double end = kPlotLeft + static_cast<double>(std::min(
                                         e.lock_wait_start_us + e.lock_wait_us, e.completed_us)) *
                                         scale;
      const double ww = std::max(kMinBarWidth, end - wx);
      Rect(xml, wx, y, ww, kBarHeight, "bar b-lock");
      on_lock = ww >= w / 2;
    }
    // The label: inside the bar, else in the gap before the lane's next step, else none.
    const double inside = w - (lock ? kCapWidth : 0) - 8;
    const double next_x = i + 1 < lane.steps.size() ? bar_x(*lane.steps[i + 1]) : kWidth;
    const double outside = next_x - (x + w) - 8;
    const bool dark = !on_lock && (outcome == "b-rows" || outcome == "b-error");
    for (const std::string& label : LabelCandidates(e)) {
      const double width = TextWidth(label);
      if (width <= inside) {
        labels->push_back(BarLabel{x + 4, y + 14, dark, label});
        break;
      }
      if (width <= outside) {
        labels->push_back(BarLabel{x + w + 4, y + 14, false, label});
        break;
      }
    }
    xml.EndElement();
  }
}

}  // namespace

std::string_view TimelineCss() { return kCss; }

void WriteSvgTimeline(const TrialResult& trial, XmlWriter& xml) {
  int64_t span_us = std::max<int64_t>(trial.duration_us, 1);
  for (const StepEvent& e : trial.events) span_us = std::max(span_us, e.completed_us);
  for (const BarrierRelease& b : trial.barriers) span_us = std::max(span_us, b.released_us);
  const double scale = (kPlotRight - kPlotLeft) / static_cast<double>(span_us);

  int band_rows = 0;
  const std::vector<BarrierMark> marks = LayoutBarriers(trial, scale, &band_rows);
  const std::vector<Lane> lanes = Lanes(trial);
  const double top = 6 + kBandRow * band_rows;
  const double bottom = top + kLaneHeight * static_cast<double>(std::max<size_t>(lanes.size(), 1));
  const double height = bottom + 28;

  xml.StartElement("svg")
      .Attribute("xmlns", "http://www.w3.org/2000/svg")
      .Attribute("class", "timeline")
      .Attribute("viewBox", fmt::format("0 0 {} {}", Num(kWidth), Num(height)))
      .Attribute("role", "img")
      .Attribute("aria-label", fmt::format("Timeline of trial {}: one lane per session, time in ms",
                                           trial.index + 1));
  // Lane stripes and labels, grid lines, bars, barrier releases, then bar labels on top.
  for (size_t i = 0; i < lanes.size(); ++i) {
    const double y = top + kLaneHeight * static_cast<double>(i);
    if (i % 2 == 0) Rect(xml, 0, y, kWidth, kLaneHeight, "stripe");
    Text(xml, kPlotLeft - 10, y + 17, "lane", "end", Truncate(lanes[i].label, kMaxLabel));
    if (!lanes[i].note.empty()) {
      Text(xml, kPlotLeft - 10, y + 31, "note", "end", Truncate(lanes[i].note, kMaxNote));
    }
  }
  if (lanes.empty()) Text(xml, kPlotLeft + 4, top + 22, "note", "", "no steps recorded");
  const int64_t step = TickStep(span_us);
  for (int64_t t = 0; t <= span_us; t += step) {
    const double x = kPlotLeft + static_cast<double>(t) * scale;
    Line(xml, x, top, x, bottom, "grid");
    Line(xml, x, bottom, x, bottom + 5, "axis");
    Text(xml, x, bottom + 18, "tick", "middle", TickLabel(t));
  }
  Line(xml, kPlotLeft, bottom, kPlotRight, bottom, "axis");
  Text(xml, kPlotLeft - 10, bottom + 18, "tick", "end", "ms since start");
  std::vector<BarLabel> labels;
  for (size_t i = 0; i < lanes.size(); ++i) {
    WriteLaneSteps(lanes[i], top + kLaneHeight * static_cast<double>(i), scale, xml, &labels);
  }
  for (const BarrierMark& m : marks) {
    xml.StartElement("g").Attribute("class", "barrier");
    xml.StartElement("title")
        .Text(fmt::format("barrier {} #{} released at {} ms, skew {} µs", m.release->barrier,
                          m.release->occurrence, FormatUsAsMs(m.release->released_us),
                          m.release->skew_us))
        .EndElement();
    const double label_y = 6 + kBandRow * (m.row + 1) - 4;
    Line(xml, m.x, label_y + 3, m.x, bottom, "");
    Text(xml, m.anchor_end ? m.x - 3 : m.x + 3, label_y, "", m.anchor_end ? "end" : "", m.label);
    xml.EndElement();
  }
  for (const BarLabel& l : labels) Text(xml, l.x, l.y, l.on_dark ? "bl on-dark" : "bl", "", l.text);
  xml.EndElement();  // svg
}

void WriteTimelineLegend(XmlWriter& xml) {
  static constexpr std::pair<std::string_view, std::string_view> kKeys[] = {
      {"k-ok", "ok"},
      {"k-rows", "rows returned"},
      {"k-error", "SQLSTATE error"},
      {"k-skip", "skipped"},
      {"k-wait", "barrier / sleep / await wait"},
      {"k-lock", "lock wait (end cap: its result)"},
      {"k-barrier", "barrier release"},
  };
  xml.StartElement("p").Attribute("class", "legend");
  for (const auto& [cls, text] : kKeys) {
    xml.StartElement("span").Attribute("class", cls).Text(text).EndElement();
  }
  xml.EndElement();
}

}  // namespace racelab::internal
