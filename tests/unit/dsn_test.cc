// DSN redaction (libpq's parser, no server): a password never survives into text racelab prints, in
// any form it can be written (PostgreSQL docs §34.1.1), and redaction never touches other words.
#include "harness/engines/postgresql/dsn.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/cli/command_line.h"
#include "harness/engine_registry/open_engine.h"
#include "harness/engines/mariadb/dsn.h"

namespace racelab::pg {
namespace {

struct Form {
  const char* name;
  std::string dsn;
  std::string password;  // as the server would receive it
};

// Every way of writing a password that libpq parses; used by the table-driven tests below.
std::vector<Form> Forms() {
  return {
      {"uri_user_password", "postgresql://alice:s3cret@db.example:5433/app", "s3cret"},
      {"uri_percent_encoded", "postgresql://u:p%40ss@localhost/db", "p@ss"},
      {"uri_query_password", "postgresql://u@localhost/db?password=qu3ry-pw&sslmode=disable",
       "qu3ry-pw"},
      {"uri_query_encoded_key", "postgres://u@localhost/db?pass%77ord=enc-key-pw", "enc-key-pw"},
      {"kv_plain", "host=/tmp dbname=app password=kvpw123", "kvpw123"},
      {"kv_quoted_space", "host=/tmp dbname=app password='pa ss word'", "pa ss word"},
      {"kv_escaped_quote", "host=localhost password='it\\'s a \\\\secret'", "it's a \\secret"},
      {"kv_one_letter", "host=localhost user=postgres password=a", "a"},
      {"kv_common_word", "host=localhost user=postgres password=postgres", "postgres"},
      {"kv_nested_dbname", "dbname='host=x password=nested-pw'", "nested-pw"},
  };
}

TEST(Dsn, RedactDsnRemovesThePasswordInEveryForm) {
  for (const Form& f : Forms()) {
    std::string r = RedactDsn(f.dsn);
    EXPECT_EQ(r.find("password=***"), r.rfind("password=***")) << f.name << ": " << r;
    EXPECT_NE(r.find("password=***"), std::string::npos) << f.name << ": " << r;
    if (f.password.size() > 1 && f.password != "postgres") {
      EXPECT_EQ(r.find(f.password), std::string::npos) << f.name << ": " << r;
    }
    EXPECT_NE(r, std::string(kUnparseableDsn)) << f.name;
  }
}

TEST(Dsn, RedactDsnKeepsEverythingElse) {
  EXPECT_EQ(RedactDsn("postgresql://alice:s3cret@db.example:5433/app?sslmode=disable"),
            "user=alice password=*** dbname=app host=db.example port=5433 sslmode=disable");
  // A one-letter password or one equal to the user name leaves the other values whole.
  EXPECT_EQ(RedactDsn("host=localhost user=postgres password=postgres"),
            "user=postgres password=*** host=localhost");
  EXPECT_EQ(RedactDsn("host=a user=a password=a"), "user=a password=*** host=a");
  EXPECT_EQ(RedactDsn("host=/tmp dbname='my db'"), "dbname='my db' host=/tmp");
}

TEST(Dsn, UnparseableDsnIsNeverEchoed) {
  EXPECT_EQ(RedactDsn("host=x password=s3cret nonsense"), kUnparseableDsn);
  for (const std::string dsn : {"host=x password=s3cret bogus_key=1", "postgresql://u:p%zzss@h/db",
                                "host=x password=a b", "postgresql://u:pw@h/db?password=x&y",
                                "host=x password='unterminated", "postgresql://u:p%00@h/db"}) {
    Status s = ValidateDsn(dsn);
    EXPECT_EQ(s.code(), StatusCode::kUsage) << dsn;
    for (const char* secret : {"s3cret", "zzss", "%zz", "unterminated", "y\"", "'b'", "\"b\""}) {
      EXPECT_EQ(s.message().find(secret), std::string::npos) << dsn << " -> " << s.message();
    }
  }
  EXPECT_TRUE(ValidateDsn("postgresql://u@localhost/db").ok());
}

TEST(Dsn, ParseErrorsNameThePartWithoutItsValue) {
  using internal::DescribeDsnParseError;
  EXPECT_EQ(DescribeDsnParseError("postgresql://u:p%zzss@h/db"),
            "the password in the URI has a malformed percent-escape (% must be followed by two hex "
            "digits; write % "
            "itself as %25)");
  EXPECT_EQ(DescribeDsnParseError("postgresql://u%g@h/db").rfind("the user name in the URI has", 0),
            0u);
  EXPECT_EQ(DescribeDsnParseError("postgresql://u:p%00@h/db"),
            "the password in the URI has the forbidden escape %00");
  EXPECT_EQ(DescribeDsnParseError("postgresql://h/db?sslmode=disable&x")
                .rfind("the 2nd query parameter has no '='", 0),
            0u);
  EXPECT_EQ(DescribeDsnParseError("postgresql://h/db?bogus=1")
                .rfind("the 1st query parameter names an option", 0),
            0u);
  EXPECT_EQ(DescribeDsnParseError("host=x password=a b").rfind("key=value pair 3 has no '='", 0),
            0u);
  EXPECT_EQ(DescribeDsnParseError("host=x bogus=1").rfind("key=value pair 2 names an option", 0),
            0u);
  EXPECT_EQ(DescribeDsnParseError("host=x password='abc")
                .rfind("key=value pair 2 has a quoted value with no closing", 0),
            0u);
  EXPECT_EQ(DescribeDsnParseError("mydb").rfind("key=value pair 1 has no '='", 0), 0u);
}

TEST(Dsn, LibpqMessagesLoseQuotedPasswordsOnly) {
  const std::string dsn = "host=localhost user=a password=a";
  // Substring replacement would print "p***ssword ***uthentic***tion f***iled".
  EXPECT_EQ(RedactLibpqMessage("password authentication failed for user \"a\"", dsn),
            "password authentication failed for user \"***\"");
  EXPECT_EQ(
      RedactLibpqMessage(
          "connection to server at \"localhost\" failed: FATAL: password authentication failed",
          "postgresql://u:localhost@h/db"),
      "connection to server at \"***\" failed: FATAL: password authentication failed");
  EXPECT_EQ(RedactLibpqMessage("unterminated \"quote", dsn), "unterminated \"quote");
}

TEST(Dsn, LooksLikeDsnFindsConnectionStringsThatMayHoldAPassword) {
  EXPECT_TRUE(LooksLikeDsn("postgresql://u:pw@h/db"));
  EXPECT_TRUE(LooksLikeDsn("postgres://h/db?password=x"));
  EXPECT_TRUE(LooksLikeDsn("host=h password=x"));
  EXPECT_FALSE(LooksLikeDsn("guarded-cas-claim"));
  EXPECT_FALSE(LooksLikeDsn("workers=8"));
  EXPECT_FALSE(LooksLikeDsn("scenarios/lock-hold-wait.yaml"));
}

// Every DSN form of every engine through the one engine-neutral path (open_engine.h RedactDsn,
// which the CLI uses for argv, reports and messages): a password is shown as *** when the string
// parses safely, and nothing of the string is shown when it does not — never pieces. The passwords
// are made of two pieces, "pwA1" and "pwB2", joined by a character a careless parser splits on.
struct AnyForm {
  const char* name;
  std::string dsn;
  std::string shown;  // the redaction; kUnparseableDsn when it cannot be parsed safely
};

std::vector<AnyForm> AnyForms() {
  const std::string none(kUnparseableDsn);
  return {
      // PostgreSQL URIs: libpq looks for the user info's '@' only up to the first '/'.
      {"pg_slash_in_password", "postgresql://u:pwA1/pwB2@db.example/app", none},
      {"pg_at_in_password", "postgresql://u:pwA1@pwB2@db.example/app", none},
      {"pg_at_in_query_password", "postgresql://u@h/db?password=pwA1@pwB2", none},
      {"pg_slash_no_at", "postgres://u:pwA1/pwB2", none},  // libpq: host u, port pwA1
      {"pg_question_in_password", "postgresql://u:pwA1?pwB2@h/db",
       "user=u password=*** dbname=db host=h"},
      {"pg_encoded_slash", "postgresql://u:pwA1%2FpwB2@h/db",
       "user=u password=*** dbname=db host=h"},
      {"pg_query_password", "postgresql://u@h/db?password=pwA1%40pwB2",
       "user=u password=*** dbname=db host=h"},
      {"pg_nested_ambiguous", "dbname='postgresql://u:pwA1/pwB2@h/db'", none},
      {"pg_kv_quoted", "host=h password='pwA1 pwB2'", "password=*** host=h"},
      {"pg_kv_unquoted_space", "host=h password=pwA1 pwB2", none},
      // MariaDB URLs: the same rule (harness/model/dsn_uri.h), and query parameters.
      {"maria_slash_in_password", "mariadb://u:pwA1/pwB2@h/db", none},
      {"maria_at_in_password", "mariadb://u:pwA1@pwB2@h/db", none},
      {"maria_question_in_password", "mariadb://u:pwA1?pwB2@h/db", "mariadb://u:***@h/db"},
      {"maria_colon_hash_in_password", "mysql://u:pwA1:#pwB2@h:3307", "mysql://u:***@h:3307"},
      {"maria_query_password", "mariadb://u@h/db?password=pwA1%26pwB2",
       "mariadb://u@h/db?password=***"},
      {"maria_query_password_socket", "mariadb://u@/?socket=/run/m.sock&password=pwA1pwB2",
       "mariadb://u@/?socket=/run/m.sock&password=***"},
      {"maria_both_passwords", "mariadb://u:pwA1@h/?password=pwB2",
       "mariadb://u:***@h/?password=***"},
      {"maria_at_in_query", "mariadb://u@h/db?password=pwA1@pwB2", none},
      {"maria_no_at_port_is_password", "mysql://u:pwA1/pwB2", none},
      {"maria_unknown_parameter", "mariadb://h/db?pwA1=pwB2", none},
      {"maria_no_value", "mariadb://u@h/db?password", none},
      {"maria_bad_escape", "mariadb://u:pwA1%zzpwB2@h/db", none},
      {"maria_plain", "mariadb://u:pwA1pwB2@h/db", "mariadb://u:***@h/db"},
      // SQLite: a file name, shown as written.
      {"sqlite_file", "sqlite:/tmp/app.db", "sqlite:/tmp/app.db"},
      {"sqlite_uri", "sqlite:///tmp/app.db", "sqlite:///tmp/app.db"},
  };
}

TEST(Dsn, EveryFormOfEveryEngineShowsNoPieceOfThePassword) {
  for (const AnyForm& f : AnyForms()) {
    const std::string shown = racelab::RedactDsn(f.dsn);
    EXPECT_EQ(shown, f.shown) << f.name;
    for (const char* piece : {"pwA1", "pwB2"})
      EXPECT_EQ(shown.find(piece), std::string::npos) << f.name;
    std::vector<const char*> argv = {"racelab", "run", "x", "--dsn", f.dsn.c_str()};
    const std::string line = cli::CommandLine(5, argv.data());
    const std::string echoed = cli::RedactArguments("not expected: " + f.dsn, 5, argv.data());
    for (const char* piece : {"pwA1", "pwB2"}) {
      EXPECT_EQ(line.find(piece), std::string::npos) << f.name << ": " << line;
      EXPECT_EQ(echoed.find(piece), std::string::npos) << f.name << ": " << echoed;
    }
  }
}

TEST(Dsn, MalformedDsnErrorsNameThePartWithoutAnyPiece) {
  for (const AnyForm& f : AnyForms()) {
    if (f.shown != kUnparseableDsn) continue;
    const std::string message = racelab::EngineOfDsn(f.dsn) == "mariadb"
                                    ? mariadb::ParseMariaDbDsn(f.dsn).status().message()
                                    : ValidateDsn(f.dsn).message();
    EXPECT_FALSE(message.empty()) << f.name;
    for (const char* piece : {"pwA1", "pwB2", "zz", "db.example", "/db", "h/"}) {
      EXPECT_EQ(message.find(piece), std::string::npos) << f.name << ": " << message;
    }
  }
  EXPECT_EQ(internal::DescribeDsnParseError("postgresql://u:pwA1/pwB2@h/db"), kAmbiguousUriProblem);
  EXPECT_NE(internal::DescribeDsnParseError("dbname='postgresql://u:a/b@h/db'")
                .find("the dbname is itself"),
            std::string::npos);
  EXPECT_NE(ValidateDsn("postgres://u:pwA1/pwB2").message().find("the port is not a number"),
            std::string::npos);
  EXPECT_NE(mariadb::ParseMariaDbDsn("mysql://u:pwA1/pwB2")
                .status()
                .message()
                .find("the port is not a number"),
            std::string::npos);
  EXPECT_NE(mariadb::ParseMariaDbDsn("mariadb://h/db?pwA1=pwB2")
                .status()
                .message()
                .find("1st query parameter"),
            std::string::npos);
}

TEST(Dsn, MariaDbUrlsParseEveryPartOfTheUserInfoWhole) {
  Result<mariadb::ConnectTarget> t = mariadb::ParseMariaDbDsn("mariadb://u:pwA1?pwB2@h:3307/db");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->user, "u");
  EXPECT_EQ(t->password, "pwA1?pwB2");
  EXPECT_EQ(t->host, "h");
  EXPECT_EQ(t->port, 3307u);
  EXPECT_EQ(t->database, "db");
  t = mariadb::ParseMariaDbDsn("mariadb://u@/?socket=/run/m.sock&password=a%26b&user=v");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->socket, "/run/m.sock");
  EXPECT_EQ(t->password, "a&b");
  EXPECT_EQ(t->user, "v");
  t = mariadb::ParseMariaDbDsn("mariadb://[::1]:3310/?");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->host, "::1");
  EXPECT_EQ(t->port, 3310u);
  EXPECT_EQ(t->user, "root");
}

