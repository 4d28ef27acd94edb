// `racelab run X.spec`'s engine (harness/engines/postgresql/spec/transcript_runner.h) on the real
// server: the team's own spec files (tests/fixtures/spec/diff) give, byte for byte, the transcript
// PostgreSQL's isolationtester gives — the one recorded next to each spec, and, when the
// isolationtester binary is installed (Debian: postgresql-client-15), one it produces now on the
// same server (the differential test).
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <stdio.h>

#include <filesystem>
#include <string>

#include "harness/engines/postgresql/spec/spec_database.h"
#include "harness/engines/postgresql/spec/transcript_runner.h"
#include "harness/loader/spec_parser.h"
#include "harness/loader/spec_permutations.h"
#include "tests/integration/pg_test_env.h"
#include "tests/integration/subprocess.h"
#include "tests/integration/test_files.h"

namespace racelab {
namespace {

constexpr const char* kIsolationtester =
    "/usr/lib/postgresql/15/lib/pgxs/src/test/isolation/isolationtester";

std::string DiffDir() { return std::string(RACELAB_SOURCE_DIR) + "/tests/fixtures/spec/diff/"; }

// Runs `spec`'s permutations (those `selectors` name, as --permutation does; empty: all) through
// racelab's transcript runner; the transcript, and the status in *status.
std::string RacelabTranscript(const IsolationSpec& spec, SpecRunOptions options, Status* status,
                              const std::vector<std::string>& selectors = {}) {
  auto all = ExpandSpecPermutations(spec);
  EXPECT_TRUE(all.ok()) << all.status().message();
  if (!all.ok()) return "";
  auto chosen = SelectSpecPermutations(spec, *all, selectors);
  EXPECT_TRUE(chosen.ok()) << chosen.status().message();
  if (!chosen.ok()) return "";
  std::vector<StepOrder> orders;
  for (size_t i : *chosen) orders.push_back((*all)[i]);
  char* buffer = nullptr;
  size_t size = 0;
  FILE* mem = open_memstream(&buffer, &size);
  *status = RunSpecTranscript(spec, orders, options, testing::TestConninfo(), nullptr, mem);
  fclose(mem);
  std::string text(buffer, size);
  free(buffer);
  return text;
}

int CountSpecDatabases() {
  PGconn* c = PQconnectdb(testing::TestConninfo().c_str());
  PGresult* r =
      PQexec(c, "SELECT count(*) FROM pg_database WHERE datname LIKE 'racelab\\_spec\\_%'");
  int n = PQresultStatus(r) == PGRES_TUPLES_OK ? std::stoi(PQgetvalue(r, 0, 0)) : -1;
  PQclear(r);
  PQfinish(c);
  return n;
}

class SpecTranscriptTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SpecTranscriptTest, MatchesIsolationtestersTranscript) {
  std::string spec_path = DiffDir() + GetParam() + ".spec";
  auto spec = LoadSpecFile(spec_path);
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  int databases_before = CountSpecDatabases();
  Status status;
  std::string ours = RacelabTranscript(*spec, SpecRunOptions{}, &status);
  ASSERT_TRUE(status.ok()) << status.message() << "\n" << ours;
  EXPECT_EQ(ours, testing::Slurp(DiffDir() + GetParam() + ".out")) << "racelab's transcript:\n"
                                                                   << ours;
  EXPECT_EQ(CountSpecDatabases(), databases_before) << "the run's database was not dropped";

