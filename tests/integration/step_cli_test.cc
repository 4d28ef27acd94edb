// `racelab step` in a pipe, on the embedded PostgreSQL it starts itself: commands come from stdin
// lines, the transcript shows each step, b waiting for a while a holds the row lock (with the
// locks the server lists in pg_locks: a's transaction lock, b's awaited ShareLock on it), b's
// result after a's commit, and a reset that starts the walk again in under a second. Every command
// acts on a quiet trial (the transcript's rule), so the stdin file needs no pauses. The same on
// MariaDB (no lock table) and on SQLite (a busy wait, the locks from sqlite3_txn_state), and
// --keep's connection line for psql and for sqlite3.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "tests/integration/subprocess.h"
#include "tests/integration/test_files.h"

namespace racelab::testing {
namespace {

using std::chrono::seconds;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kBin = RACELAB_BINARY;

ProcessResult Step(const std::string& args, const std::string& commands) {
  TempDir dir;
  const std::string cmds = (dir.path / "commands").string();
  {
    std::ofstream out(cmds);
    out << commands;
  }
  return RunProcess({"/bin/sh", "-c", kBin + " step " + args + " < " + cmds}, seconds(120));
}

// The text after `from` in `text` (all of it when `from` is absent).
std::string After(const std::string& text, const std::string& from) {
  const size_t at = text.find(from);
  return at == std::string::npos ? "" : text.substr(at + from.size());
}

TEST(StepPipe, LockHoldWaitShowsTheWaitTheLocksAndTheResultOnPostgres) {
  // a.begin a.claim b.begin b.claim (waits) a.commit (b ends) b.commit; back; a.begin; quit.
  ProcessResult r = Step("lock-hold-wait --set hold_ms=0", "n\nn\nn\nn\nn\nn\nb\nn\nq\n");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string& out = r.out;
  EXPECT_THAT(out, HasSubstr("racelab step lock-hold-wait at read committed on postgresql"));
  EXPECT_THAT(out, HasSubstr("step a.begin1: BEGIN ISOLATION LEVEL read committed"));
  EXPECT_THAT(out, HasSubstr("step a.claim: UPDATE runs SET status = 'running'"));
  EXPECT_THAT(out, HasSubstr("  1 row: 1"));  // a's RETURNING id
  // a's row lock: its transaction id's ExclusiveLock, held after its claim.
  EXPECT_TRUE(std::regex_search(
      After(out, "locks after a.claim:"),
      std::regex(R"(\+ a holds ExclusiveLock transaction [0-9]+ \(transactionid\))")))
      << out;
  // b waits for a, seen live; the locks while it waits: b awaits a ShareLock on a's transaction.
  EXPECT_THAT(out, HasSubstr("step b.claim: <waiting for a (transactionid)>"));
  // The scenario's questions (ask:), each on the line before its step.
  EXPECT_THAT(out, HasSubstr("ask b.claim: a has claimed the run and not committed. Will b's "
                             "claim wait, or go through?\nstep b.claim: UPDATE runs"));
  EXPECT_THAT(out, HasSubstr("ask a.commit: a commits: does b's claim now update the row, update "
                             "nothing, or fail?\nstep a.commit: COMMIT"));
  // (The first look that shows it is racelab's own while b waits, or a's after its await_blocked
  // step, whichever comes first.)
  EXPECT_TRUE(std::regex_search(
      After(out, "step b.claim: <waiting for a"),
      std::regex(R"(\+ b awaits ShareLock transaction [0-9]+ \(transactionid\))")))
      << out;
  // The wait is shown before a's commit, and b's result after it: 0 rows at read committed (it
  // re-read the row a changed).
  const size_t waiting = out.find("step b.claim: <waiting for a");
  const size_t commit = out.find("step a.commit: COMMIT");
  const size_t completed = out.find("step b.claim: <... completed>");
  ASSERT_NE(commit, std::string::npos) << out;
  EXPECT_LT(waiting, commit);
  EXPECT_LT(commit, completed);
  EXPECT_THAT(out.substr(completed), HasSubstr("step b.claim: <... completed>\n  0 rows\n"));
  EXPECT_THAT(out, HasSubstr("walk over: every step ran"));
  // Back to the start: a new walk, in under a second.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      out, m, std::regex(R"(--- back to the start: walk 2 \(reset in ([0-9]+) ms\))")))
      << out;
  EXPECT_LT(std::stol(m[1]), 1000) << out;
  std::cout << "reset: " << m[1] << " ms\n";
  EXPECT_THAT(After(out, "walk 2"), HasSubstr("step a.begin1: BEGIN"));
}

TEST(StepPipe, ASessionByNameAndAPermutation) {
  // Each step by its session: a by name, b by its number (b alone is "back") or "n b".
  ProcessResult r =
      Step("lock-hold-wait --set hold_ms=0 --isolation rr", "a\na\n2\nn b\na\n2\nq\n");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("at repeatable read"));
  // Repeatable read: b's snapshot predates a's commit: 40001 with its name.
  EXPECT_THAT(r.out, HasSubstr("ERROR 40001 serialization_failure: could not serialize access"));
  ProcessResult bad = Step("lock-hold-wait --permutation 'a.claim c.claim'", "q\n");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("no session 'c' in lock-hold-wait (its sessions: a, b)"));
}

