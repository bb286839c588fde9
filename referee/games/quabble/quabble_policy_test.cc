// The heuristic Quabble policy against uniform random players, in process:
// the engine directly, requests built as the referee builds them, fixed
// seeds, the policy's seat rotating. A match counts as a win when the policy
// is placed first (shared first places count as a share).
#include <memory>

#include "gtest/gtest.h"
#include "referee/games/quabble/policy.h"
#include "referee/games/quabble/quabble.h"
#include "tests/policy_vs_random.h"

namespace arena {
namespace bots {
namespace {

using testing::PolicyTally;

PolicyTally PlayMatches(int seats, int matches, uint64_t seed) {
  const PolicyTally t = testing::PlayPolicyAgainstRandom(
      quabble::CreateQuabble({}, seats), ChooseQuabbleAction, matches, seed);
  EXPECT_EQ(t.capped, 0);  // every match played to its end
  return t;
}

TEST(QuabblePolicy, BeatsRandomHeadsUp) {
  const PolicyTally t = PlayMatches(2, 2000, 20240601);
  EXPECT_GT(t.rate(), 0.90);  // measured 96.7%; 50% would be a coin toss
}

TEST(QuabblePolicy, BeatsRandomAtFourSeats) {
  const PolicyTally t = PlayMatches(4, 2000, 777);
  EXPECT_GT(t.rate(), 0.70);  // measured 82.3%; 25% would be chance
}

TEST(QuabblePolicy, BeatsRandomAtSixSeats) {
  const PolicyTally t = PlayMatches(6, 1200, 4242);
  EXPECT_GT(t.rate(), 0.55);  // measured 69.1%; 16.7% would be chance
}

}  // namespace
}  // namespace bots
}  // namespace arena
