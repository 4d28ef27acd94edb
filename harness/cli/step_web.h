// `racelab step --web [HOST:]PORT`: the walk served as a page (harness/web/step_web_server.h,
// docs/step.md "In a browser") while the terminal says where it is and waits for q + Enter, the
// page's Quit, Ctrl-C or SIGTERM. Thread-safety: main thread.
#pragma once

#include <string>

#include "harness/cli/step_ui.h"
#include "harness/model/status.h"

namespace racelab::cli {

// Before the engine starts: the address parses, and one that is not loopback comes with a token
// (--web-token: 16-128 of A-Z a-z 0-9 - _, so it goes into a URL as it is). kUsage otherwise.
Status CheckStepWebArgs(const std::string& address, const std::string& token);

// Serves the walk until quit; prints the page's URL on `out` first. Returns the exit code (2 when
// the address cannot be bound).
int RunStepWeb(const StepUi& ui, const std::string& address, const std::string& token,
               std::ostream& out);

}  // namespace racelab::cli