TEST(StepPipe, ACaptureIsShownFilledInAndRepeatableReadAllowsWriteSkew) {
  // anomaly-g2-item: each withdrawal uses the total its session read (${total}); the transcript
  // shows the value sent. At repeatable read neither withdrawal waits and both commit: the
  // observer finds the total below zero (its one row).
  ProcessResult r = Step("anomaly-g2-item --isolation rr", "n\nn\nn\nn\nn\nn\nn\nn\nn\nq\n");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out,
              HasSubstr("step t2.withdraw: UPDATE test SET value = value - 25 WHERE id = 2 AND 30 "
                        ">= 25\n  1 row\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("${total}")));
  EXPECT_THAT(r.out, Not(HasSubstr("<waiting for")));
  EXPECT_THAT(After(r.out, "step t2.commit: COMMIT"), HasSubstr("  COMMIT\n"));
  // (The locks after a step may come between a step's line and its result.)
  const std::string observed = After(r.out, "ask observer.anomaly: Is the total below zero now");
  EXPECT_THAT(observed, HasSubstr("step observer.anomaly: SELECT 1 FROM (SELECT sum(value) AS "
                                  "total FROM test) s WHERE total < 0\n"));
  EXPECT_THAT(After(observed, "step observer.anomaly:"), HasSubstr("\n  1 row: 1\n"));
}

TEST(StepPipe, ExplainShowsTheQuestions) {
  ProcessResult r = RunProcess({kBin, "explain", "lock-hold-wait"}, seconds(20));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("    - claim: UPDATE runs SET status = 'running'"));
  EXPECT_THAT(r.out, HasSubstr("\n        ask: a has claimed the run and not committed. Will b's "
                               "claim wait, or go through?\n    - commit\n"));
}

TEST(StepPipe, AnExecScenarioIsRefusedBeforeAnyServerStarts) {
  // A program's stretches run between its own pause points; a walk would wait at their barrier for
  // a key that never comes (a new user's trial: it hung and ignored SIGTERM). Refused, exit 2.
  ProcessResult r =
      Step(std::string(RACELAB_SOURCE_DIR) + "/examples/claim-worker/naive-claim.yaml", "n\nn\n");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("session 'worker.1' runs a program (exec:)"));
  EXPECT_THAT(r.err, Not(HasSubstr("starting embedded")));
  // The --help example's permutation names the steps the scenario has.
  ProcessResult help = Step(
      "lock-hold-wait --permutation 'a.begin1 a.claim b.begin2 b.claim "
      "a.commit b.commit4' --set hold_ms=0",
      "n\nn\nn\nn\nn\nn\n");
  EXPECT_EQ(help.exit_code, 0) << help.out << help.err;
  EXPECT_THAT(help.out, HasSubstr("<waiting for a (transactionid)>"));
}

