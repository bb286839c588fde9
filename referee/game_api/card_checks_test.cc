// The checks of deck orders and positions given to the engines' test hooks:
// each bad card is refused with its id, and what is good passes unchanged.
#include "referee/game_api/card_checks.h"

#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/game_api/card_set.h"

namespace arena {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(CheckDeckOrder, APermutationIsTheOrderToDeal) {
  absl::StatusOr<std::vector<uint8_t>> order = CheckDeckOrder({2, 0, 3, 1}, 4);
  ASSERT_TRUE(order.ok()) << order.status();
  EXPECT_THAT(*order, ElementsAre(2, 0, 3, 1));
}

TEST(CheckDeckOrder, AWrongCountIsRefused) {
  absl::StatusOr<std::vector<uint8_t>> order = CheckDeckOrder({0, 1, 2}, 4);
  EXPECT_TRUE(absl::IsInvalidArgument(order.status()));
  EXPECT_EQ(order.status().message(), "deck order has 3 cards, want 4");
}

TEST(CheckDeckOrder, ARepeatedOrUnknownCardIsNamed) {
  EXPECT_EQ(CheckDeckOrder({0, 1, 1, 3}, 4).status().message(),
            "deck order: bad or repeated card 1");
  EXPECT_EQ(CheckDeckOrder({0, 1, 4, 3}, 4).status().message(),
            "deck order: bad or repeated card 4");
  EXPECT_EQ(CheckDeckOrder({0, -1, 2, 3}, 4).status().message(),
            "deck order: bad or repeated card -1");
}

TEST(PositionCards, TakesEachCardOnceAcrossPlaces) {
  PositionCards cards(10);
  uint64_t hand = 0;
  std::vector<uint8_t> pile;
  ASSERT_TRUE(cards.TakeInto({7, 2}, &hand).ok());
  ASSERT_TRUE(cards.TakeInto({5, 0}, &pile).ok());
  ASSERT_TRUE(cards.Take(9).ok());
  EXPECT_THAT(CardsOf(hand), ElementsAre(2, 7));
  EXPECT_THAT(pile, ElementsAre(5, 0));  // in the order given
  EXPECT_EQ(cards.count(), 5);
  // A card already in the hand, given again for the pile.
  absl::Status again = cards.TakeInto({3, 7}, &pile);
  EXPECT_TRUE(absl::IsInvalidArgument(again));
  EXPECT_EQ(again.message(), "position: bad or repeated card 7");
  EXPECT_EQ(cards.Take(10).message(), "position: bad or repeated card 10");
  EXPECT_EQ(cards.Take(-2).message(), "position: bad or repeated card -2");
}

TEST(PositionCards, ACardBeyondASetsWordIsRefused) {
  PositionCards cards(100);
  uint64_t hand = 0;
  EXPECT_EQ(cards.TakeInto({64}, &hand).message(),
            "position: bad or repeated card 64");
  EXPECT_EQ(hand, 0u);
}

TEST(PositionCards, TakesOneHandPerSeatNoneEmpty) {
  uint64_t hands[3] = {};
  PositionCards good(8);
  ASSERT_TRUE(good.TakeHands({{1, 0}, {4}, {6, 7}}, 3, hands).ok());
  EXPECT_THAT(CardsOf(hands[0]), ElementsAre(0, 1));
  EXPECT_THAT(CardsOf(hands[2]), ElementsAre(6, 7));

  PositionCards count(8);
  absl::Status s = count.TakeHands({{1}, {2}}, 3, hands);
  EXPECT_TRUE(absl::IsInvalidArgument(s));
  EXPECT_THAT(s.message(),
              HasSubstr("one hand per seat (2 hands for 3 seats)"));
  PositionCards empty(8);
  EXPECT_EQ(empty.TakeHands({{1}, {}, {2}}, 3, hands).message(),
            "position: seat 1 has an empty hand");
  PositionCards twice(8);
  EXPECT_EQ(twice.TakeHands({{1}, {2}, {1}}, 3, hands).message(),
            "position: bad or repeated card 1");
}

}  // namespace
}  // namespace arena
