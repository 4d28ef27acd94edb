// The server a benchmark binary measures: $RACELAB_BENCH_DSN when set, else a throwaway embedded
// PostgreSQL cluster started here and stopped when `*cluster` is destroyed.
// Thread-safety: call once from main() before any benchmark runs.
#pragma once

#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "harness/embedded/cluster.h"

namespace racelab {

// The conninfo to connect to, or nullopt after printing why the embedded cluster could not start
// (prefixed with `program`); the caller then exits 3.
inline std::optional<std::string> BenchTarget(const char* program, std::unique_ptr<EmbeddedCluster>* cluster) {
  if (const char* dsn = std::getenv("RACELAB_BENCH_DSN"); dsn != nullptr && *dsn != '\0') return std::string(dsn);
  auto started = EmbeddedCluster::Start(ClusterOptions{});
  if (!started.ok()) {
    std::cerr << program << ": " << started.status().message() << "\n";
    return std::nullopt;
  }
  *cluster = std::move(started.value());
  return (*cluster)->conninfo();
}

}  // namespace racelab
