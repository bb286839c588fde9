// --epsilon of the C++ SDK's bots (bots/sdk/epsilon.h): the range it takes,
// epsilon 0 is the policy alone, 1 a uniform random legal action that never
// asks the policy, in between about that share of random decisions, and
// every draw fixed by the match and decision ids.
#include "bots/sdk/epsilon.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace arena::bots {
namespace {

v1::DecisionRequest Request(const std::string& match_id, uint64_t decision_id,
                            int legal_actions) {
  v1::DecisionRequest r;
  r.set_match_id(match_id);
  r.set_decision_id(decision_id);
  for (int i = 0; i < legal_actions; ++i) r.add_legal_actions();
  return r;
}

// A policy that always plays the last legal action and counts its calls.
struct CountingPolicy {
  int calls = 0;
  Policy policy() {
    return [this](const v1::MatchStart&, const v1::DecisionRequest& r) {
      ++calls;
      return r.legal_actions_size() - 1;
    };
  }
};

TEST(Epsilon, RangeIsZeroToOne) {
  for (double ok : {0.0, 0.25, 0.5, 1.0}) {
    EXPECT_TRUE(CheckEpsilon(ok).ok()) << ok;
  }
  for (double bad : {-0.01, 1.0001, 2.0, -std::numeric_limits<double>::infinity(),
                     std::numeric_limits<double>::infinity(),
                     std::numeric_limits<double>::quiet_NaN()}) {
    const absl::Status s = CheckEpsilon(bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("--epsilon must be in [0, 1]"), std::string::npos)
        << s.message();
  }
}

TEST(Epsilon, ZeroIsThePolicyAlone) {
  CountingPolicy p;
  const Policy policy = p.policy();
  const Policy wrapped = WithEpsilon(0, policy);
  for (uint64_t d = 1; d <= 2000; ++d) {
    const v1::DecisionRequest r = Request("m-1", d, 7);
    EXPECT_EQ(ChooseWithEpsilon(0, policy, {}, r), 6);
    EXPECT_EQ(wrapped({}, r), 6);
  }
  EXPECT_EQ(p.calls, 4000);
}

TEST(Epsilon, OneIsUniformAndNeverAsksThePolicy) {
  CountingPolicy p;
  const Policy wrapped = WithEpsilon(1, p.policy());
  constexpr int kActions = 7, kPerAction = 2000;
  std::vector<int> counts(kActions, 0);
  for (uint64_t d = 1; d <= kActions * kPerAction; ++d) {
    const int a = wrapped({}, Request("quasenbo-abc-000017", d, kActions));
    ASSERT_GE(a, 0);
    ASSERT_LT(a, kActions);
    ++counts[a];
  }
  EXPECT_EQ(p.calls, 0);
  // Binomial(14000, 1/7): sd 41; 5 sd either way.
  for (int a = 0; a < kActions; ++a) {
    EXPECT_NEAR(counts[a], kPerAction, 205) << "action " << a;
  }
}

TEST(Epsilon, InBetweenThatShareIsRandom) {
  for (double epsilon : {0.1, 0.5, 0.9}) {
    CountingPolicy p;
    const Policy policy = p.policy();
    constexpr int kDecisions = 20000;
    for (int i = 0; i < kDecisions; ++i) {
      ChooseWithEpsilon(epsilon, policy, {},
                        Request("m-" + std::to_string(i % 97), i, 5));
    }
    // The policy is asked for the share 1 - epsilon (sd at most 0.0036).
    EXPECT_NEAR(static_cast<double>(p.calls) / kDecisions, 1 - epsilon, 0.02)
        << "epsilon " << epsilon;
  }
}

TEST(Epsilon, DrawsAreFixedByMatchAndDecisionIds) {
  CountingPolicy p;
  const Policy policy = p.policy();
  std::vector<int> first, again, other_match;
  for (uint64_t d = 1; d <= 200; ++d) {
    first.push_back(ChooseWithEpsilon(0.5, policy, {}, Request("m-1", d, 9)));
    other_match.push_back(ChooseWithEpsilon(0.5, policy, {}, Request("m-2", d, 9)));
  }
  for (uint64_t d = 1; d <= 200; ++d) {
    again.push_back(ChooseWithEpsilon(0.5, policy, {}, Request("m-1", d, 9)));
  }
  EXPECT_EQ(first, again);
  EXPECT_NE(first, other_match);
  EXPECT_NE(EpsilonSeed(Request("m-1", 1, 9)), EpsilonSeed(Request("m-1", 2, 9)));
  EXPECT_NE(EpsilonSeed(Request("m-1", 1, 9)), EpsilonSeed(Request("m-2", 1, 9)));
}

TEST(Epsilon, NoLegalActionsLeavesItToThePolicy) {
  CountingPolicy p;
  EXPECT_EQ(ChooseWithEpsilon(1, p.policy(), {}, Request("m-1", 1, 0)), -1);
  EXPECT_EQ(p.calls, 1);
}

}  // namespace
}  // namespace arena::bots
