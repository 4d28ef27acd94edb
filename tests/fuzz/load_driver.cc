// racelab_load_driver FILE [--set-all VALUE]: loads FILE and plans it for every isolation level the
// way `racelab explain` and `racelab run` do, and exits like them: 0 when it loads and plans, 2
// with "racelab: <message>" on stderr when it does not. --set-all gives every param the scenario
// declares the value VALUE (as `--set NAME=VALUE` would). Built with sanitizers for the fuzz test.
#include <iostream>
#include <string>

#include "harness/loader/catalogue.h"
#include "harness/loader/planner.h"

int main(int argc, char** argv) {
  using namespace racelab;
  if (argc != 2 && !(argc == 4 && std::string(argv[2]) == "--set-all")) {
    std::cerr << "usage: racelab_load_driver FILE [--set-all VALUE]\n";
    return 64;
  }
  Result<std::vector<Scenario>> loaded = LoadScenarios({argv[1]}, "/nonexistent-catalogue");
  if (!loaded.ok()) {
    std::cerr << "racelab: " << loaded.status().message() << "\n";
    return 2;
  }
  for (const Scenario& scenario : *loaded) {
    PlanOptions options;
    options.isolation = AllIsolationLevels();
    if (argc == 4) {
      for (const auto& [name, unused] : scenario.params) options.set[name] = argv[3];
    }
    Result<std::vector<PlanItem>> items = ExpandScenario(scenario, options);
    if (!items.ok()) {
      std::cerr << "racelab: " << items.status().message() << "\n";
      return 2;
    }
  }
  return 0;
}
