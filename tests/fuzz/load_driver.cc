// racelab_load_driver FILE [--set-all VALUE]: loads FILE and plans it for every isolation level the
// way `racelab explain` and `racelab run` do, and exits like them: 0 when it loads and plans, 2
// with "racelab: <message>" on stderr when it does not. --set-all gives every param the scenario
// declares the value VALUE (as `--set NAME=VALUE` would). A FILE ending in .spec is a PostgreSQL
// isolation spec file, read as `racelab list`, `run` and `convert` read it: parsed, its
// permutations counted and expanded, and converted to a scenario. Built with sanitizers for the
// fuzz test.
#include <iostream>
#include <string>

#include "harness/loader/catalogue.h"
#include "harness/loader/planner.h"
#include "harness/loader/spec_convert.h"
#include "harness/loader/spec_parser.h"
#include "harness/loader/spec_permutations.h"

namespace {

int LoadSpec(const std::string& path) {
  using namespace racelab;
  Result<IsolationSpec> spec = LoadSpecFile(path);
  Result<size_t> count = spec.ok() ? CountSpecPermutations(*spec) : Result<size_t>(spec.status());
  Result<std::vector<StepOrder>> orders =
      count.ok() ? ExpandSpecPermutations(*spec) : Result<std::vector<StepOrder>>(count.status());
  if (!orders.ok()) {
    std::cerr << "racelab: " << orders.status().message() << "\n";
    return 2;
  }
  std::vector<NumberedOrder> all;
  for (size_t i = 0; i < orders->size(); ++i) all.push_back(NumberedOrder{i + 1, &(*orders)[i]});
  ConvertSpec(*spec, all);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace racelab;
  if (argc != 2 && !(argc == 4 && std::string(argv[2]) == "--set-all")) {
    std::cerr << "usage: racelab_load_driver FILE [--set-all VALUE]\n";
    return 64;
  }
  if (IsSpecPath(argv[1])) return LoadSpec(argv[1]);
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
