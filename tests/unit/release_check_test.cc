// JudgeReleases (harness/run/release_check.h): which barrier releases a report marks not
// simultaneous.
#include "harness/run/release_check.h"

#include <gtest/gtest.h>

namespace racelab {
namespace {

TEST(ReleaseCheck, MoreParticipantsThanCpusIsNeverSimultaneous) {
  std::vector<BarrierRelease> r = {BarrierRelease{"go", 1, 100, 3}};
  JudgeReleases(&r, {{"go", 3}}, 2);
  EXPECT_FALSE(r[0].simultaneous);
  EXPECT_EQ(r[0].not_simultaneous, "3 participants on 2 online CPUs");
}

TEST(ReleaseCheck, SkewAboveTheThresholdIsNotSimultaneous) {
  std::vector<BarrierRelease> r = {BarrierRelease{"go", 1, 100, kSimultaneousSkewUs},
                                   BarrierRelease{"go", 2, 900, kSimultaneousSkewUs + 1}};
  JudgeReleases(&r, {{"go", 2}}, 2);
  EXPECT_TRUE(r[0].simultaneous);
  EXPECT_EQ(r[0].not_simultaneous, "");
  EXPECT_FALSE(r[1].simultaneous);
  EXPECT_EQ(r[1].not_simultaneous, "skew 101 µs > 100 µs");
}

TEST(ReleaseCheck, BothReasonsAreNamed) {
  std::vector<BarrierRelease> r = {BarrierRelease{"go", 1, 100, 2500}};
  JudgeReleases(&r, {{"go", 8}}, 2);
  EXPECT_EQ(r[0].not_simultaneous, "8 participants on 2 online CPUs; skew 2500 µs > 100 µs");
}

}  // namespace
}  // namespace racelab