TEST(StepPipe, AThreeSessionLockQueueOnPostgres) {
  // a takes the row, b waits for a, c waits behind b (on the tuple lock b holds while it waits).
  ProcessResult r = Step(std::string(RACELAB_SOURCE_DIR) +
                             "/tests/fixtures/step/lock_queue.yaml --permutation 'a.begin a.take "
                             "b.begin b.take c.begin c.take a.commit b.commit c.commit'",
                         "n\nn\nn\nn\nn\nn\nn\nn\nn\nn\nq\n");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string& out = r.out;
  EXPECT_THAT(out, HasSubstr("step b.take: <waiting for a (transactionid)>"));
  EXPECT_THAT(out, HasSubstr("step c.take: <waiting for b (tuple)>"));
  EXPECT_THAT(After(out, "locks while c waits:"),
              HasSubstr("  + c awaits ExclusiveLock tuple (0,1) of runs (tuple)\n"));
  // When a commits, b gives up its tuple lock to lock the row's new version anew (read committed
  // re-checks it), and c, woken by that, goes for the new version too: either may lock it first
  // (seen both ways on PostgreSQL 15). The one that does completes its take; the other waits for
  // it and completes only after the first one's COMMIT. When c is first, the order's next step
  // (b.commit) cannot run while b waits: a note says so and the next `n` runs c.commit.
  const std::string after_a = After(out, "step a.commit: COMMIT");
  const size_t b_done = after_a.find("step b.take: <... completed>");
  const size_t c_done = after_a.find("step c.take: <... completed>");
  ASSERT_NE(b_done, std::string::npos) << out;
  ASSERT_NE(c_done, std::string::npos) << out;
  const std::string first = b_done < c_done ? "b" : "c", second = b_done < c_done ? "c" : "b";
  EXPECT_THAT(after_a, HasSubstr("step " + first + ".take: <... completed>\n  1 row\n")) << out;
  EXPECT_LT(after_a.find("step " + first + ".commit: COMMIT"),
            after_a.find("step " + second + ".take: <... completed>"))
      << out;
  if (first == "c") {
    EXPECT_THAT(after_a, HasSubstr("note: b's next step runs once its statement ends: b is waiting "
                                   "for c"))
        << out;
  }
  EXPECT_THAT(out, HasSubstr("walk over: every step ran"));
}

// MariaDB's lock view is SHOW ENGINE INNODB STATUS's lock list (the embedded server runs with
// innodb_status_output_locks ON): a's row lock while it holds it alone, then b's awaited one.
TEST(StepPipe, LockHoldWaitOnMariaDbShowsTheWaitAndTheRowLocks) {
  ProcessResult r = Step("lock-hold-wait --engine mariadb --isolation rc --set hold_ms=0",
                         "n\nn\nn\nn\nn\nn\nq\n");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("not available on this engine")));
  const std::string claimed = After(r.out, "locks after a.claim:\n");
  EXPECT_THAT(claimed.substr(0, claimed.find("step ")),
              HasSubstr("  + a holds X record lock (not gap) on runs PRIMARY id=1 (RECORD)\n"))
      << r.out;
  const std::string waits = After(r.out, "locks while b waits:\n");
  EXPECT_THAT(waits.substr(0, waits.find("step ")),
              HasSubstr("  + b awaits X record lock (not gap) on runs PRIMARY id=1 (RECORD)\n"))
      << r.out;
  EXPECT_THAT(r.out, HasSubstr("step b.claim: <waiting for a (RECORD)>"));
  const std::string after = After(r.out, "step a.commit: COMMIT");
  EXPECT_THAT(after, HasSubstr("step b.claim: <... completed>\n  0 rows\n"));
}

