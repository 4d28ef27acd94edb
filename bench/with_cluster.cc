// racelab-with-cluster: starts racelab's embedded PostgreSQL cluster
// (harness/engines/postgresql/cluster.h, the settings racelab runs scenarios on), runs COMMAND with
// RACELAB_BENCH_DSN set to its conninfo, then stops and removes the cluster. So several tools
// (racelab-bench, pgbench, the Python reference harness) can be measured on one server in one run:
//   racelab-with-cluster -- /usr/bin/python3 bench/compare_pgbench.py
// Exit status: COMMAND's (128 + signal if it was killed), 2 for a usage error, 3 when the cluster
// cannot start. SIGINT/SIGTERM reach COMMAND (same process group); the cluster is stopped after it
// exits.
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>

#include "harness/engines/postgresql/cluster.h"

int main(int argc, char** argv) {
  int first = 1;
  if (first < argc && std::strcmp(argv[first], "--") == 0) ++first;
  if (first >= argc) {
    std::cerr << "usage: racelab-with-cluster [--] COMMAND [ARG...]\n";
    return 2;
  }
  auto started = racelab::pg::EmbeddedCluster::Start(racelab::pg::ClusterOptions{});
  if (!started.ok()) {
    std::cerr << "racelab-with-cluster: " << started.status().message() << "\n";
    return 3;
  }
  std::unique_ptr<racelab::pg::EmbeddedCluster> cluster = std::move(started.value());
  pid_t child = fork();
  if (child == 0) {
    setenv("RACELAB_BENCH_DSN", cluster->conninfo().c_str(), 1);
    execvp(argv[first], argv + first);
    std::cerr << "racelab-with-cluster: cannot run " << argv[first] << ": " << std::strerror(errno)
              << "\n";
    _exit(127);
  }
  signal(SIGINT, SIG_IGN);  // the child decides; the cluster is stopped after it exits
  signal(SIGTERM, SIG_IGN);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  cluster->Stop();
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
