// The cycle search: the graph in compressed rows, Tarjan's strongly connected components
// (iterative: a million transactions would overflow the stack), then in each cyclic component a
// shortest cycle of each kind by breadth-first search from an edge's head back to its tail.
#include <algorithm>
#include <span>

#include "harness/check/internal.h"

namespace racelab::check::internal {
namespace {

constexpr size_t kSearchesPerComponent = 32;  // edges tried per kind and component
constexpr uint8_t kWw = static_cast<uint8_t>(DepType::kWw);
constexpr uint8_t kWr = static_cast<uint8_t>(DepType::kWr);
constexpr uint8_t kRw = static_cast<uint8_t>(DepType::kRw);
constexpr uint8_t kProc = static_cast<uint8_t>(DepType::kProcess);

bool In(const Dependency& d, uint8_t mask) { return (static_cast<uint8_t>(d.type) & mask) != 0; }

class Graph {
 public:
  // Rows by a counting sort on `from` (linear; the order within a row is the inference's).
  Graph(uint32_t n, std::vector<Dependency> deps) : n_(n) {
    offsets_.assign(n + 1, 0);
    for (const Dependency& d : deps) ++offsets_[d.from + 1];
    for (uint32_t i = 0; i < n; ++i) offsets_[i + 1] += offsets_[i];
    std::vector<uint32_t> next(offsets_.begin(), offsets_.end() - 1);
    edges_.resize(deps.size());
    for (const Dependency& d : deps) edges_[next[d.from]++] = d;
  }
  uint32_t size() const { return n_; }
  std::span<const Dependency> Out(uint32_t v) const {
    return {edges_.data() + offsets_[v], offsets_[v + 1] - offsets_[v]};
  }
  const std::vector<Dependency>& edges() const { return edges_; }

  // Component id per node over the edges of `mask`; nodes of a component of one node without a
  // self-loop get kNone (they are on no cycle). With `within`, only nodes on a cycle of that
  // (wider) component map are looked at: a cycle of fewer edges lies inside one of its components.
  static constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> Components(uint8_t mask, const std::vector<uint32_t>* within) const;

  // Shortest path from `src` to `dst` over edges of `mask` between nodes of component `c`;
  // empty when there is none (or src == dst).
  std::vector<const Dependency*> Path(uint32_t src, uint32_t dst, uint8_t mask,
                                      const std::vector<uint32_t>& comp, uint32_t c);

 private:
  uint32_t n_;
  std::vector<Dependency> edges_;
  std::vector<uint32_t> offsets_;
  std::vector<uint32_t> stamp_;  // Path: visited in search number stamp_[v]
  std::vector<const Dependency*> parent_;
  std::vector<uint32_t> queue_;
  uint32_t search_ = 0;
};

std::vector<uint32_t> Graph::Components(uint8_t mask, const std::vector<uint32_t>* within) const {
  constexpr uint32_t kUnvisited = UINT32_MAX;
  std::vector<uint32_t> index(n_, kUnvisited), low(n_, 0), comp(n_, kNone);
  std::vector<uint8_t> on_stack(n_, 0);
  std::vector<uint32_t> stack;
  struct Frame {
    uint32_t v;
    uint32_t next;  // next out-edge to look at
  };
  std::vector<Frame> call;
  uint32_t counter = 0, comps = 0;
  for (uint32_t root = 0; root < n_; ++root) {
    if (index[root] != kUnvisited || (within != nullptr && (*within)[root] == kNone)) continue;
    call.push_back({root, 0});
    index[root] = low[root] = counter++;
    stack.push_back(root);
    on_stack[root] = 1;
    while (!call.empty()) {
      Frame& f = call.back();
      auto out = Out(f.v);
      if (f.next < out.size()) {
        const Dependency& d = out[f.next++];
        if (!In(d, mask)) continue;
        const uint32_t w = d.to;
        if (within != nullptr && (*within)[w] != (*within)[f.v]) continue;
        if (index[w] == kUnvisited) {
          index[w] = low[w] = counter++;
          stack.push_back(w);
          on_stack[w] = 1;
          call.push_back({w, 0});
        } else if (on_stack[w]) {
          low[f.v] = std::min(low[f.v], index[w]);
        }
        continue;
      }
      const uint32_t v = f.v;
      call.pop_back();
      if (!call.empty()) low[call.back().v] = std::min(low[call.back().v], low[v]);
      if (low[v] != index[v]) continue;
      size_t start = stack.size();
      while (stack[start - 1] != v) --start;
      --start;
      if (stack.size() - start > 1) {
        for (size_t i = start; i < stack.size(); ++i) comp[stack[i]] = comps;
        ++comps;
      }
      for (size_t i = start; i < stack.size(); ++i) on_stack[stack[i]] = 0;
      stack.resize(start);
    }
  }
  return comp;  // self-loops never arise: inference adds no edge from a transaction to itself
}

std::vector<const Dependency*> Graph::Path(uint32_t src, uint32_t dst, uint8_t mask,
                                           const std::vector<uint32_t>& comp, uint32_t c) {
  if (stamp_.empty()) {
    stamp_.assign(n_, 0);
    parent_.assign(n_, nullptr);
  }
  ++search_;
  queue_.clear();
  queue_.push_back(src);
  stamp_[src] = search_;
  for (size_t head = 0; head < queue_.size(); ++head) {
    const uint32_t v = queue_[head];
    for (const Dependency& d : Out(v)) {
      if (!In(d, mask) || comp[d.to] != c || stamp_[d.to] == search_) continue;
      stamp_[d.to] = search_;
      parent_[d.to] = &d;
      if (d.to == dst) {
        std::vector<const Dependency*> path;
        for (uint32_t x = dst; x != src; x = parent_[x]->from) path.push_back(parent_[x]);
        std::reverse(path.begin(), path.end());
        return path;
      }
      queue_.push_back(d.to);
    }
  }
  return {};
}

class CycleSearch {
 public:
  CycleSearch(const History& h, Graph* g, AnomalySink* sink) : h_(h), g_(*g), sink_(sink) {}

