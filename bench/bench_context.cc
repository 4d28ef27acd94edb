#include "bench/bench_context.h"

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace racelab::bench {

std::string LoadAverage() {
  double load[3];
  if (getloadavg(load, 3) != 3) return "unavailable";
  char text[64];
  std::snprintf(text, sizeof text, "%.2f %.2f %.2f", load[0], load[1], load[2]);
  return text;
}

std::map<std::string, std::string> MachineContextBefore() {
  return {{"online_cpus", std::to_string(sysconf(_SC_NPROCESSORS_ONLN))},
          {"load_avg_before", LoadAverage()}};
}

std::map<std::string, std::string> MachineContextAfter() {
  return {{"load_avg_after", LoadAverage()}};
}

const ServerFacts& PostgresServerFacts() {
  static const ServerFacts facts = {
      {"server_version", "current_setting('server_version')"},
      {"setting_fsync", "current_setting('fsync')"},
      {"setting_synchronous_commit", "current_setting('synchronous_commit')"},
      {"setting_shared_buffers", "current_setting('shared_buffers')"},
      {"setting_full_page_writes", "current_setting('full_page_writes')"},
  };
  return facts;
}

Result<std::map<std::string, std::string>> ServerContext(Session* session,
                                                         const ServerFacts& facts) {
  std::string sql = "SELECT ";
  for (size_t i = 0; i < facts.size(); ++i) sql += (i == 0 ? "" : ", ") + facts[i].second;
  const QueryResult r =
      session->Exec(sql, std::chrono::steady_clock::now() + std::chrono::seconds(10));
  if (!r.ok()) return Status::Database("reading the server's settings: " + r.message);
  if (r.values.empty() || r.values[0].size() != facts.size())
    return Status::Database("reading the server's settings: no row");
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < facts.size(); ++i) out[facts[i].first] = r.values[0][i].value_or("NULL");
  return out;
}

std::chrono::duration<double> BenchSeconds(double fallback) {
  const char* v = std::getenv("RACELAB_BENCH_SECONDS");
  const double s = v != nullptr ? std::atof(v) : 0;
  return std::chrono::duration<double>(s > 0 ? s : fallback);
}

void AddContext(const std::map<std::string, std::string>& entries) {
  for (const auto& [key, value] : entries) benchmark::AddCustomContext(key, value);
}

}  // namespace racelab::bench
