// Moved to harness/model/stop_flag.h (the engines use it too, and they sit below the runner:
// docs/architecture.md "Stages"). Kept so that code written before the move still builds.
#pragma once

#include "harness/model/stop_flag.h"