  // In each component of the graph over `comp_mask`, the shortest of the cycles that start with
  // an edge of `first` and return over edges of `rest`; reported when its name is `want` (or
  // `want`-process).
  size_t Search(const std::vector<uint32_t>& comp, uint8_t first, uint8_t rest,
                const std::string& want) {
    std::vector<size_t> tries;
    std::vector<std::vector<const Dependency*>> best;
    uint32_t comps = 0;
    for (uint32_t c : comp)
      if (c != Graph::kNone) comps = std::max(comps, c + 1);
    tries.assign(comps, 0);
    best.assign(comps, {});
    for (const Dependency& d : g_.edges()) {
      const uint32_t c = comp[d.from];
      if (c == Graph::kNone || comp[d.to] != c || !In(d, first)) continue;
      if (tries[c] >= kSearchesPerComponent || best[c].size() == 2) continue;
      ++tries[c];
      auto back = g_.Path(d.to, d.from, rest, comp, c);
      if (back.empty()) continue;
      back.insert(back.begin(), &d);
      if (CycleName(ToDeps(back)).rfind(want, 0) != 0) continue;
      if (best[c].empty() || back.size() < best[c].size()) best[c] = std::move(back);
    }
    for (auto& cycle : best) {
      if (cycle.empty()) continue;
      std::vector<Dependency> deps = ToDeps(cycle);
      const std::string name = CycleName(deps);
      if (name != want && name != want + "-process") continue;
      std::vector<uint32_t> txns;
      for (const Dependency& d : deps) txns.push_back(d.from);
      sink_->Add(
          name, txns,
          [&] {
            std::string text;
            for (const Dependency& d : deps) text += (text.empty() ? "" : ", ") + EdgeText(h_, d);
            return text + ": " + name;
          },
          deps);
    }
    return comps;
  }

 private:
  static std::vector<Dependency> ToDeps(const std::vector<const Dependency*>& path) {
    std::vector<Dependency> deps;
    for (const Dependency* d : path) deps.push_back(*d);
    return deps;
  }
  const History& h_;
  Graph& g_;
  AnomalySink* sink_;
};

}  // namespace

std::string CycleName(std::span<const Dependency> cycle) {
  size_t rw = 0, wr = 0, proc = 0;
  for (const Dependency& d : cycle) {
    rw += d.type == DepType::kRw;
    wr += d.type == DepType::kWr;
    proc += d.type == DepType::kProcess;
  }
  std::string name = rw >= 2 ? "G2-item" : rw == 1 ? "G-single" : wr > 0 ? "G1c" : "G0";
  return proc > 0 ? name + "-process" : name;
}

size_t FindCycles(const History& h, std::vector<Dependency> deps, AnomalySink* sink) {
  const bool proc = std::any_of(deps.begin(), deps.end(),
                                [](const Dependency& d) { return d.type == DepType::kProcess; });
  const uint8_t p = proc ? kProc : 0;
  Graph g(static_cast<uint32_t>(h.txns.size()), std::move(deps));
  CycleSearch search(h, &g, sink);
  // The whole graph first: most histories have no cycle at all, and the narrower searches need
  // only look inside its cyclic components.
  const std::vector<uint32_t> all = g.Components(kWw | kWr | kRw | p, nullptr);
  if (std::all_of(all.begin(), all.end(), [](uint32_t c) { return c == Graph::kNone; })) return 0;
  search.Search(g.Components(kWw | p, &all), kWw, kWw | p, "G0");
  search.Search(g.Components(kWw | kWr | p, &all), kWr, kWw | kWr | p, "G1c");
  const size_t comps = search.Search(all, kRw, kWw | kWr | p, "G-single");
  search.Search(all, kRw, kWw | kWr | kRw | p, "G2-item");
  return comps;
}

}  // namespace racelab::check::internal
