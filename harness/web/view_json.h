// The step view as the page reads it (docs/step.md "In a browser"): one JSON object per StepView,
// the same fields the terminal shows — per session its next step (name, label) and SQL, its
// question (next_ask), last result, state and the wait (waiting_for, wait_type); the questions
// `ask_next` and `asked` ({session, step, step_label, question, answer: [lines]} or null); the
// locks (session, mode, object, lock type, granted, change '+', '-' or ' '); the wait-for edges
// (waiter -> holder); the walk's phase and message; the transcript's last lines. Text that is not
// UTF-8 is replaced, never thrown on.
//
// Thread-safety: a plain function of a value.
#pragma once

#include <string>

#include "harness/step/step_view.h"

namespace racelab::web {

// At most `transcript_lines` of the transcript's last lines.
std::string ViewJson(const step::StepView& view, size_t transcript_lines = 40);

}  // namespace racelab::web
