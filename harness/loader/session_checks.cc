// Checks that need every session: barriers and await_blocked/terminate targets. A barrier is a
// meeting of session instances; a badly drawn one would strand its sessions until the deadline, so
// the loader refuses it.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "harness/loader/loader_context.h"

namespace racelab::internal {
namespace {

struct BarrierStep {
  std::string name;
  size_t step = 0;  // index in the session's steps
};

std::vector<BarrierStep> BarrierSteps(const SessionSpec& session) {
  std::vector<BarrierStep> out;
  for (size_t i = 0; i < session.steps.size(); ++i) {
    if (session.steps[i].kind == StepKind::kBarrier) out.push_back({session.steps[i].barrier, i});
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
bool CheckRepeats(LoadContext& ctx, const LoadContext::BarrierUse& use) {
  std::vector<std::pair<std::string, long>> counts;
  for (size_t role : use.roles) {
    const SessionSpec& session = ctx.scenario.sessions[role];
    long n = std::count_if(session.steps.begin(), session.steps.end(), [&](const Step& step) {
      return step.kind == StepKind::kBarrier && step.barrier == use.name;
    });
    counts.emplace_back(session.name, n);
  }
  for (const auto& [name, n] : counts) {
    if (n == counts.front().second) continue;
    ctx.reader.Error(use.mark, use.path,
                     fmt::format("barrier '{}' is listed {} time(s) by session '{}' but {} time(s) "
                                 "by session '{}': sessions meeting at a barrier must list it "
                                 "equally often, or the extra meeting waits forever",
                                 use.name, counts.front().second, counts.front().first, n, name));
    return false;
  }
  return true;
}

// Two roles that share barriers meet them in the same order; otherwise each waits for the other.
void CheckOrder(LoadContext& ctx) {
  const std::vector<SessionSpec>& sessions = ctx.scenario.sessions;
  for (size_t a = 0; a < sessions.size(); ++a) {
    for (size_t b = a + 1; b < sessions.size(); ++b) {
      std::vector<BarrierStep> in_a = BarrierSteps(sessions[a]);
      std::vector<BarrierStep> in_b = BarrierSteps(sessions[b]);
      auto shared = [](const std::vector<BarrierStep>& mine,
                       const std::vector<BarrierStep>& other) {
        std::vector<BarrierStep> out;
        for (const BarrierStep& s : mine) {
          bool found = std::any_of(other.begin(), other.end(),
                                   [&](const BarrierStep& o) { return o.name == s.name; });
          if (found) out.push_back(s);
        }
        return out;
      };
      std::vector<BarrierStep> seq_a = shared(in_a, in_b);
      std::vector<BarrierStep> seq_b = shared(in_b, in_a);
      for (size_t i = 0; i < seq_a.size() && i < seq_b.size(); ++i) {
        if (seq_a[i].name == seq_b[i].name) continue;
        const Step& step = sessions[b].steps[seq_b[i].step];
        ctx.reader.Error(step.loc, fmt::format("sessions[{}].steps[{}].barrier", b, seq_b[i].step),
                         fmt::format("barrier '{}' comes where session '{}' meets '{}': sessions "
                                     "sharing barriers must meet them in the same order, or each "
                                     "waits for the other forever",
                                     seq_b[i].name, sessions[a].name, seq_a[i].name));
        break;
      }
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
  bool barriers_ok = true;
  for (const LoadContext::BarrierUse& use : ctx.barriers) {
    barriers_ok = CheckPartners(ctx, use) && barriers_ok;
    barriers_ok = CheckRepeats(ctx, use) && barriers_ok;
  }
  if (barriers_ok) CheckOrder(ctx);
  CheckTargets(ctx);
}

}  // namespace racelab::internal
