#include "harness/loader/spec_permutations.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "harness/loader/spec_lexer.h"
#include "harness/loader/spec_parser.h"

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

// One step of a permutation line as written: its name and its markers, each as the spec writes it.
struct WrittenStep {
  std::string name;
  std::vector<std::string> markers;  // "*", "s1a", "s1a notices 2"
};

std::string Join(const std::vector<WrittenStep>& steps, bool markers) {
  std::string out;
  for (const WrittenStep& s : steps) {
    if (!out.empty()) out += ' ';
    out += s.name;
    if (markers && !s.markers.empty()) out += fmt::format("({})", fmt::join(s.markers, ", "));
  }
  return out;
}

std::string Marker(SpecBlocker::Kind kind, const std::string& step, int notices) {
  if (kind == SpecBlocker::Kind::kOnce) return "*";
  const std::string name = spec_internal::WriteName(step);
  return kind == SpecBlocker::Kind::kStep ? name : fmt::format("{} notices {}", name, notices);
}

// `selector` read as the steps of a permutation line and written back as WrittenPermutation writes
// one; "" when it does not read as one (then only a number or the bare names can match it).
std::string Normalized(const std::string& selector) {
  Result<SpecPermutation> perm = ParseSpecPermutationSteps(selector, "--permutation");
  if (!perm.ok()) return "";
  std::vector<WrittenStep> steps;
  for (const SpecPermutationStep& step : perm->steps) {
    WrittenStep w{spec_internal::WriteName(step.name), {}};
    for (const SpecBlocker& b : step.blockers) w.markers.push_back(Marker(b.kind, b.step, b.notices));
    steps.push_back(std::move(w));
  }
  return Join(steps, true);
}

bool Names(const IsolationSpec& spec, const std::string& selector, size_t number, const StepOrder& order) {
  if (selector == std::to_string(number) || selector == order.name) return true;
  const std::string normalized = Normalized(selector);
  return !normalized.empty() &&
         (normalized == WrittenPermutation(spec, order) || normalized == WrittenPermutation(spec, order, false));
}

}  // namespace

std::string WrittenPermutation(const IsolationSpec& spec, const StepOrder& order, bool markers) {
  auto name = [&](int session, int step) -> const std::string& {
    return spec.sessions[static_cast<size_t>(session)].steps[static_cast<size_t>(step)].name;
  };
  std::vector<WrittenStep> steps;
  for (const OrderedStep& s : order.steps) {
    WrittenStep w{spec_internal::WriteName(name(s.session, s.step)), {}};
    for (const OrderedBlocker& b : s.blockers) {
      w.markers.push_back(Marker(b.kind, b.kind == SpecBlocker::Kind::kOnce ? "" : name(b.session, b.step), b.notices));
    }
    steps.push_back(std::move(w));
  }
  return Join(steps, markers);
}

Result<std::vector<size_t>> SelectSpecPermutations(const IsolationSpec& spec, const std::vector<StepOrder>& orders,
                                                   const std::vector<std::string>& selectors) {
  std::vector<bool> chosen(orders.size(), selectors.empty());
  for (const std::string& selector : selectors) {
    bool any = false;
    for (size_t i = 0; i < orders.size(); ++i) {
      if (!Names(spec, selector, i + 1, orders[i])) continue;
      chosen[i] = true;
      any = true;
    }
    if (any) continue;
    std::string list;
    for (size_t i = 0; i < orders.size() && i < kMaxListedPermutations; ++i) {
      list += fmt::format("\n  {}: {}", i + 1, WrittenPermutation(spec, orders[i]));
    }
    if (orders.size() > kMaxListedPermutations) {
      list += fmt::format("\n  … and {} more (racelab convert {} lists every one, numbered)",
                          orders.size() - kMaxListedPermutations, spec.loc.file);
    }
    return Status::Usage(fmt::format("{}: --permutation {} names none of its {} permutation{}; give a number from "
                                     "1 to {}, the permutation as the spec writes it (markers included) or its "
                                     "step names alone:{}",
                                     spec.loc.file, selector, orders.size(), orders.size() == 1 ? "" : "s",
                                     orders.size(), list));
  }
  std::vector<size_t> out;
  for (size_t i = 0; i < orders.size(); ++i) {
    if (chosen[i]) out.push_back(i);
  }
  return out;
}

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
