#include "harness/run/lock_waits.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "harness/model/step_kind.h"

namespace racelab::internal {
namespace {

// Tolerance for mapping the server's wall clock onto the trial's steady clock, in µs.
constexpr int64_t kClockToleranceUs = 200;

// Statements that can wait on a lock (harness/model/step_kind.h). ROLLBACK takes none. BEGIN counts
// only for waits the engine recorded itself with their exact start (`recorded`, ServerWaitLog:
// SQLite's BEGIN IMMEDIATE waits in the busy handler, docs/sqlite.md); a polled observation is
// never a BEGIN's — PostgreSQL's and InnoDB's BEGIN take no lock, so a slow poll straddling "BEGIN;
// UPDATE …" belongs to the UPDATE (seen on a loaded 2-core machine).
bool Monitored(const StepEvent& ev, bool recorded) {
  const StepKindInfo& info = InfoOf(ev.kind);
  return !ev.skipped && (recorded ? info.may_wait_recorded : info.may_wait_on_lock);
}

bool OfPid(const StepEvent& ev, const ConnectionId& pid, const BackendNames& names) {
  auto it = names.label_pids.find(ev.session);
  return it != names.label_pids.end() && it->second == pid;
}

// `pids`: connections of `node`.
void AddBlockers(const std::string& node, const std::vector<int64_t>& pids,
                 const BackendNames& names, StepEvent* ev) {
  std::set<std::string> set(ev->blocked_by.begin(), ev->blocked_by.end());
  for (int64_t p : pids) set.insert(names.Name({node, p}));
  ev->blocked_by.assign(set.begin(), set.end());
}

}  // namespace

std::string BackendNames::Name(const ConnectionId& pid) const {
  if (auto l = pid_labels.find(pid); l != pid_labels.end()) return l->second;
  auto t = backend_types.find(pid);
  if (t != backend_types.end() && t->second != "client backend") return "(" + t->second + ")";
  return "(other backend)";
}

void AttributeServerLockWaits(const std::vector<ServerLockWait>& waits, const std::string& node,
                              int64_t origin_wall_us, const BackendNames& names,
                              std::vector<StepEvent>* events) {
  for (const ServerLockWait& w : waits) {
    const int64_t lo = w.start_lo_us - origin_wall_us, hi = w.start_hi_us - origin_wall_us;
    const int64_t d = w.duration_us.value_or(0);
    // Hard facts: the wait began after the statement was sent, no later than `hi`, and (when its
    // duration is known) ended before the statement completed.
    auto latest_start = [&](const StepEvent& ev) {
      return std::min(hi, ev.completed_us - d) + kClockToleranceUs;
    };
    StepEvent* best = nullptr;
    std::pair<bool, int64_t> best_rank{};
    for (StepEvent& ev : *events) {
      if (!Monitored(ev, /*recorded=*/true) || !OfPid(ev, {node, w.session_id}, names) ||
          ev.sent_us > latest_start(ev)) {
        continue;
      }
      // Ranked by: the logged statement text is this one's; then how close the soft lower bound of
      // the start comes to fitting.
      const bool named = !w.statement.empty() && ev.sql == w.statement;
      const int64_t miss = std::abs(std::clamp(lo, ev.sent_us, latest_start(ev)) - lo);
      std::pair<bool, int64_t> rank{named, -miss};
      if (best == nullptr || rank > best_rank) {
        best = &ev;
        best_rank = rank;
      }
    }
    if (best == nullptr) continue;  // in flight in no statement of the trial: not the trial's
    const int64_t upper = std::max(best->sent_us, std::min(hi, best->completed_us - d));
    // A wait the server logged no end for was cut short by an error (statement_timeout,
    // lock_timeout, a cancel): the statement's whole time stands for it, as for a poll.
    // statement_timeout counts from the statement's start, so under load the wait itself can be
    // much shorter than the timeout.
    const int64_t start =
        w.duration_us ? std::clamp((lo + hi) / 2, best->sent_us, upper) : best->sent_us;
    const int64_t us = w.duration_us ? d : best->completed_us - start;
    if (best->lock_wait_source != "server_log") {
      best->lock_wait = true;
      best->lock_wait_source = "server_log";
      best->lock_wait_start_us = start;
      best->lock_wait_us = 0;
      best->wait_event = w.wait_event;
      best->lock_mode = w.mode;
      best->logged_first_wait_end_us = start + us;
    } else if (start < best->lock_wait_start_us) {
      best->lock_wait_start_us = start;
      best->wait_event = w.wait_event;
      best->lock_mode = w.mode;
      best->logged_first_wait_end_us = start + us;
    }
    best->lock_wait_us = std::min(best->lock_wait_us + us, best->completed_us - best->sent_us);
    AddBlockers(node, w.holders, names, best);
  }
}

// A poll saw the wait at an instant within [poll_sent, poll_received], so it belongs to a statement
// of that backend whose [sent, completed] overlaps that window; a poll wholly inside one statement
// is unambiguous ("confirmed"). A poll that straddles two statements (polls take milliseconds on a
// loaded machine) is resolved in this order:
//  1. a statement holding a server-logged wait wins: the server's record is exact;
//  2. then a confirmed statement — "UPDATE row 1; UPDATE row 2 (waits)" is never two waits;
//  3. pg_stat_activity.query then rules out statements that ended before the one it names. That
//  text
//     comes from the backend-status snapshot taken when the view is first read, while
//     wait_event_type is read live from the process's PGPROC as each row is formed
//     (pg_stat_get_activity in src/backend/utils/adt/pgstatfuncs.c), so the text can name an
//     earlier statement than the one waiting (seen: fingerprint-deadlock's a/first pinned in ~5% of
//     trials under ctest -j2; a 0.44 ms SELECT pinned with a wait seen before it was sent) — never
//     a later one;
//  4. then the largest overlap.
// First and last seen are clipped to the statement's [sent, completed].
void AttributeLockWaits(const std::vector<WaitObservation>& observations, const BackendNames& names,
                        std::vector<StepEvent>* events) {
  auto candidates = [&](const WaitObservation& o) {
    std::vector<std::pair<StepEvent*, int64_t>> out;  // (statement, overlap in µs)
    for (auto& ev : *events) {
      if (!Monitored(ev, /*recorded=*/false) || !OfPid(ev, {o.node, o.session_id}, names)) continue;
      int64_t overlap =
          std::min(o.poll_received_us, ev.completed_us) - std::max(o.poll_sent_us, ev.sent_us);
      if (overlap >= 0) out.emplace_back(&ev, overlap);
    }
    return out;
  };
  auto contains = [](const StepEvent& ev, const WaitObservation& o) {
    return ev.sent_us <= o.poll_sent_us && o.poll_received_us <= ev.completed_us;
  };
  // The first wait the server logged for each statement (its wait_event): a poll that saw another
  // one before it ended saw an earlier, unlogged wait (below).
  std::map<const StepEvent*, std::string> logged_event;
  std::map<const StepEvent*, int64_t>
      earlier_seen;  // the poll that named the earlier wait: its received_us
  for (const auto& ev : *events) {
    if (ev.lock_wait_source == "server_log") logged_event[&ev] = ev.wait_event;
  }
  std::set<StepEvent*> confirmed;  // seen waiting by a poll wholly inside the statement
  for (const auto& o : observations) {
    for (auto& [ev, overlap] : candidates(o)) {
      if (contains(*ev, o)) confirmed.insert(ev);
    }
  }
  for (const auto& o : observations) {
    auto cands = candidates(o);
    // The earliest statement pg_stat_activity's text allows: the latest candidate it names.
    int64_t named_sent = INT64_MIN;
    for (auto& [ev, overlap] : cands) {
      if (!o.query.empty() && ev->sql.compare(0, o.query.size(), o.query) == 0) {
        named_sent = std::max(named_sent, ev->sent_us);
      }
    }
    StepEvent* best = nullptr;
    std::tuple<bool, bool, bool, int64_t> best_rank{};  // (server_log, confirmed, allowed, overlap)
    for (auto& [ev, overlap] : cands) {
      std::tuple<bool, bool, bool, int64_t> rank{ev->lock_wait_source == "server_log",
                                                 confirmed.count(ev) > 0,
                                                 ev->completed_us >= named_sent, overlap};
      if (best == nullptr || rank > best_rank) {
        best = ev;
        best_rank = rank;
      }
    }
    if (best == nullptr) continue;
    const int64_t first = std::max(o.poll_sent_us, best->sent_us);
    const int64_t last = std::min(o.poll_received_us, best->completed_us);
    if (best->lock_wait_first_seen_us == 0 || first < best->lock_wait_first_seen_us) {
      best->lock_wait_first_seen_us = first;
    }
    best->lock_wait_last_seen_us = std::max(best->lock_wait_last_seen_us, last);
    // The blockers pg_blocking_pids() named count with the server log's: each source names the
    // holders at one instant of the wait, and either can miss one (a naive-select-then-update trial
    // under ctest -j2 recorded a server-logged wait without its holder `first`).
    AddBlockers(o.node, o.blocking, names, best);
    // A backend waits on one lock at a time. A poll that saw it waiting on another lock than the
    // first one the server logged, before that logged wait ended, saw it before that wait began: an
    // earlier wait the server did not log — shorter than deadlock_timeout, or its deadlock check
    // ran only once the wait was over (docs/lock-waits.md "What it cannot see"). That one is the
    // statement's first wait. Seen: naive-select-then-update with 4 workers under load, a tuple
    // wait (seen by the polls await_blocked relies on) then an xid wait, of which only the second
    // was logged. The logged end is known to ±0.5 ms (the log's ms timestamps), hence the margin.
    if (auto logged = logged_event.find(best);
        logged != logged_event.end() && !o.wait_event.empty() && o.wait_event != logged->second &&
        o.poll_received_us + 500 + kClockToleranceUs < best->logged_first_wait_end_us) {
      auto seen = earlier_seen.find(best);
      if (seen == earlier_seen.end() || o.poll_received_us < seen->second) {
        earlier_seen[best] = o.poll_received_us;
        best->wait_event = o.wait_event;
        best->lock_mode.clear();  // the server logged no mode for that wait
      }
    }
    if (best->lock_wait_source == "server_log") continue;  // the server's timing stands
    if (!best->lock_wait) {
      best->lock_wait = true;
      best->lock_wait_source = "poll";
      best->wait_event = o.wait_event;
    }
    // A poll tells neither when the wait began nor when it ended: the whole statement stands for
    // it.
    best->lock_wait_start_us = best->sent_us;
    best->lock_wait_us = best->completed_us - best->sent_us;
  }
}

}  // namespace racelab::internal