TEST(StepPipe, LevelSwitchesToTheNextIsolationLevelAndStartsANewWalk) {
  // lock-hold-wait lists read committed, repeatable read, serializable for PostgreSQL: `l` moves
  // along that list (and round), `l LEVEL` goes to one, a level it does not list is refused.
  ProcessResult r = Step("lock-hold-wait --set hold_ms=0", "n\nl\nn\nl ser\nn\nl ru\nl\nn\nq\n");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string& out = r.out;
  EXPECT_THAT(out, HasSubstr("racelab step lock-hold-wait at read committed on postgresql"));
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      out, m, std::regex(R"(--- level repeatable read: walk 2 \(reset in ([0-9]+) ms\) ---)")))
      << out;
  std::cout << "level switch: " << m[1] << " ms\n";
  EXPECT_LT(std::stol(m[1]), 1000) << out;
  EXPECT_THAT(After(out, "walk 2"),
              HasSubstr("step a.begin1: BEGIN ISOLATION LEVEL repeatable read"));
  EXPECT_THAT(After(out, "--- level serializable: walk 3"),
              HasSubstr("step a.begin1: BEGIN ISOLATION LEVEL serializable"));
  EXPECT_THAT(r.err, HasSubstr("l: lock-hold-wait runs at read committed, repeatable read, "
                               "serializable on postgresql here, not at 'ru'"));
  // After the last level, the first again.
  EXPECT_THAT(After(out, "--- level read committed: walk 4"),
              HasSubstr("step a.begin1: BEGIN ISOLATION LEVEL read committed"));
  // Given --isolation, `l` still knows the scenario's other levels.
  ProcessResult rr = Step("lock-hold-wait --set hold_ms=0 --isolation rr", "l\nn\nq\n");
  ASSERT_EQ(rr.exit_code, 0) << rr.out << rr.err;
  EXPECT_THAT(After(rr.out, "--- level serializable: walk 2"),
              HasSubstr("BEGIN ISOLATION LEVEL serializable"));
}

TEST(StepPipe, TypedSqlOnTheTeachersConnectionAndInsideASessionsTransaction) {
  // b waits for a; a waits at the gate for its COMMIT, its UPDATE not committed: the teacher's
  // connection — outside a's transaction, read committed — still reads the committed 'queued';
  // inside a's transaction a reads its own 'running' (checked by hand with two psql windows: the
  // same). Bad SQL gives the server's error; the walk goes on.
  ProcessResult r =
      Step("lock-hold-wait --set hold_ms=0",
           "n\nn\nn\nn\n:SELECT status FROM runs\n"
           ":a SELECT status, attempts FROM runs\n:SELEC status FROM runs\n"
           ":a COMMIT\n:c SELECT 1\n:b SELECT 1\n:SELECT id FROM runs_nosuch\nn\nn\nq\n");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string& out = r.out;
  const std::string after_claim = After(out, "step b.claim: <waiting for a (transactionid)>");
  EXPECT_THAT(after_claim,
              HasSubstr("step teacher: SELECT status FROM runs\n  1 row (status): queued\n"));
  EXPECT_THAT(after_claim, HasSubstr("step a.typed: SELECT status, attempts FROM runs\n"
                                     "  1 row (status|attempts): running|1\n"));
  EXPECT_THAT(out, HasSubstr("step teacher: SELEC status FROM runs\n  ERROR 42601 syntax_error: "
                             "syntax error at or near \"SELEC\""));
  EXPECT_THAT(out, HasSubstr("  ERROR 42P01 undefined_table: relation \"runs_nosuch\" does not "
                             "exist"));
  // a's own steps begin and end its transaction; a session not in the scenario is the teacher's
  // SQL ("c SELECT 1" is no statement).
  EXPECT_THAT(r.err, HasSubstr(":a runs a statement inside a's transaction"));
  // b waits on a lock, not at the gate: refused, nothing run on its connection.
  EXPECT_THAT(r.err, HasSubstr(":b: it is not waiting at the gate"));
  EXPECT_THAT(out, Not(HasSubstr("step b.typed")));
  EXPECT_THAT(out, HasSubstr("step teacher: c SELECT 1\n  ERROR 42601 syntax_error"));
  EXPECT_THAT(After(out, "runs_nosuch"), HasSubstr("step a.commit: COMMIT"));
  EXPECT_THAT(out, HasSubstr("walk over: every step ran"));
}

