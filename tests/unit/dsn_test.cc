// DSN redaction (libpq's parser, no server): a password never survives into text racelab prints, in
// any form it can be written (PostgreSQL docs §34.1.1), and redaction never touches other words.
#include "harness/engines/postgresql/dsn.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/cli/command_line.h"

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
