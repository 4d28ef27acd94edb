// No password in any output: each way of passing one (URI user info, percent-encoded, query
// parameter, key=value plain and quoted with escapes, PGPASSWORD, one letter, a common word; the
// `--dsn X` and `--dsn=X` forms; run, clean, list, explain; parse errors and connection errors) is
// run through the real CLI, and every stream and report file (console, json, md, junit, html,
// stderr) is searched for it. The test server trusts its socket, so any password logs in.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/pg_test_env.h"
#include "tests/integration/subprocess.h"
#include "tests/integration/test_files.h"

namespace racelab::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

const std::string kBin = RACELAB_BINARY;

std::string Option(const std::string& conninfo, const std::string& key) {
  PQconninfoOption* opts = PQconninfoParse(conninfo.c_str(), nullptr);
  std::string out;
  for (PQconninfoOption* o = opts; o != nullptr && o->keyword != nullptr; ++o) {
    if (key == o->keyword && o->val != nullptr) out = o->val;
  }
  PQconninfoFree(opts);
  return out;
}

std::string PercentEncode(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

// The admin role the forms log in as (non-superuser, CREATEROLE): see confinement_test.cc.
void EnsureAdmin() {
  PGconn* c = PQconnectdb(TestConninfo().c_str());
  PQclear(PQexec(
      c,
      "DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'racelab_f_admin') THEN "
      "CREATE ROLE racelab_f_admin LOGIN CREATEROLE; END IF; END$$"));
  PQclear(PQexec(c, "GRANT CREATE ON DATABASE postgres TO racelab_f_admin"));
  PQfinish(c);
}

struct Form {
  std::string name;
  std::vector<std::string> args;     // after "racelab"
  std::vector<std::string> secrets;  // must appear nowhere
  int exit_code;
  std::map<std::string, std::string> env = {};
  bool shown_as_password_eq = true;  // PostgreSQL shows a redacted DSN as key=value, password=***
};

std::vector<Form> Forms() {
  const std::string host = Option(TestConninfo(), "host"), port = Option(TestConninfo(), "port");
  const std::string where = "host=" + PercentEncode(host) + "&port=" + port;
  const std::string kv =
      "host='" + host + "' port=" + port + " user=racelab_f_admin dbname=postgres";
  const std::string uri = "postgresql://racelab_f_admin:Uri-S3cret@/postgres?" + where;
  const std::vector<std::string> run = {"run", "guarded-cas-claim", "--isolation",
                                        "rc",  "--trials",          "1"};
  auto with = [&](std::vector<std::string> tail) {
    std::vector<std::string> out = run;
    out.insert(out.end(), tail.begin(), tail.end());
    return out;
  };
  return {
      {"uri_user_password", with({"--dsn", uri}), {"Uri-S3cret"}, 0},
      {"uri_eq_percent_encoded",
       with({"--dsn=postgresql://racelab_f_admin:p%40ss-Enc0ded@/postgres?" + where}),
       {"p@ss-Enc0ded", "p%40ss-Enc0ded", "ss-Enc0ded"},
       0},
      {"uri_query_password",
       with({"--dsn",
             "postgresql:///postgres?" + where + "&user=racelab_f_admin&password=Qu3ry-S3cret"}),
       {"Qu3ry-S3cret"},
       0},
      {"uri_eq_query_password",
       with({"--dsn=postgresql:///postgres?" + where +
             "&user=racelab_f_admin&password=Qu3ry-S3cret"}),
       {"Qu3ry-S3cret"},
       0},
      {"kv_plain", with({"--dsn", kv + " password=Kv-S3cret"}), {"Kv-S3cret"}, 0},
      {"kv_eq_quoted_escaped",
       with({"--dsn=" + kv + " password='it\\'s a Qu0ted \\\\secret'"}),
       {"Qu0ted"},
       0},
      {"pgpassword_env", with({"--dsn", kv}), {"Env-S3cret"}, 0, {{"PGPASSWORD", "Env-S3cret"}}},
      {"one_letter", with({"--dsn", kv + " password=a"}), {}, 0},
      {"common_word", with({"--dsn", kv + " password=postgres"}), {}, 0},
      {"clean", {"clean", "--dsn", uri, "--dry-run"}, {"Uri-S3cret"}, 0},
      {"clean_eq", {"clean", "--dsn=" + uri, "--dry-run"}, {"Uri-S3cret"}, 0},
      {"bad_percent_escape_run",
       with({"--dsn", "postgresql://u:p%zzBad-Esc4pe@/postgres"}),
       {"Bad-Esc4pe"},
       2},
      {"bad_percent_escape_clean",
       {"clean", "--dsn", "postgresql://u:p%zzBad-Esc4pe@/postgres"},
       {"Bad-Esc4pe"},
       2},
      {"unquoted_space", with({"--dsn", kv + " password=Sp4ce secret"}), {"Sp4ce", "secret\""}, 2},
      {"list_with_dsn", {"list", "--dsn", uri}, {"Uri-S3cret"}, 2},
      {"list_with_dsn_eq", {"list", "--dsn=" + uri}, {"Uri-S3cret"}, 2},
      {"explain_with_dsn", {"explain", "guarded-cas-claim", "--dsn", uri}, {"Uri-S3cret"}, 2},
      {"stray_dsn_positional", {"run", uri}, {"Uri-S3cret"}, 2},
      // A connection string as a --set value: a scenario parameter, shown redacted in the command
      // and in the planner's error (workers must be a number).
      {"set_value_dsn",
       with({"--dsn", kv, "--set", "workers=postgresql://u:S3t-S3cret@/db"}),
       {"S3t-S3cret"},
       2},
      {"set_text_param_dsn",
       {"run", std::string(RACELAB_SOURCE_DIR) + "/tests/fixtures/text_param.yaml", "--trials", "1",
        "--dsn", kv, "--set", "note=postgresql://u:S3t-S3cret@/db"},
       {"S3t-S3cret"},
       0},
      {"set_eq_value_dsn",
       with({"--dsn", kv, "--set=workers=postgresql://u:S3t-S3cret@/db"}),
       {"S3t-S3cret"},
       2},
      {"unreachable",
       with({"--dsn", "postgresql://u:Unre4ch-S3cret@127.0.0.1:1/db", "--connect-timeout-ms",
             "2000"}),
       {"Unre4ch-S3cret"},
       3},
      // A password with a raw '/' or '@': libpq would read its pieces as host, port and dbname; the
      // URI is refused whole (exit 2), and no piece is shown anywhere.
      {"uri_slash_in_password",
       with({"--dsn", "postgresql://racelab_f_admin:Sl4shA/Sl4shB@127.0.0.1:1/postgres"}),
       {"Sl4shA", "Sl4shB"},
       2},
      {"uri_at_in_password",
       with({"--dsn=postgresql://racelab_f_admin:AtPieceA@AtPieceB@127.0.0.1:1/postgres"}),
       {"AtPieceA", "AtPieceB"},
       2},
      {"uri_no_host_port_is_password",
       {"clean", "--dsn", "postgres://racelab_f_admin:P0rtPiece"},
       {"P0rtPiece"},
       2},
      {"uri_encoded_slash_logs_in",
       with({"--dsn", "postgresql://racelab_f_admin:EncA%2FEncB@/postgres?" + where}),
       {"EncA", "EncB"},
       0},
      // MariaDB URLs against nothing reachable (port 1): every form of password.
      {"mariadb_query_password",
       {"run", "guarded-cas-claim", "--trials", "1", "--connect-timeout-ms", "2000", "--dsn",
        "mariadb://u@127.0.0.1:1/db?password=MqPieceA%26MqPieceB"},
       {"MqPieceA", "MqPieceB"},
       3,
       {},
       false},
      {"mariadb_question_in_password",
       {"run", "guarded-cas-claim", "--trials", "1", "--connect-timeout-ms", "2000", "--dsn",
        "mariadb://u:QmPieceA?QmPieceB@127.0.0.1:1/db"},
       {"QmPieceA", "QmPieceB"},
       3,
       {},
       false},
      {"mariadb_slash_in_password",
       {"run", "guarded-cas-claim", "--trials", "1", "--dsn",
        "mysql://u:MsPieceA/MsPieceB@127.0.0.1:1/db"},
       {"MsPieceA", "MsPieceB"},
       2,
       {},
       false},
      {"mariadb_no_host",
       {"run", "guarded-cas-claim", "--trials", "1", "--dsn", "mariadb://root:MnPieceA"},
       {"MnPieceA"},
       2,
       {},
       false},
      {"mariadb_unknown_parameter",
       {"clean", "--dsn", "mariadb://u@127.0.0.1:1/db?MkPieceA=MkPieceB"},
       {"MkPieceA", "MkPieceB"},
       2,
       {},
       false},
      // A sqlite: DSN holds no password as documented, but one typed in is never shown either.
      {"sqlite_user_info",
       {"run", "sqlite-guarded-cas-claim", "--trials", "1", "--dsn",
        "sqlite://u:Sq1-S3cret@host/x.db"},
       {"Sq1-S3cret"},
       2,
       {},
       false},
      {"sqlite_query",
       {"run", "sqlite-guarded-cas-claim", "--trials", "1", "--dsn",
        "sqlite:///tmp/x.db?password=Sq2-S3cret"},
       {"Sq2-S3cret"},
       2,
       {},
       false},
      {"sqlite_no_file",
       {"run", "sqlite-guarded-cas-claim", "--trials", "1", "--dsn", "sqlite:u:Sq3-S3cret@x.db"},
       {"Sq3-S3cret"},
       3,
       {},
       false},
      {"sqlite_clean",
       {"clean", "--dsn", "sqlite://u:Sq4-S3cret@host/x.db"},
       {"Sq4-S3cret"},
       2,
       {},
       false},
  };
}

class NoPassword : public ::testing::TestWithParam<Form> {};

TEST_P(NoPassword, InAnyStreamOrReport) {
  EnsureAdmin();
  const Form& f = GetParam();
  TempDir out;
  std::vector<std::string> argv = {kBin};
  argv.insert(argv.end(), f.args.begin(), f.args.end());
  if (f.args[0] == "run")
    argv.insert(argv.end(), {"--format", "console,json,md,junit,html", "--out", out.path.string()});
  ProcessResult r = RunProcess(argv, seconds(120), f.env);
  EXPECT_EQ(r.exit_code, f.exit_code) << r.err << r.out;
  std::map<std::string, std::string> outputs = {{"stdout", r.out}, {"stderr", r.err}};
  for (const auto& e : fs::directory_iterator(out.path))
    outputs[e.path().filename().string()] = Slurp(e.path());
  if (f.args[0] == "run" && f.exit_code == 0) {
    EXPECT_EQ(outputs.size(), 6u) << "every report written";
  }
  for (const auto& [name, text] : outputs) {
    for (const std::string& secret : f.secrets) {
      EXPECT_EQ(text.find(secret), std::string::npos)
          << f.name << ": '" << secret << "' in " << name << ":\n"
          << text;
    }
    // Redaction never mangles: every *** is a whole password value.
    size_t stars = 0, redacted = 0;
    for (size_t at = text.find("***"); at != std::string::npos; at = text.find("***", at + 3))
      ++stars;
    for (size_t at = text.find("password=***"); at != std::string::npos;
         at = text.find("password=***", at + 3)) {
      ++redacted;
    }
    if (f.shown_as_password_eq) {
      EXPECT_EQ(stars, redacted) << f.name << " " << name << ":\n" << text;
    }
  }
  if (f.exit_code == 0 && f.args[0] == "run") {
    EXPECT_NE(outputs["racelab.json"].find("\"command\""), std::string::npos);
    if (f.env.empty()) {
      EXPECT_NE(outputs["racelab.json"].find("password=***"), std::string::npos) << f.name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Forms, NoPassword, ::testing::ValuesIn(Forms()),
                         [](const ::testing::TestParamInfo<Form>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace racelab::testing
