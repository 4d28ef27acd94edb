#include "tests/unit/sample_report.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace racelab::testing {
namespace {

constexpr char kNasty[] = "a<b & \"c\" | 'd'";  // every format has something to escape here
constexpr char kSerializationFailure[] = "could not serialize access due to concurrent update";

StepEvent Ev(const char* session, const char* step, StepKind kind, int64_t sent, int64_t done,
             long rows = -1) {
  StepEvent e;
  e.session = session;
  e.step = step;
  e.kind = kind;
  e.sent_us = sent;
  e.completed_us = done;
  e.rows = rows;
  return e;
}

// Marks `e` as seen by the monitor in a lock wait on worker.1's transaction.
StepEvent Blocked(StepEvent e, int64_t first_seen, int64_t last_seen) {
  e.lock_wait = true;
  e.lock_wait_source = "poll";
  e.lock_wait_start_us = first_seen;
  e.lock_wait_us = e.completed_us - e.sent_us;
  e.lock_wait_first_seen_us = first_seen;
  e.lock_wait_last_seen_us = last_seen;
  e.wait_event = "transactionid";
  e.blocked_by = {"worker.1"};
  e.late_us = 310;  // its backend waited 0.31 ms for a CPU
  return e;
}

SessionResult Session(const char* label, bool committed, bool won) {
  SessionResult s;
  s.label = label;
  s.role = "worker";
  s.committed = committed;
  s.won = won;
  return s;
}

void SortEvents(TrialResult* r) {
  std::stable_sort(r->events.begin(), r->events.end(),
                   [](const StepEvent& a, const StepEvent& b) { return a.sent_us < b.sent_us; });
}

// guarded-cas-claim at read committed: worker.2's claim waits for worker.1's commit, then gets
// 0 rows.
TrialVerdict CasTrial(int index, int64_t offset, int64_t extra_block, int64_t skew) {
  TrialVerdict t;
  TrialResult& r = t.result;
  r.index = index;
  r.duration_us = 4800 + offset + extra_block;
  StepEvent claim1 = Ev("worker.1", "claim", StepKind::kSql, 1510 + offset, 2400 + offset, 1);
  claim1.captured = {{"id", "1"}};
  r.events = {
      Ev("worker.1", "begin1", StepKind::kBegin, 100, 350),
      Ev("worker.2", "begin1", StepKind::kBegin, 120, 380),
      Ev("worker.1", "barrier2", StepKind::kBarrier, 400, 1500),
      Ev("worker.2", "barrier2", StepKind::kBarrier, 420, 1500),
      claim1,
      Blocked(
          Ev("worker.2", "claim", StepKind::kSql, 1522 + offset, 4200 + offset + extra_block, 0),
          1900 + offset, 3800 + offset),
      Ev("worker.1", "commit4", StepKind::kCommit, 2410 + offset, 4100 + offset),
      Ev("worker.2", "commit4", StepKind::kCommit, 4210 + offset + extra_block,
         4500 + offset + extra_block),
  };
  SortEvents(&r);
  r.barriers = {BarrierRelease{"go", 1, 1500, skew}};
  SessionResult w1 = Session("worker.1", true, true);
  w1.claim = "1";
  r.sessions = {w1, Session("worker.2", true, false)};
  r.finals = {FinalValue{"SELECT attempts FROM runs WHERE id=1", "1", ""}};
  t.checks = {{"winners = 1", true, ""},
              {"lock_waits = 1", true, ""},
              {"each of the 2 worker/claim was not seen in a lock wait or took <= 2.500 ms + "
               "measured lateness, send to answer",
               true, "", 0.31},
              {"final SELECT attempts FROM runs WHERE id=1 = 1", true, ""}};
  return t;
}

// naive-select-then-update at serializable: worker.2's update waits, then fails with 40001.
// In the second trial the final value of `error` is NULL, which fails the (deliberately
// awkward) expectation.
TrialVerdict NaiveTrial(int index, int64_t offset, int64_t skew, bool fails) {
  TrialVerdict t;
  TrialResult& r = t.result;
  r.index = index;
  r.duration_us = 3900 + offset;
  StepEvent read1 = Ev("worker.1", "read", StepKind::kSql, 320, 700, 1);
  read1.captured = {{"status", "queued"}};
  StepEvent read2 = Ev("worker.2", "read", StepKind::kSql, 330, 720, 1);
  read2.captured = {{"status", "queued"}};
  StepEvent update2 =
      Blocked(Ev("worker.2", "update", StepKind::kSql, 1420, 3600 + offset), 1800, 3500 + offset);
  update2.sqlstate = "40001";
  update2.message = kSerializationFailure;
  StepEvent commit2 = Ev("worker.2", "commit5", StepKind::kCommit, 3600 + offset, 3600 + offset);
  commit2.skipped = true;
  r.events = {
      Ev("worker.1", "begin1", StepKind::kBegin, 90, 300),
      Ev("worker.2", "begin1", StepKind::kBegin, 95, 310),
      read1,
      read2,
      Ev("worker.1", "barrier3", StepKind::kBarrier, 710, 1400),
      Ev("worker.2", "barrier3", StepKind::kBarrier, 730, 1400),
      Ev("worker.1", "update", StepKind::kSql, 1405, 2000, 1),
      update2,
      Ev("worker.1", "commit5", StepKind::kCommit, 2010, 3550),
      commit2,
  };
  SortEvents(&r);
  r.barriers = {BarrierRelease{"go", 1, 1400, skew}};
  SessionResult w2 = Session("worker.2", false, false);
  w2.sqlstate = "40001";
  w2.message = kSerializationFailure;
  r.sessions = {Session("worker.1", true, true), w2};
  r.finals = {FinalValue{"SELECT attempts FROM runs WHERE id=1", "1", ""},
              FinalValue{"SELECT error FROM runs WHERE id=1",
                         fails ? std::nullopt : std::optional<std::string>(kNasty), ""}};
  t.checks = {{"winners = 1", true, ""},
              {"SQLSTATE 40001 count = 1", true, ""},
              {std::string("final SELECT error FROM runs WHERE id=1 = ") + kNasty, !fails,
               fails ? "got NULL" : ""}};
  t.verdict = fails ? Verdict::kFail : Verdict::kPass;
  return t;
}

PlanItem Item(const char* scenario, const char* title, const char* teaches, IsolationLevel level) {
  PlanItem item;
  item.scenario = scenario;
  item.title = title;
  item.teaches = teaches;
  item.file = std::string("scenarios/") + scenario + ".yaml";
  item.isolation = level;
  item.params = {{"workers", "2"}};
  item.trials = 2;
  return item;
}

}  // namespace