TEST(StepPipe, ATypedStatementThatWaitsOnALockShowsTheWaitAndTheWalkGoesOn) {
  // After a's claim the teacher's UPDATE of the same row waits for a's transaction (holding the
  // row's tuple lock while it waits); b's claim then queues behind the teacher. a's commit lets the
  // teacher's UPDATE run (autocommit: it commits at once), then b's claim re-checks the row: 0
  // rows. (Typed while b already waits, the teacher's UPDATE queues behind b instead, and after
  // a's commit the two race for the row: both orders seen, by hand with psycopg too.)
  ProcessResult r = Step("lock-hold-wait --set hold_ms=0",
                         "n\nn\n:UPDATE runs SET attempts = attempts + 10 WHERE id = 1\n:SELECT 1\n"
                         "n\nn\nn\n:SELECT status, attempts FROM runs\nn\nq\n");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string& out = r.out;
  const std::string typed = After(out, "step teacher: UPDATE runs SET attempts = attempts + 10");
  EXPECT_THAT(typed, HasSubstr("step teacher: <waiting for a (transactionid)>")) << out;
  // One typed statement at a time: the second is refused while the UPDATE waits.
  EXPECT_THAT(r.err, HasSubstr("a typed statement runs already"));
  // b waits for the teacher's connection, named as such.
  EXPECT_THAT(typed, HasSubstr("step b.claim: <waiting for teacher (tuple)>")) << out;
  const size_t a_commit = typed.find("step a.commit: COMMIT");
  const size_t done = typed.find("step teacher: <... completed>\n  UPDATE 1\n");
  const size_t b_claim = typed.find("step b.claim: <... completed>\n  0 rows\n");
  ASSERT_NE(a_commit, std::string::npos) << out;
  ASSERT_NE(done, std::string::npos) << out;
  ASSERT_NE(b_claim, std::string::npos) << out;
  EXPECT_LT(a_commit, done);
  EXPECT_LT(a_commit, b_claim);
  // a's claim set attempts to 1, the teacher's UPDATE added 10, b's claim updated no row.
  EXPECT_THAT(typed, HasSubstr("  1 row (status|attempts): running|11\n"));
  EXPECT_THAT(out, HasSubstr("walk over: every step ran"));
}

// `racelab step ARGS --keep` with every step of a two-session walk (six) in a commands file, then
// its stdin's end: --keep prints how to connect and waits for Ctrl-C. Returns the process once its
// stderr says "Connect with:" (a failure if not within `wait_ms`).
std::unique_ptr<Subprocess> StartKept(const TempDir& dir, const std::string& args, int wait_ms) {
  const std::string cmds = (dir.path / "commands").string();
  std::ofstream(cmds) << "n\nn\nn\nn\nn\nn\n";
  auto p = std::make_unique<Subprocess>(std::vector<std::string>{
      "/bin/sh", "-c", "exec " + kBin + " step " + args + " --keep < " + cmds});
  EXPECT_TRUE(p->WaitForStderr("Connect with:", std::chrono::milliseconds(wait_ms)))
      << p->StderrSoFar();
  return p;
}

// Ctrl-C ends a kept walk with 130 (within `wait_ms`) and removes `kept` (its run folder).
void ExpectCtrlCRemoves(Subprocess& p, const std::filesystem::path& kept, int wait_ms) {
  p.Signal(SIGINT);
  ProcessResult r = p.Wait(std::chrono::milliseconds(wait_ms));
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_FALSE(std::filesystem::exists(kept)) << kept << " is left";
}

