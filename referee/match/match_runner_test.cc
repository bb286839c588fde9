// ForfeitResult (match_runner.h): the forfeiter last, the others in the
// game's own order.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/match/match_runner.h"

namespace arena {
namespace {

using ::testing::ElementsAre;

// A state that only answers Result(), for the forfeit ranking.
class RankedState : public State {
 public:
  RankedState(std::vector<double> scores, std::vector<int> placements) {
    for (double s : scores) result_.add_scores(s);
    for (int p : placements) result_.add_placements(p);
  }
  bool IsTerminal() const override { return false; }
  const std::vector<int>& ActingSeats() const override { return acting_; }
  int NumLegalActions(int) const override { return 1; }
  void FillLegalActions(int, google::protobuf::RepeatedPtrField<v1::Action>*) const override {}
  std::string ActionLabel(int, int) const override { return ""; }
  void FillView(int, v1::View*) const override {}
  void Apply(absl::Span<const int>) override {}
  v1::MatchResult Result() const override { return result_; }
  void FillRules(v1::Rules*) const override {}

 private:
  v1::MatchResult result_;
  std::vector<int> acting_{0};
};

TEST(Forfeit, TheForfeiterIsLastAndTheOthersKeepTheGamesOwnOrder) {
  // Scores tie for seats 1 and 2, but the game's tie-break (say, fewer
  // cards) ranked seat 2 above seat 1: that order must survive the forfeit.
  RankedState s({1, 1, 1, 0}, {1, 3, 2, 4});
  v1::MatchResult r = ForfeitResult(s, 0, "seat 0 timed out");
  EXPECT_THAT(r.placements(), ElementsAre(4, 2, 1, 3));
  EXPECT_EQ(r.end_reason(), v1::END_REASON_FORFEIT);
  EXPECT_EQ(r.forfeit_seat(), 0);
  EXPECT_EQ(r.detail(), "seat 0 timed out");
  // Ties among the others stay ties.
  RankedState t({0, 2, 2, 5}, {1, 2, 2, 4});
  EXPECT_THAT(ForfeitResult(t, 3, "x").placements(), ElementsAre(1, 2, 2, 4));
  EXPECT_THAT(ForfeitResult(t, 1, "x").placements(), ElementsAre(1, 4, 2, 3));
}

}  // namespace
}  // namespace arena
