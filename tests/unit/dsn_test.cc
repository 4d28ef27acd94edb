// DSN redaction (libpq's parser, no server): a password never survives into text racelab prints.
#include <gtest/gtest.h>

#include "harness/pg/dsn.h"

namespace racelab {
namespace {

TEST(Dsn, RedactsUriPassword) {
  std::string r = RedactDsn("postgresql://alice:s3cret@db.example:5433/app?sslmode=disable");
  EXPECT_EQ(r.find("s3cret"), std::string::npos) << r;
  EXPECT_NE(r.find("user=alice"), std::string::npos) << r;
  EXPECT_NE(r.find("password=***"), std::string::npos) << r;
  EXPECT_NE(r.find("port=5433"), std::string::npos) << r;
}

TEST(Dsn, RedactsKeyValuePassword) {
  std::string r = RedactDsn("host=/tmp dbname=app password='pa ss'");
  EXPECT_EQ(r.find("pa ss"), std::string::npos) << r;
  EXPECT_NE(r.find("host=/tmp"), std::string::npos) << r;
}

TEST(Dsn, UnparseableDsnIsNeverEchoed) {
  EXPECT_EQ(RedactDsn("host=x password=s3cret nonsense"), "<unparseable DSN>");
  Status s = ValidateDsn("host=x password=s3cret bogus_key=1");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kUsage);
  EXPECT_EQ(s.message().find("s3cret"), std::string::npos) << s.message();
  EXPECT_TRUE(ValidateDsn("postgresql://u@localhost/db").ok());
}

TEST(Dsn, RedactsPasswordInFreeText) {
  std::string dsn = "postgresql://u:hunter2@127.0.0.1:1/db";
  EXPECT_EQ(RedactPasswordIn("racelab run --dsn postgresql://u:hunter2@127.0.0.1:1/db", dsn),
            "racelab run --dsn postgresql://u:***@127.0.0.1:1/db");
  EXPECT_EQ(RedactPasswordIn("x postgresql://u:pw@h/db y", "postgresql://u:pw@h/db?bogus=1&&"),
            "x postgresql://u:***@h/db y");
}

}  // namespace
}  // namespace racelab