  // The differential part: isolationtester itself, now, on the same server, in a database made
  // alike.
  std::string conninfo = testing::TestConninfo();
  if (!std::filesystem::exists(kIsolationtester) || conninfo.rfind("postgres", 0) == 0) {
    GTEST_SKIP() << "no isolationtester binary (postgresql-client-15), or a URI DSN: compared with "
                    "the recorded "
                    "output only";
  }
  auto db = SpecDatabase::Create(conninfo, 5000);
  ASSERT_TRUE(db.ok()) << db.status().message();
  auto theirs =
      testing::RunProcess({"/bin/sh", "-c", "exec \"$0\" \"$1\" < \"$2\" 2>&1", kIsolationtester,
                           conninfo + " dbname=" + (*db)->name(), spec_path},
                          std::chrono::seconds(120));
  ASSERT_EQ(theirs.exit_code, 0) << theirs.out << theirs.err;
  EXPECT_EQ(ours, theirs.out) << "isolationtester's transcript:\n" << theirs.out;
}

INSTANTIATE_TEST_SUITE_P(OwnSpecs, SpecTranscriptTest,
                         ::testing::Values("locks", "deadlock", "results", "notices"));

TEST(SpecTranscriptRunTest, RunsOnlyTheSelectedPermutations) {
  auto spec = LoadSpecFile(DiffDir() + "locks.spec");
  ASSERT_TRUE(spec.ok());
  SpecRunOptions options;
  Status status;
  // By number, and as the spec writes permutation 3 (its marker included); the selection itself is
  // SpecPermutationsTest's.
  std::string out = RacelabTranscript(*spec, options, &status, {"2", "s1u s2u(*) s1c s2s s3l s3e"});
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(out.find("starting permutation: s1u s2u s1s"), std::string::npos) << out;
  EXPECT_NE(out.find("starting permutation: s1u s2n s1c s2s s3l s3e"), std::string::npos) << out;
  EXPECT_NE(out.find("starting permutation: s1u s2u s1c s2s s3l s3e"), std::string::npos) << out;
  EXPECT_EQ(out.find("starting permutation: s1u s2u s3l"), std::string::npos) << out;
}

TEST(SpecTranscriptRunTest, WaitDetailNamesTheWaitAndItsHolder) {
  auto spec = LoadSpecFile(DiffDir() + "locks.spec");
  ASSERT_TRUE(spec.ok());
  SpecRunOptions options;
  options.wait_detail = true;
  Status status;
  std::string out = RacelabTranscript(*spec, options, &status, {"1"});
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_NE(
      out.find("RETURNING balance; <waiting ...>\n  (s2 waits: Lock/transactionid, held by s1)\n"),
      std::string::npos)
      << out;
}

TEST(SpecTranscriptRunTest, AStepPastItsTimeoutIsCancelledAndTheRunGoesOn) {
  auto spec = ParseSpecText(
      "session a\nstep a1 { SELECT pg_sleep(30); }\nstep a2 { SELECT 'after' AS next; }\n",
      "sleepy.spec");
  ASSERT_TRUE(spec.ok());
  SpecRunOptions options;
  options.step_timeout_ms = 300;
  Status status;
  auto start = std::chrono::steady_clock::now();
  std::string out = RacelabTranscript(*spec, options, &status);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(status.ok()) << status.message() << "\n" << out;
  EXPECT_NE(out.find("racelab: canceling step a1 after "), std::string::npos) << out;
  EXPECT_NE(
      out.find("ERROR:  canceling statement due to user request\nstep a2: SELECT 'after' AS next;"),
      std::string::npos)
      << out;
  EXPECT_LT(ms, 20000) << out;
}

TEST(SpecTranscriptRunTest, AWaitNothingReleasesIsCancelledAtTheStepTimeout) {
  // b1 waits for a's lock and no later step releases it: at the end of the permutation racelab
  // waits for it, as isolationtester does, until the step timeout cancels it.
  auto spec = ParseSpecText(
      "session a\nstep a1 { SELECT pg_advisory_lock(7) IS NOT NULL AS locked; }\n"
      "session b\nstep b1 { SELECT pg_advisory_lock(7); }\npermutation a1 b1\n",
      "stuck.spec");
  ASSERT_TRUE(spec.ok());
  SpecRunOptions options;
  options.step_timeout_ms = 500;
  Status status;
  std::string out = RacelabTranscript(*spec, options, &status);
  ASSERT_TRUE(status.ok()) << status.message() << "\n" << out;
  EXPECT_NE(
      out.find(
          "step b1: SELECT pg_advisory_lock(7); <waiting ...>\nracelab: canceling step b1 after "),
      std::string::npos)
      << out;
  EXPECT_NE(out.find("step b1: <... completed>\nERROR:  canceling statement due to user request\n"),
            std::string::npos)
      << out;
}

// Issue 20 item 15: a session name the loader would refuse (12,000 characters, built here without
// it) once went whole into application_name; the start-up packet was too large and the server
// closed the connection (exit 3). Every connection path cuts and cleans the name first
// (application_name.h).
TEST(SpecTranscriptRunTest, ALongSessionNameIsCutForApplicationName) {
  auto parsed = ParseSpecText(
      "session a\nstep a1 { SELECT length(current_setting('application_name')) AS n, "
      "current_setting('application_name') LIKE 'isolation/%/ssss%' AS named; }\n",
      "long.spec");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  IsolationSpec spec = *parsed;
  spec.sessions[0].name = std::string(12000, 's') + "\x1b]0;t\a";
  Status status;
  std::string out = RacelabTranscript(spec, SpecRunOptions{}, &status);
  ASSERT_TRUE(status.ok()) << status.message() << "\n" << out;
  EXPECT_NE(out.find("\n63|t    \n(1 row)"), std::string::npos)
      << out;  // 63 bytes, the session's name in it
}

}  // namespace
}  // namespace racelab
