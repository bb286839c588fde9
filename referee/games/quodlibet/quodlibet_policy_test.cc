// The heuristic Quodlibet policy against uniform random players, in process:
// whole parties (4 kingdoms, 48 deals), the policy at one seat (rotating)
// and random players at the other three, under both rulesets. A random seat
// wins a quarter of the parties.
#include <cstdio>
#include <memory>

#include "gtest/gtest.h"
#include "referee/games/quodlibet/policy.h"
#include "referee/games/quodlibet/quodlibet.h"
#include "tests/policy_vs_random.h"

namespace arena {
namespace bots {
namespace {

TEST(QuodlibetPolicy, BeatsRandomOverWholeParties) {
  for (const char* ruleset : {"badenia", "encyclopedia"}) {
    std::printf("ruleset %s:\n", ruleset);
    const testing::PolicyTally t = testing::PlayPolicyAgainstRandom(
        quodlibet::CreateQuodlibet({{"ruleset", ruleset}}, 4),
        ChooseQuodlibetAction, 200, 20240607);
    EXPECT_EQ(t.matches, 200);
    EXPECT_EQ(t.capped, 0) << ruleset;     // every partie played to its end
    EXPECT_GT(t.rate(), 0.75) << ruleset;  // random: 25%
    EXPECT_GT(t.mean_margin(), 400) << ruleset;
  }
}

}  // namespace
}  // namespace bots
}  // namespace arena
