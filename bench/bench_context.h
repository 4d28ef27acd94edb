// What a benchmark's figures depend on besides the code, for its JSON context: the machine (online
// CPUs, load average before and after the runs: on a shared machine the load decides the tails) and
// the server (version, and the settings that change the cost of a commit or a read). Google
// Benchmark adds its own (host_name, num_cpus, mhz_per_cpu, caches, load_avg at the start,
// library_build_type).
//   online_cpus        sysconf(_SC_NPROCESSORS_ONLN) when the benchmark starts
//   load_avg_before    getloadavg(3) 1, 5 and 15 minutes, "1.52 1.61 1.70", before the first run
//   load_avg_after     the same after the last run (bench/context_last.h adds it)
//   server_version     the server's own version string
//   setting_<name>     a server setting as the server shows it ("off", "128MB"); PostgreSQL: fsync,
//                      synchronous_commit, shared_buffers, full_page_writes
// Thread-safety: call from main(); ServerContext uses `session` on the calling thread.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "harness/engine/session.h"
#include "harness/model/status.h"

namespace racelab::bench {

// The 1, 5 and 15 minute load averages, "1.52 1.61 1.70"; "unavailable" when getloadavg fails.
std::string LoadAverage();

// online_cpus and load_avg_before, now.
std::map<std::string, std::string> MachineContextBefore();
// load_avg_after, now.
std::map<std::string, std::string> MachineContextAfter();

// Context key → SQL expression, read in one SELECT.
using ServerFacts = std::vector<std::pair<std::string, std::string>>;
// PostgreSQL's: server_version and
// setting_{fsync,synchronous_commit,shared_buffers,full_page_writes}.
const ServerFacts& PostgresServerFacts();

// The facts' values on `session` (10 s deadline), or a kDatabase error naming the statement's
// error. A NULL value reads "NULL".
Result<std::map<std::string, std::string>> ServerContext(Session* session,
                                                         const ServerFacts& facts);

// $RACELAB_BENCH_SECONDS when it is a number > 0, else `fallback`: how long each thread of a
// time-bound benchmark runs (as pgbench -T).
std::chrono::duration<double> BenchSeconds(double fallback);
// racelab-bench's fallback (its …/iterations:1/… families), as pgbench's usual -T of a short run.
inline constexpr double kSecondsDefault = 5;

// benchmark::AddCustomContext for each entry.
void AddContext(const std::map<std::string, std::string>& entries);

}  // namespace racelab::bench