TEST(StepPipe, KeepLeavesTheServerUpForPsqlUntilCtrlC) {
  TempDir dir;
  std::unique_ptr<Subprocess> p = StartKept(dir, "lock-hold-wait --set hold_ms=0", 60000);
  const std::string err = p->StderrSoFar();
  std::smatch m;
  ASSERT_TRUE(std::regex_search(err, m, std::regex(R"(\n  (psql "host=([^ ]+) [^"]*")\n)"))) << err;
  EXPECT_THAT(err, Not(HasSubstr("password")));
  const std::string psql = m[1], run_dir = m[2];
  ProcessResult q =
      RunProcess({"/bin/sh", "-c", psql + " -Atc 'SELECT status FROM runs'"}, seconds(20));
  EXPECT_EQ(q.exit_code, 0) << q.err;
  EXPECT_EQ(q.out, "queued\n");  // the scenario's setup, for the students' own statements
  ExpectCtrlCRemoves(*p, run_dir, 20000);
}

// SQLite (sqlite-lock-hold-wait, WAL): b's claim waits in its busy handler — the transcript shows
// the wait before a's commit, with the locks each connection's sqlite3_txn_state gives (a's WAL
// write lock, b awaiting it) — and b's claim returns its own row after it.
TEST(StepPipe, SqliteLockHoldWaitShowsTheBusyWaitAndTheWalLocks) {
  ProcessResult r =
      Step("sqlite-lock-hold-wait --engine sqlite --set hold_ms=0", "n\nn\nn\nn\nn\nn\nq\n");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string& out = r.out;
  EXPECT_THAT(out, HasSubstr("racelab step sqlite-lock-hold-wait at serializable on sqlite"));
  EXPECT_THAT(out, Not(HasSubstr("held locks: not available")));
  EXPECT_THAT(After(out, "locks after a.claim:"),
              HasSubstr("  + a holds WAL_WRITE_LOCK main (wal-index)\n"));
  EXPECT_THAT(out, HasSubstr("step b.claim: <waiting for a (busy)>"));
  EXPECT_THAT(After(out, "step b.claim: <waiting for a (busy)>"),
              HasSubstr("  + b awaits WAL_WRITE_LOCK main (wal-index)\n"));
  const size_t waiting = out.find("step b.claim: <waiting for a (busy)>");
  const size_t commit = out.find("step a.commit6: COMMIT");
  const size_t completed = out.find("step b.claim: <... completed>");
  ASSERT_NE(commit, std::string::npos) << out;
  EXPECT_LT(waiting, commit);
  EXPECT_LT(commit, completed);
  EXPECT_THAT(out.substr(completed), HasSubstr("step b.claim: <... completed>\n  1 row: 2\n"));
  EXPECT_THAT(out, HasSubstr("walk over: every step ran"));
}

// --keep on SQLite: the workspace's database file, with the setup's rows, for the sqlite3 shell.
TEST(StepPipe, KeepOnSqlitePrintsASqlite3CommandLine) {
  TempDir dir;
  std::unique_ptr<Subprocess> p =
      StartKept(dir, "sqlite-lock-hold-wait --engine sqlite --set hold_ms=0", 60000);
  const std::string err = p->StderrSoFar();
  EXPECT_THAT(err, HasSubstr("--keep: the database file stays until q or Ctrl-C"));
  EXPECT_THAT(err, Not(HasSubstr("server")));
  std::smatch m;
  ASSERT_TRUE(std::regex_search(err, m, std::regex(R"(\n  (/[^\n ]+\.db)\n  (sqlite3 [^\n]+)\n)")))
      << err;
  const std::string file = m[1], sqlite3 = m[2];
  EXPECT_EQ(sqlite3, "sqlite3 " + file);
  ProcessResult q = RunProcess(
      {"/bin/sh", "-c", sqlite3 + " 'SELECT id, status FROM runs ORDER BY id'"}, seconds(20));
  EXPECT_EQ(q.exit_code, 0) << q.err;
  EXPECT_EQ(q.out, "1|queued\n2|queued\n");  // the scenario's setup
  ExpectCtrlCRemoves(*p, std::filesystem::path(file).parent_path().parent_path(), 20000);
}

// On MariaDB, --keep prints a racelab DSN and a `mariadb` command line (the embedded server's root
// over its socket, no password) that connects to the kept database with the setup's rows.
TEST(StepPipe, KeepOnMariaDbPrintsAMariadbCommandThatConnects) {
  TempDir dir;
  std::unique_ptr<Subprocess> p =
      StartKept(dir, "lock-hold-wait --engine mariadb --set hold_ms=0", 90000);
  const std::string err = p->StderrSoFar();
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(err, m,
                        std::regex(R"(\n  mariadb://root@localhost/[a-z0-9_]+\?socket=[^ ]+\n)"
                                   R"(  (mariadb --no-defaults --socket=(/[^ ]+)/sock [^\n]+)\n)")))
      << err;
  EXPECT_THAT(err, Not(HasSubstr("password")));
  const std::string client = m[1], run_dir = m[2];
  ProcessResult one = RunProcess({"/bin/sh", "-c", client + " -e 'SELECT 1'"}, seconds(20));
  EXPECT_EQ(one.exit_code, 0) << client << ": " << one.err;
  ProcessResult q =
      RunProcess({"/bin/sh", "-c", client + " -N -B -e 'SELECT status FROM runs'"}, seconds(20));
  EXPECT_EQ(q.exit_code, 0) << q.err;
  EXPECT_EQ(q.out, "queued\n");  // the scenario's setup, in the database it names
  ExpectCtrlCRemoves(*p, run_dir, 30000);
}

}  // namespace
}  // namespace racelab::testing
