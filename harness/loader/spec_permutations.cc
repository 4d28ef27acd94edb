#include "harness/loader/spec_permutations.h"

#include <fmt/format.h>

#include <map>
#include <tuple>

namespace racelab {
namespace {

std::string OrderName(const IsolationSpec& spec, const std::vector<OrderedStep>& steps) {
  std::string name;
  for (const OrderedStep& s : steps) {
    if (!name.empty()) name += ' ';
    name += spec.sessions[s.session].steps[s.step].name;
  }
  return name;
}

// The number of interleavings, saturated just past `cap`.
size_t CountInterleavings(const IsolationSpec& spec, size_t cap) {
  // Multinomial coefficient built one binomial at a time: C(total, n_i) products.
  double count = 1;
  int total = 0;
  for (const SpecSession& s : spec.sessions) {
    int n = static_cast<int>(s.steps.size());
    for (int k = 1; k <= n; ++k) {
      count = count * (total + k) / k;
      if (count > static_cast<double>(cap)) return cap + 1;
    }
    total += n;
  }
  return static_cast<size_t>(count + 0.5);
}

void Interleave(const IsolationSpec& spec, std::vector<int>* taken, std::vector<OrderedStep>* prefix,
                std::vector<StepOrder>* out) {
  bool any = false;
  for (size_t i = 0; i < spec.sessions.size(); ++i) {
    int next = (*taken)[i];
    if (next >= static_cast<int>(spec.sessions[i].steps.size())) continue;
    any = true;
    prefix->push_back(OrderedStep{static_cast<int>(i), next, {}});
    ++(*taken)[i];
    Interleave(spec, taken, prefix, out);
    --(*taken)[i];
    prefix->pop_back();
  }
  if (!any) out->push_back(StepOrder{OrderName(spec, *prefix), *prefix});
}

}  // namespace

Result<std::vector<StepOrder>> ExpandSpecPermutations(const IsolationSpec& spec) {
  std::vector<StepOrder> out;
  if (spec.permutations.empty()) {
    size_t n = CountInterleavings(spec, kMaxSpecPermutations);
    if (n > kMaxSpecPermutations) {
      return Status::Usage(fmt::format(
          "{}: no permutation lines, and its sessions' steps have more than {} interleavings; list the "
          "orders to run with 'permutation' lines",
          spec.loc.file, kMaxSpecPermutations));
    }
    std::vector<int> taken(spec.sessions.size(), 0);
    std::vector<OrderedStep> prefix;
    Interleave(spec, &taken, &prefix, &out);
    return out;
  }
  std::map<std::string, std::pair<int, int>> where;
  for (size_t i = 0; i < spec.sessions.size(); ++i) {
    for (size_t j = 0; j < spec.sessions[i].steps.size(); ++j) {
      where[spec.sessions[i].steps[j].name] = {static_cast<int>(i), static_cast<int>(j)};
    }
  }
  for (const SpecPermutation& perm : spec.permutations) {
    StepOrder order;
    for (const SpecPermutationStep& p : perm.steps) {
      auto [session, step] = where.at(p.name);  // the parser checked every name
      OrderedStep os{session, step, {}};
      for (const SpecBlocker& b : p.blockers) {
        OrderedBlocker ob;
        ob.kind = b.kind;
        ob.notices = b.notices;
        if (b.kind != SpecBlocker::Kind::kOnce) std::tie(ob.session, ob.step) = where.at(b.step);
        os.blockers.push_back(ob);
      }
      order.steps.push_back(std::move(os));
    }
    order.name = OrderName(spec, order.steps);
    out.push_back(std::move(order));
  }
  return out;
}

}  // namespace racelab
