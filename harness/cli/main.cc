// racelab: the command-line entry point. Thin by design: see harness/cli/app.h.
#include "harness/cli/app.h"

int main(int argc, char** argv) { return racelab::cli::Main(argc, argv); }
