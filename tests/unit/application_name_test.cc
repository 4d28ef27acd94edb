// application_name (harness/engines/postgresql/application_name.h): every label a connection sends
// is at most 63 bytes (NAMEDATALEN - 1) of printable ASCII, so no scenario or spec name can make
// the start-up packet too large for the server (issue 20 item 15).
#include "harness/engines/postgresql/application_name.h"

#include <gtest/gtest.h>

#include <string>

namespace racelab::pg {
namespace {

TEST(ApplicationName, IsCutToSixtyThreeBytesOfPrintableAscii) {
  EXPECT_EQ(ApplicationName("racelab:worker.1"), "racelab:worker.1");
  EXPECT_EQ(ApplicationName(std::string(12000, 'n')), std::string(63, 'n'));
  EXPECT_EQ(ApplicationName("isolation/t/" + std::string(100, 'a')).size(), 63u);
  EXPECT_EQ(ApplicationName("a\x1b]0;t\a b\nc"), "a?]0;t? b?c");
  EXPECT_EQ(ApplicationName("caf\xc3\xa9"), "caf??");  // PostgreSQL would replace these bytes too
  EXPECT_EQ(ApplicationName(""), "");
}

}  // namespace
}  // namespace racelab::pg
