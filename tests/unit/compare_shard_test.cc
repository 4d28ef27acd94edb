// run --shard K/N and merge's plan order (harness/compare/shard.h).
#include <gtest/gtest.h>

#include <set>

#include "harness/compare/shard.h"

namespace racelab::compare {
namespace {

TEST(ShardTest, ParsesKOfN) {
  auto s = ParseShard("2/4");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->k, 2u);
  EXPECT_EQ(s->n, 4u);
  for (const char* bad : {"0/4", "5/4", "2", "2/0", "a/b", "2/4x", "-1/4", "", "/", "1/1001"}) {
    auto r = ParseShard(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--shard"), std::string::npos);
  }
}

TEST(ShardTest, EveryResultInExactlyOneShardAndSizesDifferByAtMostOne) {
  for (size_t n = 1; n <= 7; ++n) {
    std::vector<size_t> sizes(n);
    for (size_t i = 0; i < 23; ++i) {
      int owners = 0;
      for (size_t k = 1; k <= n; ++k) {
        if (InShard(i, Shard{k, n})) {
          ++owners;
          ++sizes[k - 1];
        }
      }
      EXPECT_EQ(owners, 1) << i << " of " << n;
    }
    EXPECT_LE(*std::max_element(sizes.begin(), sizes.end()) -
                  *std::min_element(sizes.begin(), sizes.end()),
              1u);
  }
}

TEST(ShardTest, ShardOfCommand) {
  EXPECT_EQ(ShardOfCommand("racelab run --shard 3/5 --trials 20")->k, 3u);
  EXPECT_EQ(ShardOfCommand("racelab run --shard=1/2")->n, 2u);
  EXPECT_FALSE(ShardOfCommand("racelab run --trials 20").has_value());
}

}  // namespace
}  // namespace racelab::compare
