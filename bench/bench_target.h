// The server a benchmark binary measures, as an Engine (harness/engine_registry/open_engine.h):
// $RACELAB_BENCH_DSN when set, else a throwaway embedded server started here and stopped when the
// engine is destroyed. Scenario SQL is not confined (the benchmarks create their own schema).
// Thread-safety: call once from main() before any benchmark runs.
#pragma once

#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "harness/engine_registry/open_engine.h"
#include "harness/engines/postgresql/cluster.h"

namespace racelab {

// The engine to measure, or nullptr after printing why it could not be opened (prefixed with
// `program`); the caller then exits 3.
inline std::unique_ptr<Engine> BenchEngine(const char* program) {
  EngineOptions options;
  if (const char* dsn = std::getenv("RACELAB_BENCH_DSN"); dsn != nullptr && *dsn != '\0')
    options.dsn = dsn;
  options.confine = false;
  options.allow_superuser = true;
  auto engine = OpenEngine(options);
  if (!engine.ok()) {
    std::cerr << program << ": " << engine.status().message() << "\n";
    return nullptr;
  }
  return std::move(engine.value());
}

// PostgreSQL only, for the benchmarks that measure libpq itself (protocol_claims.h): the conninfo
// to connect to, or nullopt after printing why the embedded cluster could not start; the cluster is
// stopped when `*cluster` is destroyed.
inline std::optional<std::string> BenchTarget(const char* program,
                                              std::unique_ptr<pg::EmbeddedCluster>* cluster) {
  if (const char* dsn = std::getenv("RACELAB_BENCH_DSN"); dsn != nullptr && *dsn != '\0')
    return std::string(dsn);
  auto started = pg::EmbeddedCluster::Start(pg::ClusterOptions{});
  if (!started.ok()) {
    std::cerr << program << ": " << started.status().message() << "\n";
    return std::nullopt;
  }
  *cluster = std::move(started.value());
  return (*cluster)->conninfo();
}

}  // namespace racelab
