// racelab-bench --help: what its benchmark families measure, their counters and context, and the
// environment variables it reads, then Google Benchmark's own flags (benchmark::PrintDefaultHelp).
// Passed to benchmark::Initialize, which calls it for --help (and for an unusable flag value) and
// exits 0. Thread-safety: call from main() only.
#pragma once

namespace racelab::bench {

// The text above racelab-bench's part of --help; PrintHelp prints it, then Google Benchmark's.
const char* HelpText();
void PrintHelp();

}  // namespace racelab::bench
