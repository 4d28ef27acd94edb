// Helpers of the step mode's unit tests (on the scripted FakeEngine): a deadline, one key's step
// awaited until the walk is quiet again, a session's column of the view by its label.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>

#include "harness/step/step_session.h"

namespace racelab::step::walk_testing {

// A deadline `ms` milliseconds from now.
inline SteadyTime In(int ms) {
  return std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
}

// Next() and wait (at most 5 s) until the trial is quiet again; a failure if either fails.
inline void Step(StepSession* s) {
  const int before = s->releases();
  ASSERT_TRUE(s->Next().ok());
  ASSERT_TRUE(s->AwaitQuiet(before, In(5000)));
}

// The view's column of session `label`. Throws std::logic_error if there is none.
inline const SessionView& Of(const StepView& v, const std::string& label) {
  for (const SessionView& s : v.sessions) {
    if (s.label == label) return s;
  }
  throw std::logic_error("no session " + label);
}

}  // namespace racelab::step::walk_testing
