// Checks that need every session: barriers and await_blocked/terminate targets. A barrier is a
// meeting of session instances; a badly drawn one would strand its sessions until the deadline, so
// the loader refuses it. Every check is linear in the number of steps.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <unordered_map>

#include "harness/loader/loader_context.h"

namespace racelab::internal {
namespace {

// How often each role lists each barrier: one pass over every role's steps.
using Listings = std::vector<std::unordered_map<std::string, long>>;

Listings CountListings(const std::vector<SessionSpec>& sessions) {
  Listings out(sessions.size());
  for (size_t r = 0; r < sessions.size(); ++r) {
    for (const Step& step : sessions[r].steps) {
      if (step.kind == StepKind::kBarrier) ++out[r][step.barrier];
    }
  }
  return out;
}

// A barrier needs at least two session instances in total (counts evaluated with the defaults).
// Returns false when the barrier was reported.
bool CheckPartners(LoadContext& ctx, const LoadContext::BarrierUse& use) {
  long total = 0;
  std::vector<std::string> who;
  for (size_t role : use.roles) {
    if (role >= ctx.role_counts.size() || !ctx.role_counts[role]) return true;  // count unknown
    total += *ctx.role_counts[role];
    who.push_back(fmt::format("{} x {}", ctx.scenario.sessions[role].name, *ctx.role_counts[role]));
  }
  if (total >= 2) return true;
  ctx.reader.Error(use.mark, use.path,
                   fmt::format("missing barrier partner: barrier '{}' is met by only {} session "
                               "instance ({}); list it in another session's steps or raise that "
                               "session's count",
                               use.name, total, JoinNames(who)));
  return false;
}

// Every role that lists a barrier lists it equally often: each listing is one meeting.
bool CheckRepeats(LoadContext& ctx, const LoadContext::BarrierUse& use, const Listings& listings) {
  const std::vector<SessionSpec>& sessions = ctx.scenario.sessions;
  size_t first = use.roles.front();
  long expected = listings[first].at(use.name);
  for (size_t role : use.roles) {
    long n = listings[role].at(use.name);
    if (n == expected) continue;
    ctx.reader.Error(use.mark, use.path,
                     fmt::format("barrier '{}' is listed {} time(s) by session '{}' but {} time(s) "
                                 "by session '{}': sessions meeting at a barrier must list it "
                                 "equally often, or the extra meeting waits forever",
                                 use.name, expected, sessions[first].name, n, sessions[role].name));
    return false;
  }
  return true;
}

// One role's order between two of its meetings: it meets `from` (node) at steps[from_step] before
// `to` at steps[to_step].
struct OrderEdge {
  size_t role = 0;
  size_t from = 0;
  size_t to = 0;
  size_t from_step = 0;
  size_t to_step = 0;
};

// "'go'", or "'go' (2nd time)" for a later listing of a barrier listed more than once.
std::string MeetingName(const LoadContext& ctx, const std::vector<size_t>& occurrence, size_t role,
                        size_t step) {
  const std::string& name = ctx.scenario.sessions[role].steps[step].barrier;
  size_t k = occurrence[step];
  if (k == 0) return fmt::format("'{}'", name);
  const char* suffix = k == 1 ? "nd" : k == 2 ? "rd" : "th";
  return fmt::format("'{}' ({}{} time)", name, k + 1, suffix);
}

// Reports the cycle `edges` (in order: each edge's `to` is the next one's `from`).
void ReportCycle(LoadContext& ctx, const std::vector<OrderEdge>& edges,
                 const std::vector<std::vector<size_t>>& occurrence) {
  // Consecutive edges of one role are one "meets A before B" segment.
  std::vector<OrderEdge> segments;
  for (const OrderEdge& e : edges) {
    if (!segments.empty() && segments.back().role == e.role) {
      segments.back().to = e.to;
      segments.back().to_step = e.to_step;
    } else {
      segments.push_back(e);
    }
  }
  if (segments.size() > 1 && segments.front().role == segments.back().role) {
    segments.front().from = segments.back().from;
    segments.front().from_step = segments.back().from_step;
    segments.pop_back();
  }
  // Start with the first session in file order: the report does not depend on the search.
  auto first =
      std::min_element(segments.begin(), segments.end(),
                       [](const OrderEdge& a, const OrderEdge& b) { return a.role < b.role; });
  std::rotate(segments.begin(), first, segments.end());
  const std::vector<SessionSpec>& sessions = ctx.scenario.sessions;
  auto meeting = [&](size_t role, size_t step) {
    return MeetingName(ctx, occurrence[role], role, step);
  };
  if (segments.size() == 2) {  // two sessions: say it as the two orders that disagree
    const OrderEdge& a = segments[0];
    const OrderEdge& b = segments[1];
    ctx.reader.Error(sessions[b.role].steps[b.from_step].loc,
                     fmt::format("sessions[{}].steps[{}].barrier", b.role, b.from_step),
                     fmt::format("barrier {} comes where session '{}' meets {}: sessions sharing "
                                 "barriers must meet them in the same order, or each waits for the "
                                 "other forever",
                                 meeting(b.role, b.from_step), sessions[a.role].name,
                                 meeting(a.role, a.from_step)));
    return;
  }
  std::vector<std::string> parts;
  for (const OrderEdge& e : segments) {
    parts.push_back(fmt::format("session '{}' meets {} before {}", sessions[e.role].name,
                                meeting(e.role, e.from_step), meeting(e.role, e.to_step)));
  }
  const OrderEdge& a = segments.front();
  ctx.reader.Error(sessions[a.role].steps[a.from_step].loc,
                   fmt::format("sessions[{}].steps[{}].barrier", a.role, a.from_step),
                   fmt::format("barrier cycle: {}: each waits at a barrier for a session that "
                               "waits at the next one, until the trial deadline (meet shared "
                               "barriers in one order in every session)",
                               fmt::join(parts, ", ")));
}

// Meetings must happen in an order every session agrees on. Each meeting (the k-th listing of a
// barrier, the same k in every role that lists it) is a node; each role adds an edge from each of
// its meetings to its next one. A cycle — through two roles or any number — is a set of sessions
// each waiting at a barrier for one that waits at the next: they would wait until the trial
// deadline. Kahn's algorithm decides in O(steps) whether there is a cycle; one is then reported.
// REQUIRES: CheckRepeats passed for every barrier.
void CheckOrder(LoadContext& ctx, const Listings& listings) {
  const std::vector<SessionSpec>& sessions = ctx.scenario.sessions;
  // Node ids: the k-th meeting of barrier b is offset[b] + k.
  std::vector<size_t> offset(ctx.barriers.size() + 1, 0);
  for (size_t b = 0; b < ctx.barriers.size(); ++b) {
    const LoadContext::BarrierUse& use = ctx.barriers[b];
    offset[b + 1] = offset[b] + static_cast<size_t>(listings[use.roles.front()].at(use.name));
  }
  const size_t nodes = offset.back();
  std::vector<OrderEdge> edges;
  std::vector<std::vector<size_t>> out(nodes);                   // node -> edges leaving it
  std::vector<std::vector<size_t>> in(nodes);                    // node -> edges entering it
  std::vector<std::vector<size_t>> occurrence(sessions.size());  // [role][step] -> k
  for (size_t r = 0; r < sessions.size(); ++r) {
    occurrence[r].assign(sessions[r].steps.size(), 0);
    std::unordered_map<std::string, size_t> seen;  // barrier -> listings so far in this role
    std::optional<size_t> previous;                // the previous listing: step index
    size_t previous_node = 0;
    for (size_t i = 0; i < sessions[r].steps.size(); ++i) {
      const Step& step = sessions[r].steps[i];
      if (step.kind != StepKind::kBarrier) continue;
      auto it = ctx.barrier_index.find(step.barrier);
      if (it == ctx.barrier_index.end()) continue;
      occurrence[r][i] = seen[step.barrier]++;
      size_t node = offset[it->second] + occurrence[r][i];
      if (previous) {
        out[previous_node].push_back(edges.size());
        in[node].push_back(edges.size());
        edges.push_back({r, previous_node, node, *previous, i});
      }
      previous = i;
      previous_node = node;
    }
  }
  // Kahn: remove the meetings that nothing has to precede; what remains lies on or behind a cycle.
  std::vector<size_t> waiting(nodes);  // predecessors not removed yet
  std::vector<size_t> ready;
  for (size_t n = 0; n < nodes; ++n) {
    waiting[n] = in[n].size();
    if (waiting[n] == 0) ready.push_back(n);
  }
  std::vector<bool> removed(nodes, false);
  size_t removed_count = 0;
  while (!ready.empty()) {
    size_t n = ready.back();
    ready.pop_back();
    removed[n] = true;
    ++removed_count;
    for (size_t e : out[n]) {
      if (--waiting[edges[e].to] == 0) ready.push_back(edges[e].to);
    }
  }
  if (removed_count == nodes) return;
  // Every remaining node has a remaining predecessor: walking back from one must repeat a node.
  size_t start = std::find(removed.begin(), removed.end(), false) - removed.begin();
  std::vector<size_t> step_of(nodes, SIZE_MAX);  // position in `walk`, for the first revisit
  std::vector<size_t> walk;                      // edges, walked backwards
  for (size_t n = start; step_of[n] == SIZE_MAX;) {
    step_of[n] = walk.size();
    size_t e = *std::find_if(in[n].begin(), in[n].end(),
                             [&](size_t id) { return !removed[edges[id].from]; });
    walk.push_back(e);
    n = edges[e].from;
    if (step_of[n] != SIZE_MAX) {
      std::vector<OrderEdge> cycle;
      for (size_t k = walk.size(); k-- > step_of[n];) cycle.push_back(edges[walk[k]]);
      ReportCycle(ctx, cycle, occurrence);
      return;
    }
  }
}

void CheckTargets(LoadContext& ctx) {
  std::vector<std::string> roles;
  for (const SessionSpec& session : ctx.scenario.sessions) roles.push_back(session.name);
  for (const LoadContext::TargetUse& use : ctx.targets) {
    auto it = std::find(roles.begin(), roles.end(), use.target);
    if (it == roles.end()) {
      ctx.reader.Error(
          use.mark, use.path,
          fmt::format("unknown session '{}' (sessions: {})", use.target, JoinNames(roles)));
    } else if (static_cast<size_t>(it - roles.begin()) == use.role) {
      ctx.reader.Error(use.mark, use.path,
                       fmt::format("a session cannot target its own role '{}'", use.target));
    }
  }
}

}  // namespace

void CheckSessionLinks(LoadContext& ctx) {
  CheckTargets(ctx);
  if (ctx.barriers_incomplete) return;
  Listings listings = CountListings(ctx.scenario.sessions);
  bool barriers_ok = true;
  for (const LoadContext::BarrierUse& use : ctx.barriers) {
    if (ctx.reader.full()) return;
    barriers_ok = CheckPartners(ctx, use) && barriers_ok;
    barriers_ok = CheckRepeats(ctx, use, listings) && barriers_ok;
  }
  if (barriers_ok) CheckOrder(ctx, listings);
}

}  // namespace racelab::internal