std::unique_ptr<SampleRun> MakeSampleRun() {
  auto run = std::make_unique<SampleRun>();
  run->plan.items = {
      Item("guarded-cas-claim", "Guarded CAS claim — exactly one worker wins",
           "The WHERE status='queued' is the expected value of a compare-and-swap; RETURNING tells "
           "who won.\n",
           IsolationLevel::kReadCommitted),
      Item("naive-select-then-update", "Naive select-then-update",
           "Reading a value and acting on it later is a race: both workers see 'queued'.",
           IsolationLevel::kSerializable)};
  run->plan.items[1].params.emplace_back("note", kNasty);

  RunReport& report = run->report;
  report.racelab_version = "0.1.0";
  report.created_at = "2024-01-02T03:04:05Z";
  report.command =
      "racelab run guarded-cas-claim naive-select-then-update --trials 2 --set note='" +
      std::string(kNasty) + "'";
  report.seed = 42;
  report.target.engine = "postgresql";
  report.target.server_version = "15.8 (Debian 15.8-0+deb12u1)";
  report.target.embedded = true;
  report.target.dsn_redacted = "host=/tmp/racelab-sock port=54329 user=racelab";
  report.target.settings = {
      {"fsync", "off"}, {"synchronous_commit", "off"}, {"full_page_writes", "off"}};

  ResultSummary cas;
  cas.item = &run->plan.items[0];
  cas.trials = 2;
  cas.verdict = Verdict::kPass;
  cas.winners = {{1, 2}};
  cas.blocked_ms = Percentiles{2.789, 2.8891, 2.9, 2};
  cas.skew_us = Percentiles{21, 29.1, 30, 2};
  cas.expectations = {{"winners = 1", 2, 0, ""},
                      {"lock_waits = 1", 2, 0, ""},
                      {"each of the 2 worker/claim was not seen in a lock wait or took <= 2.500 ms "
                       "+ measured lateness, "
                       "send to answer",
                       2, 0, "", 0.31},
                      {"final SELECT attempts FROM runs WHERE id=1 = 1", 2, 0, ""}};
  cas.trial_details = {CasTrial(0, 0, 0, 12), CasTrial(1, 250, 222, 30)};
  cas.representative_trial = 0;
  for (const TrialVerdict& t : cas.trial_details) cas.duration_us += t.result.duration_us;

  ResultSummary naive;
  naive.item = &run->plan.items[1];
  naive.trials = 2;
  naive.verdict = Verdict::kFail;
  naive.winners = {{1, 2}};
  naive.sqlstates = {{"40001", 2}};
  naive.errors = {{"40001", 2}};
  naive.blocked_ms = Percentiles{2.23, 2.275, 2.28, 2};
  naive.skew_us = Percentiles{27.5, 38.75, 40, 2};
  naive.expectations = {{"winners = 1", 2, 0, ""},
                        {"SQLSTATE 40001 count = 1", 2, 0, ""},
                        {std::string("final SELECT error FROM runs WHERE id=1 = ") + kNasty, 1, 1,
                         "trial 2: got NULL"}};
  naive.trial_details = {NaiveTrial(0, 0, 15, false), NaiveTrial(1, 100, 40, true)};
  naive.representative_trial = 1;
  for (const TrialVerdict& t : naive.trial_details) naive.duration_us += t.result.duration_us;

  report.results = {std::move(cas), std::move(naive)};
  return run;
}

}  // namespace racelab::testing