TEST(Dsn, ConninfoWithOverridesReplacesUserAndPassword) {
  auto c = ConninfoWithOverrides("postgresql://me:pw@db:5433/app?sslmode=require",
                                 {{"user", "racelab_role_x"}, {"password", "it's"}});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(*c,
            "user=racelab_role_x password='it\\'s' dbname=app host=db port=5433 sslmode=require");
}

TEST(CommandLine, EveryDsnArgumentIsRedactedWhateverTheForm) {
  for (const Form& f : Forms()) {
    const std::string eq = "--dsn=" + f.dsn;
    std::vector<std::vector<const char*>> argvs = {
        {"racelab", "run", "x", "--dsn", f.dsn.c_str()},
        {"racelab", "run", "x", eq.c_str()},
        {"racelab", "clean", "--dsn", f.dsn.c_str()},
        {"racelab", "list", "--dsn", f.dsn.c_str()},
    };
    for (const auto& argv : argvs) {
      std::string line = cli::CommandLine(static_cast<int>(argv.size()), argv.data());
      EXPECT_NE(line.find("password=***"), std::string::npos) << f.name << ": " << line;
      if (f.password.size() > 1 && f.password != "postgres") {
        EXPECT_EQ(line.find(f.password), std::string::npos) << f.name << ": " << line;
      }
      // What the argument parser echoes is redacted the same way.
      std::string echoed = "The following arguments were not expected: " + f.dsn + " --dsn " + eq;
      std::string redacted =
          cli::RedactArguments(echoed, static_cast<int>(argv.size()), argv.data());
      EXPECT_EQ(redacted.find(f.dsn), std::string::npos) << f.name << ": " << redacted;
    }
  }
}

TEST(CommandLine, ShortDsnValuesDoNotMangleMessages) {
  std::vector<const char*> argv = {"racelab", "list", "--dsn", "a"};
  EXPECT_EQ(
      cli::RedactArguments("The following arguments were not expected: a --dsn", 4, argv.data()),
      "The following arguments were not expected: a --dsn");
  EXPECT_EQ(cli::CommandLine(4, argv.data()), "racelab list --dsn '<unparseable DSN>'");
}

TEST(CommandLine, StrayDsnIsFound) {
  std::vector<const char*> argv = {"racelab", "run", "postgresql://u:pw@h/db"};
  EXPECT_EQ(cli::StrayDsnArgument(3, argv.data()), 2);
  std::vector<const char*> ok = {"racelab", "run", "x", "--dsn", "postgresql://u:pw@h/db"};
  EXPECT_EQ(cli::StrayDsnArgument(5, ok.data()), 0);
}

}  // namespace
}  // namespace racelab::pg
