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

Status LocError(const SourceLoc& loc, const std::string& what) {
  return Status::Usage(fmt::format("{}:{}:{}: {}", loc.file, loc.line, loc.column, what));
}

// The number of interleavings (the multinomial coefficient (n1+n2+…)! / (n1!·n2!·…), built one
// binomial factor at a time), or an error at the step that takes it past kMaxSpecPermutations.
Result<size_t> CountInterleavings(const IsolationSpec& spec) {
  double count = 1;
  size_t total = 0;
  for (const SpecSession& s : spec.sessions) {
    for (size_t k = 1; k <= s.steps.size(); ++k) {
      // C(total + k, k) = C(total + k - 1, k - 1) · (total + k) / k: exact while it stays under
      // 2^53.
      count = count * static_cast<double>(total + k) / static_cast<double>(k);
      if (count > static_cast<double>(kMaxSpecPermutations) + 0.5) {
        const SpecStep& step = s.steps[k - 1];
        SourceLoc loc = step.loc.line > 0 ? step.loc : SourceLoc{spec.loc.file, 1, 1};
        return LocError(
            loc,
            fmt::format("step \"{}\": with it the sessions' steps have more than {} interleavings "
                        "(at most {} without permutation lines); list the orders to run with "
                        "'permutation' lines",
                        step.name, kMaxSpecPermutations, kMaxSpecPermutations));
      }
    }
    total += s.steps.size();
  }
  return static_cast<size_t>(count + 0.5);
}

// Every interleaving in isolationtester's order (depth first, the lowest-numbered session's next
// step first), by an explicit walk: `path` holds the session chosen at each depth.
void Interleave(const IsolationSpec& spec, std::vector<StepOrder>* out) {
  size_t total = 0;
  for (const SpecSession& s : spec.sessions) total += s.steps.size();
  std::vector<int> taken(spec.sessions.size(), 0);
  std::vector<OrderedStep> prefix;
  prefix.reserve(total);
  size_t from = 0;  // the lowest session to try at the current depth
  for (;;) {
    if (prefix.size() == total) {
      out->push_back(StepOrder{OrderName(spec, prefix), prefix});
    } else {
      size_t i = from;
      while (i < spec.sessions.size() &&
             static_cast<size_t>(taken[i]) >= spec.sessions[i].steps.size())
        ++i;
      if (i < spec.sessions.size()) {
        prefix.push_back(OrderedStep{static_cast<int>(i), taken[i], {}});
        ++taken[i];
        from = 0;
        continue;
      }
    }
    // Back up: undo the last choice and try the next session at that depth.
    if (prefix.empty()) return;
    const size_t last = static_cast<size_t>(prefix.back().session);
    prefix.pop_back();
    --taken[last];
    from = last + 1;
  }
}

// The steps all `orders_count` orders run together; an error past limits::kMaxSpecPlanSteps.
Status CheckPlanSteps(const IsolationSpec& spec, size_t orders_count, size_t steps,
                      const SourceLoc& where) {
  if (steps <= limits::kMaxSpecPlanSteps) return Status::Ok();
  SourceLoc loc = where.line > 0 ? where : SourceLoc{spec.loc.file, 1, 1};
  return LocError(
      loc,
      fmt::format("the permutations would run {} steps; at most {} are allowed in one spec "
                  "({} permutation{})",
                  steps, limits::kMaxSpecPlanSteps, orders_count, orders_count == 1 ? "" : "s"));
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
    for (const SpecBlocker& b : step.blockers)
      w.markers.push_back(Marker(b.kind, b.step, b.notices));
    steps.push_back(std::move(w));
  }
  return Join(steps, true);
}

// `normalized` is Normalized(selector), computed once per selector.
bool Names(const IsolationSpec& spec, const std::string& selector, const std::string& normalized,
           size_t number, const StepOrder& order) {
  if (selector == std::to_string(number) || selector == order.name) return true;
  return !normalized.empty() && (normalized == WrittenPermutation(spec, order) ||
                                 normalized == WrittenPermutation(spec, order, false));
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
      w.markers.push_back(Marker(
          b.kind, b.kind == SpecBlocker::Kind::kOnce ? "" : name(b.session, b.step), b.notices));
    }
    steps.push_back(std::move(w));
  }
  return Join(steps, markers);
}

Result<std::vector<size_t>> SelectSpecPermutations(const IsolationSpec& spec,
                                                   const std::vector<StepOrder>& orders,
                                                   const std::vector<std::string>& selectors) {
  std::vector<bool> chosen(orders.size(), selectors.empty());
  for (const std::string& selector : selectors) {
    bool any = false;
    const std::string normalized = Normalized(selector);
    for (size_t i = 0; i < orders.size(); ++i) {
      if (!Names(spec, selector, normalized, i + 1, orders[i])) continue;
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
    return Status::Usage(
        fmt::format("{}: --permutation {} names none of its {} permutation{}; give a number from "
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

Result<size_t> CountSpecPermutations(const IsolationSpec& spec) {
  if (spec.permutations.empty()) {
    Result<size_t> n = CountInterleavings(spec);
    if (!n.ok()) return n;
    size_t total = 0;
    for (const SpecSession& s : spec.sessions) total += s.steps.size();
    const SourceLoc where = spec.sessions.empty() ? SourceLoc{} : spec.sessions[0].loc;
    // *n <= kMaxSpecPermutations and total is a count of parsed steps: the product cannot overflow.
    if (Status s = CheckPlanSteps(spec, *n, *n * total, where); !s.ok()) return s;
    return n;
  }
  size_t steps = 0;
  for (const SpecPermutation& perm : spec.permutations) {
    steps += perm.steps.size();
    if (Status s = CheckPlanSteps(spec, spec.permutations.size(), steps, perm.loc); !s.ok())
      return s;
  }
  return spec.permutations.size();
}

Result<std::vector<StepOrder>> ExpandSpecPermutations(const IsolationSpec& spec) {
  Result<size_t> count = CountSpecPermutations(spec);
  if (!count.ok()) return count.status();
  std::vector<StepOrder> out;
  out.reserve(*count);
  if (spec.permutations.empty()) {
    Interleave(spec, &out);
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
