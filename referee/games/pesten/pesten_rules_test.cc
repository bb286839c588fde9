// Pesten rules engine: one test per ruling (named after it), option checking,
// the visibility of events, and random playouts over every configuration.
// Expected values are worked out by hand from the card ids below (the id
// scheme is itself pinned by CatalogueOrderIsFixed).
#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/games/pesten/pesten.h"
#include "referee/game_api/rng.h"

namespace arena {
namespace pesten {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using Position = PestenState::Position;
using Move = PestenState::Move;

// Card ids: (suit - 1) * 13 + (rank - 2); Clubs 0..12, Diamonds 13..25,
// Hearts 26..38, Spades 39..51, Jokers 52...
constexpr int k2C = 0, k3C = 1, k4C = 2, k5C = 3, k7C = 5, k8C = 6, k9C = 7,
              k10C = 8, kJC = 9, kQC = 10, kKC = 11;
constexpr int k2D = 13, k3D = 14, k4D = 15, k5D = 16, k7D = 18, k8D = 19, k9D = 20,
              k10D = 21, kJD = 22, kQD = 23, kKD = 24, kAD = 25;
constexpr int k2H = 26, k3H = 27, k4H = 28, k5H = 29, k7H = 31, k8H = 32,
              k9H = 33, k10H = 34, kJH = 35, kQH = 36, kKH = 37, kAH = 38;
constexpr int k2S = 39, k3S = 40, k5S = 42, k8S = 45, k9S = 46, kJS = 48,
              kQS = 49, kKS = 50, kAS = 51;
constexpr int kJoker1 = 52, kJoker2 = 53;

constexpr int kClubs = v1::PESTEN_SUIT_CLUBS;
constexpr int kDiamonds = v1::PESTEN_SUIT_DIAMONDS;
constexpr int kHearts = v1::PESTEN_SUIT_HEARTS;
constexpr int kSpades = v1::PESTEN_SUIT_SPADES;

constexpr int kPlay = v1::PESTEN_ACTION_KIND_PLAY;
constexpr int kDraw = v1::PESTEN_ACTION_KIND_DRAW;
constexpr int kTake = v1::PESTEN_ACTION_KIND_TAKE_OBLIGATION;
constexpr int kWish = v1::PESTEN_ACTION_KIND_WISH;
constexpr int kPass = v1::PESTEN_ACTION_KIND_PASS_CARD;

std::unique_ptr<PestenGame> MakeGame(int seats, const Options& options = {}) {
  absl::StatusOr<std::unique_ptr<PestenGame>> game =
      PestenGame::Create(options, seats);
  EXPECT_TRUE(game.ok()) << game.status();
  return game.ok() ? std::move(*game) : nullptr;
}

std::unique_ptr<PestenState> At(const PestenGame& game, const Position& p,
                                uint64_t seed = 1) {
  auto state = PestenState::FromPositionForTest(game, p, seed);
  EXPECT_TRUE(state.ok()) << state.status();
  return state.ok() ? std::move(*state) : nullptr;
}

// A first round dealt from ids 0..N-1 in order, except that `start` is
// swapped into the start-card position (5 * seats).
std::unique_ptr<PestenState> WithStartCard(const PestenGame& game, int start) {
  std::vector<int> order(game.num_cards());
  std::iota(order.begin(), order.end(), 0);
  std::swap(order[5 * game.num_seats()], order[start]);
  auto state = PestenState::FromDeckOrderForTest(game, order, 7);
  EXPECT_TRUE(state.ok()) << state.status();
  return state.ok() ? std::move(*state) : nullptr;
}

Move Play(int card, int wish = 0, bool announce = false) {
  Move m;
  m.kind = kPlay;
  m.card = card;
  m.wish = wish;
  m.announce = announce;
  return m;
}
Move Kind(int kind, int wish = 0) {
  Move m;
  m.kind = kind;
  m.wish = wish;
  return m;
}

// The legal actions of `seat` as labels, in order.
std::vector<std::string> Labels(const PestenState& s, int seat) {
  std::vector<std::string> out;
  for (int a = 0; a < s.NumLegalActions(seat); ++a) {
    out.push_back(s.ActionLabel(seat, a));
  }
  return out;
}

// Applies `m` for the single acting seat; fails the test if it is illegal.
void Do(PestenState& s, const Move& m) {
  ASSERT_EQ(s.ActingSeats().size(), 1u);
  const int a = s.FindMove(s.ActingSeats()[0], m);
  ASSERT_GE(a, 0) << "not legal: kind " << m.kind << " card " << m.card;
  s.Apply({a});
}

// The events logged from index `from` on, of one kind.
std::vector<v1::PestenEvent> EventsOf(const PestenState& s, size_t from,
                                      v1::PestenEvent::KindCase kind) {
  std::vector<v1::PestenEvent> out;
  for (size_t i = from; i < s.events().size(); ++i) {
    if (s.events()[i].event.pesten().kind_case() == kind) {
      out.push_back(s.events()[i].event.pesten());
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Options

TEST(PestenOptions, JokersOutsideZeroToFourAreRefused) {
  for (const char* bad : {"5", "-1", "two"}) {
    auto game = CreatePesten({{"jokers", bad}}, 4);
    ASSERT_FALSE(game.ok()) << bad;
    EXPECT_THAT(std::string(game.status().message()),
                HasSubstr("jokers=" + std::string(bad)));
    EXPECT_THAT(std::string(game.status().message()), HasSubstr("0 to 4"));
  }
  for (const char* good : {"0", "4"}) {
    EXPECT_TRUE(CreatePesten({{"jokers", good}}, 4).ok()) << good;
  }
}

TEST(PestenOptions, WinningPointsBelowOneAreRefused) {
  auto game = CreatePesten({{"winning_points", "0"}}, 3);
  ASSERT_FALSE(game.ok());
  EXPECT_THAT(std::string(game.status().message()),
              HasSubstr("winning_points=0"));
  EXPECT_TRUE(CreatePesten({{"winning_points", "1"}}, 3).ok());
}

TEST(PestenOptions, SeatsOutsideTwoToSixAreRefused) {
  for (int seats : {0, 1, 7}) {
    auto game = CreatePesten({}, seats);
    ASSERT_FALSE(game.ok()) << seats;
    EXPECT_THAT(std::string(game.status().message()),
                HasSubstr("2 to 6"));
  }
  for (int seats = 2; seats <= 6; ++seats) {
    EXPECT_TRUE(CreatePesten({}, seats).ok()) << seats;
  }
}

TEST(PestenOptions, UnknownOptionIsRefused) {
  auto game = CreatePesten({{"joker", "2"}}, 4);
  ASSERT_FALSE(game.ok());
  EXPECT_THAT(std::string(game.status().message()), HasSubstr("joker"));
}

TEST(PestenOptions, GameInfo) {
  const GameInfo& info = PestenInfo();
  EXPECT_EQ(info.name, "pesten");
  EXPECT_EQ(info.min_seats, 2);
  EXPECT_EQ(info.max_seats, 6);
  EXPECT_EQ(info.default_seats, 4);
  EXPECT_TRUE(info.higher_score_wins);
  EXPECT_EQ(info.options.count("jokers"), 1u);
  EXPECT_EQ(info.options.count("winning_points"), 1u);
}

TEST(PestenOptions, CatalogueOrderIsFixed) {
  auto game = MakeGame(4);
  v1::PestenRules rules;
  game->FillRules(&rules);
  ASSERT_EQ(rules.catalogue_size(), 54);
  EXPECT_EQ(rules.catalogue(k2C).name(), "2 of Clubs");
  EXPECT_EQ(rules.catalogue(kQC).name(), "Queen of Clubs");
  EXPECT_EQ(rules.catalogue(kAD).name(), "Ace of Diamonds");
  EXPECT_EQ(rules.catalogue(k10H).name(), "10 of Hearts");
  EXPECT_EQ(rules.catalogue(kJS).name(), "Jack of Spades");
  EXPECT_EQ(rules.catalogue(kAS).name(), "Ace of Spades");
  EXPECT_EQ(rules.catalogue(kJoker1).name(), "Joker 1");
  EXPECT_EQ(rules.catalogue(kJoker2).rank(), v1::PESTEN_RANK_JOKER);
  EXPECT_EQ(rules.catalogue(kJoker2).suit(), v1::PESTEN_SUIT_UNSPECIFIED);
  EXPECT_EQ(rules.catalogue(kKH).rank(), v1::PESTEN_RANK_KING);
  EXPECT_EQ(rules.catalogue(kKH).suit(), v1::PESTEN_SUIT_HEARTS);
  // Special: 2, 7, 8, 10, J, K, A, Joker; plain: 3..6, 9, Q.
  for (int c : {k2C, k7D, k8H, k10C, kJS, kKD, kAH, kJoker1}) {
    EXPECT_TRUE(rules.catalogue(c).special()) << c;
  }
  for (int c : {k3C, k4D, k5H, k9S, kQC}) {
    EXPECT_FALSE(rules.catalogue(c).special()) << c;
  }
  EXPECT_EQ(rules.hand_size(), 5);
  EXPECT_EQ(rules.winning_points(), 2);
  EXPECT_EQ(rules.joker_draw(), 5);
  auto none = MakeGame(2, {{"jokers", "0"}});
  none->FillRules(&rules);
  EXPECT_EQ(rules.catalogue_size(), 52);
}

// ---------------------------------------------------------------------------
// Deal and start card

TEST(PestenSetUp, TestHooksRefuseABadDeckOrPositionSayingWhy) {
  auto game = MakeGame(2);
  std::vector<int> deck(game->num_cards());
  std::iota(deck.begin(), deck.end(), 0);
  deck.back() = k2C;  // twice, and the last card missing
  EXPECT_EQ(
      PestenState::FromDeckOrderForTest(*game, deck, 1).status().message(),
      "deck order: bad or repeated card 0");
  Position p;
  p.hands = {{k2C, k3C}, {k3C}};
  p.pile = {k4C};
  EXPECT_EQ(PestenState::FromPositionForTest(*game, p, 1).status().message(),
            "position: bad or repeated card 1");
  p.hands = {{k2C}, {}};
  EXPECT_EQ(PestenState::FromPositionForTest(*game, p, 1).status().message(),
            "position: seat 1 has an empty hand");
  p.hands = {{k2C}, {k3C}};
  p.wish = kHearts;
  EXPECT_EQ(PestenState::FromPositionForTest(*game, p, 1).status().message(),
            "position: a wish needs a Jack on top");
}

TEST(PestenRulings, DealIsFiveEachFromTheSeatLeftOfTheDealer) {
  auto game = MakeGame(4);
  auto s = WithStartCard(*game, k9D);  // 9D is at position 20 already
  // Cards 0..19 go round from seat 1; card 20 (9 of Diamonds) starts.
  EXPECT_THAT(s->Hand(1), ElementsAre(0, 4, 8, 12, 16));
  EXPECT_THAT(s->Hand(2), ElementsAre(1, 5, 9, 13, 17));
  EXPECT_THAT(s->Hand(3), ElementsAre(2, 6, 10, 14, 18));
  EXPECT_THAT(s->Hand(0), ElementsAre(3, 7, 11, 15, 19));
  EXPECT_EQ(s->top_card(), k9D);
  EXPECT_EQ(s->deck_size(), 54 - 21);
  // A plain start card: the seat after the dealer (seat 0) moves first.
  EXPECT_EQ(s->dealer(), 0);
  EXPECT_THAT(s->ActingSeats(), ElementsAre(1));
  EXPECT_EQ(s->phase(), v1::PESTEN_PHASE_PLAY);
}

TEST(PestenRulings, StartCardJackLetsTheDealerWishFirst) {
  auto game = MakeGame(4);
  // JD swapped with position 20: seat 1 holds 2C 6C 10C AC 5D.
  auto s = WithStartCard(*game, kJD);
  EXPECT_EQ(s->phase(), v1::PESTEN_PHASE_WISH);
  EXPECT_THAT(s->ActingSeats(), ElementsAre(0));
  EXPECT_THAT(Labels(*s, 0), ElementsAre("wish Clubs", "wish Diamonds",
                                         "wish Hearts", "wish Spades"));
  Do(*s, Kind(kWish, kClubs));
  EXPECT_EQ(s->wish(), kClubs);
  EXPECT_THAT(s->ActingSeats(), ElementsAre(1));
  // Clubs must follow: 2C, 6C, 10C, AC; not the 5 of Diamonds (on a JD).
  EXPECT_THAT(Labels(*s, 1),
              ElementsAre("play 2 of Clubs", "play 6 of Clubs",
                          "play 10 of Clubs", "play Ace of Clubs",
                          "draw a card"));
}

TEST(PestenRulings, StartCardSevenGivesTheDealerATurnAtOnce) {
  auto game = MakeGame(4);
  // 7D from position 18 (seat 3 gets 9D instead); dealer 0: 5C 9C KC 4D 8D.
  auto s = WithStartCard(*game, k7D);
  EXPECT_EQ(s->phase(), v1::PESTEN_PHASE_FOLLOW_UP);
  EXPECT_THAT(s->ActingSeats(), ElementsAre(0));
  EXPECT_THAT(Labels(*s, 0), ElementsAre("play 4 of Diamonds",
                                         "play 8 of Diamonds", "draw a card"));
  Do(*s, Kind(kDraw));
  EXPECT_EQ(s->HandSize(0), 6);
  EXPECT_THAT(s->ActingSeats(), ElementsAre(1));
}

TEST(PestenRulings, StartCardKingGivesTheDealerATurnAtOnce) {
  auto game = MakeGame(4);
  // KD from position 24 (not dealt); dealer 0: 5C 9C KC 4D 8D.
  auto s = WithStartCard(*game, kKD);
  EXPECT_EQ(s->phase(), v1::PESTEN_PHASE_FOLLOW_UP);
  EXPECT_THAT(s->ActingSeats(), ElementsAre(0));
  EXPECT_THAT(Labels(*s, 0),
              ElementsAre("play King of Clubs", "play 4 of Diamonds",
                          "play 8 of Diamonds", "draw a card"));
}

TEST(PestenRulings, StartCardTenMakesEveryonePassACard) {
  auto game = MakeGame(4);
  auto s = WithStartCard(*game, k10D);
  EXPECT_EQ(s->phase(), v1::PESTEN_PHASE_PASS);
  EXPECT_THAT(s->ActingSeats(), ElementsAre(0, 1, 2, 3));
  EXPECT_EQ(s->NumLegalActions(0), 5);
  // Everyone passes its first (lowest) card: 3, 0, 1, 2.
  s->Apply({0, 0, 0, 0});
  EXPECT_THAT(s->Hand(1), ElementsAre(3, 4, 8, 12, 16));   // got 5C from 0
  EXPECT_THAT(s->Hand(2), ElementsAre(0, 5, 9, 13, 17));   // got 2C from 1
  EXPECT_THAT(s->Hand(3), ElementsAre(1, 6, 10, 14, 18));  // got 3C from 2
  EXPECT_THAT(s->Hand(0), ElementsAre(2, 7, 11, 15, 19));  // got 4C from 3
  EXPECT_THAT(s->ActingSeats(), ElementsAre(1));
}

TEST(PestenRulings, StartCardAceReversesBeforePlayStarts) {
  auto game = MakeGame(4);
  auto s = WithStartCard(*game, kAD);
  EXPECT_EQ(s->direction(), -1);
  EXPECT_THAT(s->ActingSeats(), ElementsAre(3));  // right of the dealer
}

TEST(PestenRulings, StartCardTwoObligesTheFirstPlayer) {
  auto game = MakeGame(4);
  // 2D from position 13 (seat 2 gets 9D); seat 1: 2C 6C 10C AC 5D.
  auto s = WithStartCard(*game, k2D);
  EXPECT_EQ(s->obligation(), 2);
  EXPECT_THAT(s->ActingSeats(), ElementsAre(1));
  EXPECT_THAT(Labels(*s, 1), ElementsAre("play 2 of Clubs",
                                         "take the obligation (2 cards)"));
}

TEST(PestenRulings, StartCardJokerObligesTheFirstPlayerToFive) {
  auto game = MakeGame(4);
  auto s = WithStartCard(*game, kJoker1);
  EXPECT_EQ(s->obligation(), 5);
  EXPECT_THAT(s->ActingSeats(), ElementsAre(1));
  Do(*s, Kind(kTake));
  EXPECT_EQ(s->HandSize(1), 10);
  EXPECT_EQ(s->obligation(), 0);
  EXPECT_THAT(s->ActingSeats(), ElementsAre(2));
  // The Joker's obligation is settled: seat 2 may play any card of
  // 3C 7C JC 2D 6D (the Jack four times, once per wish), or draw.
  EXPECT_EQ(s->NumLegalActions(2), 9);
}

TEST(PestenRulings, StartCardEightSkipsTheFirstPlayer) {
  auto game = MakeGame(4);
  auto s = WithStartCard(*game, k8D);
  const auto skips = EventsOf(*s, 0, v1::PestenEvent::kSkipped);
  ASSERT_EQ(skips.size(), 1u);
  EXPECT_EQ(skips[0].skipped().seat(), 1);
  EXPECT_THAT(s->ActingSeats(), ElementsAre(2));
}

// ---------------------------------------------------------------------------
// Playing

TEST(PestenRulings, CardMustShareSuitOrRankJackAndJokerGoOnAnything) {
  auto game = MakeGame(3);
  Position p;
  p.hands = {{k4C, k9H, kQS, kJD, kJoker1, k2S}, {k3D}, {k5C}};
  p.pile = {k9C};
  p.deck = {k3H};
  auto s = At(*game, p);
  EXPECT_THAT(Labels(*s, 0),
              ElementsAre("play 4 of Clubs", "play Jack of Diamonds, wish Clubs",
                          "play Jack of Diamonds, wish Diamonds",
                          "play Jack of Diamonds, wish Hearts",
                          "play Jack of Diamonds, wish Spades",
                          "play 9 of Hearts", "play Joker 1", "draw a card"));
}

TEST(PestenRulings, DrawingIsAlwaysAllowedAndEndsTheTurn) {
  auto game = MakeGame(3);
  Position p;
  p.hands = {{k4C, k5C}, {k3D}, {k5H}};
  p.pile = {k9C};
  p.deck = {kQD, k3H};
  auto s = At(*game, p);
  Do(*s, Kind(kDraw));
  EXPECT_THAT(s->Hand(0), ElementsAre(k4C, k5C, kQD));
  EXPECT_THAT(s->ActingSeats(), ElementsAre(1));
}

TEST(PestenRulings, JackWishMustBeFollowedUntilACardIsPlayedOnIt) {
  auto game = MakeGame(3);
  Position p;
  p.hands = {{kJC, k3C, k3D}, {k9C, k3H, kJS}, {k5H, k4D, kQD}};
  p.pile = {k9D};
  p.deck = {kQH, kQC};
  auto s = At(*game, p);
  Do(*s, Play(kJC, kHearts));
  EXPECT_EQ(s->wish(), kHearts);
  // Seat 1: Hearts or a Jack; not the 9 of Clubs though it matches the Jack's suit.
  EXPECT_THAT(Labels(*s, 1),
              ElementsAre("play 3 of Hearts", "play Jack of Spades, wish Clubs",
                          "play Jack of Spades, wish Diamonds",
                          "play Jack of Spades, wish Hearts",
                          "play Jack of Spades, wish Spades", "draw a card"));
  Do(*s, Kind(kDraw));  // the wish stays in force
  EXPECT_EQ(s->wish(), kHearts);
  EXPECT_THAT(Labels(*s, 2), ElementsAre("play 5 of Hearts", "draw a card"));
  Do(*s, Play(k5H));
  EXPECT_EQ(s->wish(), 0);
}

TEST(PestenRulings, JackOnJackWishesANewSuit) {
  auto game = MakeGame(2);
  Position p;
  p.hands = {{k3C, k4C, k5C}, {kJS, k3D, k4D}};
  p.pile = {kJH};
  p.wish = kClubs;
  p.current_seat = 1;
  p.deck = {kQH};
  auto s = At(*game, p);
  Do(*s, Play(kJS, kDiamonds));
  EXPECT_EQ(s->wish(), kDiamonds);
  EXPECT_THAT(Labels(*s, 0), ElementsAre("draw a card"));
}

TEST(PestenRulings, TwoOnAJokerIsAllowed) {
  auto game = MakeGame(3);
  Position p;
  p.hands = {{k3D, k4D}, {k2H, k5C, kQS}, {k3S, k4H}};
  p.pile = {k9C, kJoker1};
  p.obligation = 5;
  p.current_seat = 1;
  p.deck = {kQH, kQC};
  auto s = At(*game, p);
  // Under an obligation only a 2 or a Joker, or taking the sum.
  EXPECT_THAT(Labels(*s, 1), ElementsAre("play 2 of Hearts",
                                         "take the obligation (5 cards)"));
  Do(*s, Play(k2H));
  EXPECT_EQ(s->obligation(), 7);
  EXPECT_THAT(s->ActingSeats(), ElementsAre(2));
  EXPECT_THAT(Labels(*s, 2), ElementsAre("take the obligation (7 cards)"));
}

TEST(PestenRulings, JokerOnATwoStacksButAJackDoesNot) {
  auto game = MakeGame(3);
  Position p;
  p.hands = {{kJH, kJoker2, k4C}, {k3S}, {k3D}};
  p.pile = {k2C};
  p.obligation = 2;
  auto s = At(*game, p);
  EXPECT_THAT(Labels(*s, 0), ElementsAre("play Joker 2",
                                         "take the obligation (2 cards)"));
  Do(*s, Play(kJoker2));
  EXPECT_EQ(s->obligation(), 7);
}

TEST(PestenRulings, TakingTheObligationDrawsTheSumAndEndsTheTurn) {
  auto game = MakeGame(3);
  Position p;
  p.hands = {{k3D}, {k5C, kQS}, {k3S}};
  p.pile = {k2C, k2H};
  p.obligation = 4;
  p.current_seat = 1;
  p.deck = {kQH, kQC, k3H, k4H, k5H};
  auto s = At(*game, p);
  Do(*s, Kind(kTake));
  EXPECT_THAT(s->Hand(1), ElementsAre(k5C, kQC, k3H, k4H, kQH, kQS));
  EXPECT_EQ(s->obligation(), 0);
  EXPECT_THAT(s->ActingSeats(), ElementsAre(2));
  // The 2 of Hearts on top now asks for Hearts or a 2 again.
  EXPECT_THAT(Labels(*s, 2), ElementsAre("draw a card"));
}

TEST(PestenRulings, SkipThatCannotBePassedOn) {
  auto game = MakeGame(3);
  Position p;
  p.hands = {{k8C, k4D, k5D}, {k8H, k8S, k3C}, {k9C, k4H}};
  p.pile = {k4C};
  p.deck = {kQH};
  auto s = At(*game, p);
  const size_t before = s->events().size();
  Do(*s, Play(k8C));
  // Seat 1 holds two 8s but gets no decision: skipped, seat 2 moves.
  const auto skips = EventsOf(*s, before, v1::PestenEvent::kSkipped);
  ASSERT_EQ(skips.size(), 1u);
  EXPECT_EQ(skips[0].skipped().seat(), 1);
  EXPECT_THAT(s->ActingSeats(), ElementsAre(2));
  EXPECT_EQ(s->HandSize(1), 3);
}

TEST(PestenRulings, SkipWithTwoSeatsGivesTheTurnBack) {
  auto game = MakeGame(2);
  Position p;
  p.hands = {{k8C, k4D, k5D}, {k3S, k3C}};
  p.pile = {k9C};
  p.deck = {kQH};
  auto s = At(*game, p);
  Do(*s, Play(k8C));
  EXPECT_THAT(s->ActingSeats(), ElementsAre(0));
  EXPECT_EQ(s->phase(), v1::PESTEN_PHASE_PLAY);
}

TEST(PestenRulings, SevenKingChain) {
  auto game = MakeGame(2);
  Position p;
  p.hands = {{k7H, kKH, kKS, k3S, k9D}, {k3C, k4C}};
  p.pile = {k4H};
  p.deck = {kQH};
  auto s = At(*game, p);
  Do(*s, Play(k7H));
  EXPECT_THAT(s->ActingSeats(), ElementsAre(0));
  EXPECT_EQ(s->phase(), v1::PESTEN_PHASE_FOLLOW_UP);
  EXPECT_THAT(Labels(*s, 0), ElementsAre("play King of Hearts", "draw a card"));
  Do(*s, Play(kKH));  // King on the 7 by suit: again
  EXPECT_THAT(s->ActingSeats(), ElementsAre(0));
  EXPECT_THAT(Labels(*s, 0), ElementsAre("play King of Spades", "draw a card"));
  Do(*s, Play(kKS));  // King on King by rank: again
  EXPECT_THAT(Labels(*s, 0),
              ElementsAre("play 3 of Spades", "play 3 of Spades, \"Pesten!\"",
                          "draw a card"));
  Do(*s, Play(k3S, 0, true));  // a plain card ends the chain
  EXPECT_THAT(s->ActingSeats(), ElementsAre(1));
  EXPECT_EQ(s->phase(), v1::PESTEN_PHASE_PLAY);
  EXPECT_THAT(s->Hand(0), ElementsAre(k9D));
}

TEST(PestenRulings, SevenWithoutAFollowingCardDrawsOneAndEndsTheTurn) {
  auto game = MakeGame(2);
  Position p;
  p.hands = {{k7H, k3C, k4C}, {k3S, k5C}};
  p.pile = {k4H};
  p.deck = {kQS, kQH};
  auto s = At(*game, p);
  Do(*s, Play(k7H));
  EXPECT_THAT(Labels(*s, 0), ElementsAre("draw a card"));
  Do(*s, Kind(kDraw));
  EXPECT_THAT(s->Hand(0), ElementsAre(k3C, k4C, kQS));
  EXPECT_THAT(s->ActingSeats(), ElementsAre(1));
}

TEST(PestenRulings, TenPassTakenAtOnce) {
  auto game = MakeGame(3);
  Position p;
  p.hands = {{k10H, k3C, k4C}, {k3D, k4D}, {k3S, kQS}};
  p.pile = {k9H};
  p.deck = {kQH};
  auto s = At(*game, p);
  const size_t before = s->events().size();
  Do(*s, Play(k10H));
  EXPECT_EQ(s->phase(), v1::PESTEN_PHASE_PASS);
  // Every seat, the player of the 10 included, decides at once.
  EXPECT_THAT(s->ActingSeats(), ElementsAre(0, 1, 2));
  EXPECT_THAT(Labels(*s, 0),
              ElementsAre("pass 3 of Clubs left", "pass 4 of Clubs left"));
  EXPECT_THAT(Labels(*s, 1), ElementsAre("pass 3 of Diamonds left",
                                         "pass 4 of Diamonds left"));
  EXPECT_EQ(s->current_seat(), -1);
  // Nothing about the choices is logged before they are all in.
  EXPECT_THAT(EventsOf(*s, before, v1::PestenEvent::kCardPassed), IsEmpty());
  s->Apply({1, 0, 1});  // 0 passes 4C, 1 passes 3D, 2 passes QS
  EXPECT_THAT(s->Hand(0), ElementsAre(k3C, kQS));
  EXPECT_THAT(s->Hand(1), ElementsAre(k4C, k4D));
  EXPECT_THAT(s->Hand(2), ElementsAre(k3D, k3S));
  EXPECT_THAT(s->ActingSeats(), ElementsAre(1));
  // Each pass is seen by its giver and receiver; the third seat sees no card.
  int passes = 0;
  for (size_t i = before; i < s->events().size(); ++i) {
    const LoggedEvent& e = s->events()[i];
    if (!e.event.pesten().has_card_passed()) continue;
    ++passes;
    const auto& full = e.event.pesten().card_passed();
    const int from = full.from_seat(), to = full.to_seat();
    EXPECT_EQ(to, (from + 1) % 3);
    EXPECT_TRUE(full.has_card());
    for (int seat = 0; seat < 3; ++seat) {
      const v1::Event* seen = EventForSeat(e, seat);
      ASSERT_NE(seen, nullptr);
      EXPECT_EQ(seen->pesten().card_passed().has_card(),
                seat == from || seat == to);
    }
  }
  EXPECT_EQ(passes, 3);
}

TEST(PestenRulings, AceReversesTheDirection) {
  auto game = MakeGame(4);
  Position p;
  p.hands = {{k3C, k4C}, {kAH, k4D, k5D}, {k3S}, {k5C}};
  p.pile = {k9H};
  p.current_seat = 1;
  p.deck = {kQH};
  auto s = At(*game, p);
  Do(*s, Play(kAH));
  EXPECT_EQ(s->direction(), -1);
  EXPECT_THAT(s->ActingSeats(), ElementsAre(0));
  Do(*s, Kind(kDraw));
  EXPECT_THAT(s->ActingSeats(), ElementsAre(3));  // 0 -> 3 counterclockwise
}

TEST(PestenRulings, AceWithTwoSeatsStillPassesTheTurn) {
  auto game = MakeGame(2);
  Position p;
  p.hands = {{kAH, k4D, k5D}, {k3S, k3C}};
  p.pile = {k9H};
  p.deck = {kQH};
  auto s = At(*game, p);
  Do(*s, Play(kAH));
  EXPECT_EQ(s->direction(), -1);
  EXPECT_THAT(s->ActingSeats(), ElementsAre(1));
}

TEST(PestenRulings, ForbiddenSpecialLastCard) {
  auto game = MakeGame(2);
  for (int last : {k2H, k7H, k8H, k10H, kJH, kKH, kAH, kJoker1}) {
    Position p;
    p.hands = {{last}, {k3S, k3C}};
    p.pile = {k9H};
    p.deck = {kQS};
    auto s = At(*game, p);
    EXPECT_THAT(Labels(*s, 0), ElementsAre("draw a card")) << CardName(last);
  }
  // Under an obligation a lone 2 cannot be stacked either.
  Position p;
  p.hands = {{k2H}, {k3S, k3C}};
  p.pile = {k2C};
  p.obligation = 2;
  p.deck = {kQS, kQC};
  auto s = At(*game, p);
  EXPECT_THAT(Labels(*s, 0), ElementsAre("take the obligation (2 cards)"));
}

TEST(PestenRulings, PlainLastCardWinsTheRound) {
  auto game = MakeGame(2, {{"winning_points", "2"}});
  Position p;
  p.hands = {{kQH}, {k3S, k3C}};
  p.pile = {k9H};
  p.deck = {kQS};
  p.direction = -1;
  auto s = At(*game, p, 99);
  EXPECT_THAT(Labels(*s, 0), ElementsAre("play Queen of Hearts", "draw a card"));
  const size_t before = s->events().size();
  Do(*s, Play(kQH));
  const auto won = EventsOf(*s, before, v1::PestenEvent::kRoundWon);
  ASSERT_EQ(won.size(), 1u);
  EXPECT_EQ(won[0].round_won().seat(), 0);
  EXPECT_EQ(s->winning_points(0), 1);
  EXPECT_FALSE(s->IsTerminal());
  // Round 1 is dealt by seat 1, clockwise, 5 cards each, full deck.
  EXPECT_EQ(s->round(), 1);
  EXPECT_EQ(s->dealer(), 1);
  EXPECT_EQ(s->direction() == 1 || RankOf(s->top_card()) == kAce, true);
  EXPECT_EQ(EventsOf(*s, before, v1::PestenEvent::kDeal).size(), 3u);
  EXPECT_EQ(s->HandSize(0) + s->HandSize(1) + s->deck_size() +
                static_cast<int>(s->Pile().size()),
            54);
}

TEST(PestenRulings, MatchEndsWhenASeatReachesTheWinningPoints) {
  auto game = MakeGame(3);
  Position p;
  p.hands = {{k4H}, {k3S, k3C}, {k5C, k5H, k3D}};
  p.pile = {k9H};
  p.winning_points = {1, 1, 0};
  auto s = At(*game, p);
  Do(*s, Play(k4H));
  EXPECT_TRUE(s->IsTerminal());
  EXPECT_EQ(s->winner(), 0);
  EXPECT_THAT(s->ActingSeats(), IsEmpty());
  const v1::MatchResult r = s->Result();
  EXPECT_THAT(r.scores(), ElementsAre(2, 1, 0));
  EXPECT_THAT(r.placements(), ElementsAre(1, 2, 3));
  EXPECT_TRUE(r.higher_score_wins());
  EXPECT_EQ(r.end_reason(), v1::END_REASON_NORMAL);
}

TEST(PestenRulings, WinningPointsOptionEndsTheMatchEarlier) {
  auto game = MakeGame(2, {{"winning_points", "1"}});
  Position p;
  p.hands = {{k4H}, {k3S, k3C}};
  p.pile = {k9H};
  auto s = At(*game, p);
  Do(*s, Play(k4H));
  EXPECT_TRUE(s->IsTerminal());
  EXPECT_THAT(s->Result().scores(), ElementsAre(1, 0));
}

// The decision cap (RULINGS, common): the capping step's own consequences
// resolve (a round it wins is scored, a penalty it imposes is drawn, an
// obligation it takes is drawn), then the match ends: no new deal, no effect
// on the next turn; ranked on the hands as they are.
TEST(PestenRulings, ARoundWonAtTheCapIsScoredAndNoNewRoundIsDealt) {
  // Seat 0 (0 points) plays its last card as step 1 = the cap: 1 point.
  // Points 1, 1, 0; cards 0, 2, 3 -> seat 0 first (fewer cards than seat
  // 1), seat 1 second, seat 2 third. Dealing the next round first would
  // give seats 0 and 1 five cards each and tie them.
  auto game = MakeGame(3);
  Position p;
  p.hands = {{k4H}, {k3S, k3C}, {k5C, k5H, k3D}};
  p.pile = {k9H};
  p.winning_points = {0, 1, 0};
  auto s = At(*game, p);
  s->set_decision_cap(1);
  const size_t before = s->events().size();
  Do(*s, Play(k4H));
  EXPECT_FALSE(s->IsTerminal());
  EXPECT_THAT(s->ActingSeats(), IsEmpty());
  EXPECT_EQ(EventsOf(*s, before, v1::PestenEvent::kRoundWon).size(), 1u);
  EXPECT_THAT(EventsOf(*s, before, v1::PestenEvent::kDeal), IsEmpty());
  EXPECT_EQ(s->round(), 0);
  const v1::MatchResult r = s->Result();
  EXPECT_THAT(r.scores(), ElementsAre(1, 1, 0));
  EXPECT_THAT(r.placements(), ElementsAre(1, 2, 3));
  EXPECT_THAT(r.detail(), HasSubstr("cards in hand by seat: 0, 2, 3"));
}

TEST(PestenRulings, AtTheCapAMissedAnnouncementIsDrawnButTheSevenGivesNoTurn) {
  // As MissedAnnouncement, capped at step 1: seat 0 draws its 2 penalty
  // cards (7C, KD) and holds 3; the 7's extra turn never comes. Cards 3 and
  // 2, no points -> placements 2, 1.
  auto game = MakeGame(2);
  Position p;
  p.hands = {{k7H, k9C}, {k3S, k3D}};
  p.pile = {k4H};
  p.deck = {k7C, kKD, kQS};
  auto s = At(*game, p);
  s->set_decision_cap(1);
  Do(*s, Play(k7H, 0, false));
  EXPECT_THAT(s->Hand(0), ElementsAre(k7C, k9C, kKD));
  EXPECT_THAT(s->ActingSeats(), IsEmpty());
  EXPECT_EQ(s->NumLegalActions(0), 0);
  EXPECT_THAT(s->Result().placements(), ElementsAre(2, 1));
}

TEST(PestenRulings, AtTheCapATwoLeavesItsObligationUndrawn) {
  // Seat 0 plays the 2 of Hearts as step 1 = the cap: the +2 acts on the
  // next turn, which never comes; seat 1 keeps 2 cards. Cards 2 and 2 ->
  // both placed 1.
  auto game = MakeGame(2);
  Position p;
  p.hands = {{k2H, k9C, k5S}, {k3S, k3D}};
  p.pile = {k4H};
  p.deck = {k7C, kKD, kQS};
  auto s = At(*game, p);
  s->set_decision_cap(1);
  Do(*s, Play(k2H));
  EXPECT_EQ(s->HandSize(1), 2);
  EXPECT_EQ(s->deck_size(), 3);
  EXPECT_THAT(s->Result().placements(), ElementsAre(1, 1));
}

TEST(PestenRulings, AtTheCapATakenObligationIsDrawn) {
  // Seat 0 faces +2 and takes it as step 1 = the cap: it draws 7C and KD
  // and holds 3; seat 1 holds 1 -> placements 2, 1.
  auto game = MakeGame(2);
  Position p;
  p.hands = {{k9C}, {k3S}};
  p.pile = {k2H};
  p.deck = {k7C, kKD, kQS};
  p.obligation = 2;
  auto s = At(*game, p);
  s->set_decision_cap(1);
  Do(*s, Kind(kTake));
  EXPECT_THAT(s->Hand(0), ElementsAre(k7C, k9C, kKD));
  EXPECT_THAT(s->ActingSeats(), IsEmpty());
  EXPECT_THAT(s->Result().placements(), ElementsAre(2, 1));
}

TEST(PestenRulings, AtTheCapATenStartsNoPass) {
  // Seat 0's 10 of Hearts at the cap: the pass would be the next step.
  auto game = MakeGame(2);
  Position p;
  p.hands = {{k10H, k9C, k5S}, {k3S, k3D}};
  p.pile = {k4H};
  auto s = At(*game, p);
  s->set_decision_cap(1);
  const size_t before = s->events().size();
  Do(*s, Play(k10H));
  EXPECT_THAT(s->ActingSeats(), IsEmpty());
  EXPECT_THAT(EventsOf(*s, before, v1::PestenEvent::kCardPassed), IsEmpty());
  EXPECT_EQ(s->HandSize(0), 2);
  EXPECT_EQ(s->HandSize(1), 2);
}

TEST(PestenRulings, TieBreakIsMostPointsThenFewestCards) {
  auto game = MakeGame(4);
  Position p;
  p.hands = {{k3C, k4C, k5C}, {k3D}, {k3S, k4D}, {k3H, k4H}};
  p.pile = {k9H};
  p.winning_points = {1, 0, 0, 1};
  auto s = At(*game, p);
  const v1::MatchResult r = s->Result();
  EXPECT_THAT(r.scores(), ElementsAre(1, 0, 0, 1));
  // Seat 3 (1 point, 2 cards) > seat 0 (1 point, 3 cards) > seat 1 (1 card)
  // > seat 2 (2 cards).
  EXPECT_THAT(r.placements(), ElementsAre(2, 3, 4, 1));
}

TEST(PestenRulings, MissedAnnouncement) {
  auto game = MakeGame(2);
  Position p;
  p.hands = {{k7H, k9C}, {k3S, k3D}};
  p.pile = {k4H};
  p.deck = {k7C, kKD, kQS};
  auto s = At(*game, p);
  // Both versions of the play that leaves one card are offered.
  EXPECT_THAT(Labels(*s, 0),
              ElementsAre("play 7 of Hearts", "play 7 of Hearts, \"Pesten!\"",
                          "draw a card"));
  const size_t before = s->events().size();
  Do(*s, Play(k7H, 0, false));
  // Two penalty cards at once, before the 7's effect: the follow-up turn
  // already holds them (the 7 of Clubs follows the 7 of Hearts).
  const auto drew = EventsOf(*s, before, v1::PestenEvent::kDrew);
  ASSERT_EQ(drew.size(), 1u);
  EXPECT_EQ(drew[0].drew().reason(),
            v1::PESTEN_DRAW_REASON_MISSED_ANNOUNCEMENT);
  EXPECT_THAT(drew[0].drew().cards(), ElementsAre(k7C, kKD));
  EXPECT_THAT(s->Hand(0), ElementsAre(k7C, k9C, kKD));
  EXPECT_EQ(s->phase(), v1::PESTEN_PHASE_FOLLOW_UP);
  EXPECT_THAT(Labels(*s, 0), ElementsAre("play 7 of Clubs", "draw a card"));
}

TEST(PestenRulings, AnnouncedPlayHasNoPenalty) {
  auto game = MakeGame(2);
  Position p;
  p.hands = {{k5H, k9C}, {k3S, k3D}};
  p.pile = {k4H};
  p.deck = {k7C, kKD};
  auto s = At(*game, p);
  const size_t before = s->events().size();
  Do(*s, Play(k5H, 0, true));
  EXPECT_THAT(EventsOf(*s, before, v1::PestenEvent::kDrew), IsEmpty());
  const auto played = EventsOf(*s, before, v1::PestenEvent::kPlayed);
  ASSERT_EQ(played.size(), 1u);
  EXPECT_TRUE(played[0].played().announced());
  EXPECT_THAT(s->Hand(0), ElementsAre(k9C));
}

TEST(PestenRulings, AnnouncementIsOfferedOnlyWhenOneCardWouldBeLeft) {
  auto game = MakeGame(2);
  Position p;
  p.hands = {{k5H, k9C, kJS}, {k3S, k3D}};
  p.pile = {k4H};
  p.deck = {k7C};
  auto s = At(*game, p);
  EXPECT_EQ(s->NumLegalActions(0), 6);  // 5H, Jack x4, draw
  for (int a = 0; a < s->NumLegalActions(0); ++a) {
    EXPECT_FALSE(s->LegalMove(0, a).announce);
  }
  // With two cards, a Jack comes as 4 wishes x (without, with) = 8 plays.
  p.hands = {{k9C, kJS}, {k3S, k3D}};
  auto t = At(*game, p);
  EXPECT_EQ(t->NumLegalActions(0), 9);
  EXPECT_EQ(t->ActionLabel(0, 1), "play Jack of Spades, wish Clubs, \"Pesten!\"");
}

TEST(PestenRulings, EmptyDeckReshufflesThePileButItsTopCard) {
  auto game = MakeGame(2);
  Position p;
  p.hands = {{k3D, k4D}, {k3S, kQD}};
  p.pile = {k3C, k4C, k5C};
  p.deck = {};
  auto s = At(*game, p, 5);
  const size_t before = s->events().size();
  Do(*s, Kind(kDraw));
  const auto re = EventsOf(*s, before, v1::PestenEvent::kReshuffled);
  ASSERT_EQ(re.size(), 1u);
  EXPECT_EQ(re[0].reshuffled().count(), 2);
  EXPECT_THAT(s->Pile(), ElementsAre(k5C));
  EXPECT_EQ(s->HandSize(0), 3);
  EXPECT_EQ(s->deck_size(), 1);
}

TEST(PestenRulings, NothingToDrawTheTurnPasses) {
  auto game = MakeGame(2);
  Position p;
  p.hands = {{k3D, k4D}, {k3S, kQD}};
  p.pile = {k5C};
  auto s = At(*game, p);
  const size_t before = s->events().size();
  Do(*s, Kind(kDraw));
  const auto drew = EventsOf(*s, before, v1::PestenEvent::kDrew);
  ASSERT_EQ(drew.size(), 1u);
  EXPECT_EQ(drew[0].drew().count(), 0);
  EXPECT_EQ(s->HandSize(0), 2);
  EXPECT_THAT(s->ActingSeats(), ElementsAre(1));
}

TEST(PestenRulings, ObligationDrawsWhatExistsWhenTheDeckRunsOut) {
  auto game = MakeGame(2);
  Position p;
  p.hands = {{k3D, k4D}, {k3S, kQD}};
  p.pile = {k9C, k2C};
  p.deck = {kQH};
  p.obligation = 4;
  auto s = At(*game, p);
  Do(*s, Kind(kTake));  // QH, then the reshuffle gives 9C; nothing else
  EXPECT_THAT(s->Hand(0), ElementsAre(k9C, k3D, k4D, kQH));
  EXPECT_THAT(s->Pile(), ElementsAre(k2C));
  EXPECT_EQ(s->obligation(), 0);
}

// ---------------------------------------------------------------------------
// Visibility

TEST(PestenVisibility, DealIsRecordOnlyAndEachSeatSeesItsOwnHand) {
  auto game = MakeGame(3);
  auto s = game->NewInitialState(11);
  auto* ps = static_cast<PestenState*>(s.get());
  int deals = 0;
  for (const LoggedEvent& e : s->events()) {
    if (!e.event.pesten().has_deal()) continue;
    ++deals;
    const auto& d = e.event.pesten().deal();
    if (e.seats_mask == 0) {
      EXPECT_FALSE(e.is_public);
      EXPECT_FALSE(e.has_redacted);
      EXPECT_EQ(d.hands_size(), 3);
      EXPECT_EQ(d.deck_size(), 54 - 15);
      for (int seat = 0; seat < 3; ++seat) {
        EXPECT_EQ(EventForSeat(e, seat), nullptr);
      }
    } else {
      ASSERT_EQ(d.hands_size(), 1);
      const int seat = d.hands(0).seat();
      EXPECT_EQ(e.seats_mask, uint64_t{1} << seat);
      EXPECT_TRUE(d.deck().empty());
      EXPECT_EQ(d.hands(0).cards_size(), 5);
      std::vector<int> cards(d.hands(0).cards().begin(),
                             d.hands(0).cards().end());
      EXPECT_EQ(cards, ps->Hand(seat));  // no decision has been taken yet
    }
  }
  EXPECT_EQ(deals, 4);
}

TEST(PestenVisibility, OthersSeeHowManyCardsWereDrawnNotWhich) {
  auto game = MakeGame(2);
  Position p;
  p.hands = {{k3D, k4D}, {k3S, kQD}};
  p.pile = {k5C};
  p.deck = {kQH, kQS};
  auto s = At(*game, p);
  const size_t before = s->events().size();
  Do(*s, Kind(kDraw));
  const LoggedEvent& e = s->events()[before];
  ASSERT_TRUE(e.event.pesten().has_drew());
  EXPECT_THAT(EventForSeat(e, 0)->pesten().drew().cards(), ElementsAre(kQH));
  EXPECT_THAT(EventForSeat(e, 1)->pesten().drew().cards(), IsEmpty());
  EXPECT_EQ(EventForSeat(e, 1)->pesten().drew().count(), 1);
}

TEST(PestenVisibility, ViewShowsTheSeatsOwnHandAndPublicState) {
  auto game = MakeGame(3);
  Position p;
  p.hands = {{k3D, k4D}, {k3S, kQD, kJoker1}, {k5H}};
  p.pile = {k9C, kJH};
  p.wish = kSpades;
  p.deck = {kQH, kQS};
  p.direction = -1;
  p.winning_points = {0, 1, 0};
  p.current_seat = 1;
  p.round = 4;
  auto s = At(*game, p);
  v1::View view;
  s->FillView(1, &view);
  const v1::PestenView& v = view.pesten();
  EXPECT_THAT(v.hand(), ElementsAre(kQD, k3S, kJoker1));  // ascending ids
  EXPECT_EQ(v.top_card(), kJH);
  EXPECT_EQ(v.wished_suit(), v1::PESTEN_SUIT_SPADES);
  EXPECT_EQ(v.draw_obligation(), 0);
  EXPECT_EQ(v.direction(), v1::PESTEN_DIRECTION_COUNTERCLOCKWISE);
  EXPECT_THAT(v.hand_sizes(), ElementsAre(2, 3, 1));
  EXPECT_THAT(v.winning_points(), ElementsAre(0, 1, 0));
  EXPECT_EQ(v.current_seat(), 1);
  EXPECT_EQ(v.deck_size(), 2);
  EXPECT_EQ(v.pile_size(), 2);
  EXPECT_EQ(v.round(), 4);
  EXPECT_EQ(v.dealer(), 1);
  EXPECT_EQ(v.phase(), v1::PESTEN_PHASE_PLAY);
  // Not acting: no legal actions.
  google::protobuf::RepeatedPtrField<v1::Action> actions;
  s->FillLegalActions(0, &actions);
  EXPECT_EQ(actions.size(), 0);
}

TEST(PestenVisibility, EventsAreDescribedWithCardNames) {
  auto game = MakeGame(3);
  Position p;
  p.hands = {{k10H, k3C, k4C}, {k3D, k4D}, {k3S, kQS}};
  p.pile = {k9H};
  p.deck = {kQH};
  auto s = At(*game, p);
  const size_t before = s->events().size();
  Do(*s, Play(k10H));
  s->Apply({1, 0, 1});
  EXPECT_EQ(s->DescribeEvent(s->events()[before].event), "seat 0 played 10 of Hearts");
  const LoggedEvent& pass = s->events()[before + 1];  // seat 0 -> seat 1
  EXPECT_EQ(s->DescribeEvent(pass.event), "seat 0 passed 4 of Clubs to seat 1");
  EXPECT_EQ(s->DescribeEvent(*EventForSeat(pass, 2)),
            "seat 0 passed a card to seat 1");
}

// ---------------------------------------------------------------------------
// Random playouts

TEST(PestenSimulation, RandomPlayoutsKeepInvariantsOverEveryConfiguration) {
  int matches = 0, finished = 0;
  int64_t decisions = 0, worst = 0;
  for (int seats = 2; seats <= 6; ++seats) {
    for (int jokers = 0; jokers <= 4; ++jokers) {
      // One round per match keeps this quick; rounds chain as in
      // PlainLastCardWinsTheRound.
      auto game = MakeGame(seats, {{"jokers", std::to_string(jokers)},
                                   {"winning_points", "1"}});
      for (int i = 0; i < 20; ++i) {
        auto state = game->NewInitialState(DeriveSeed(seats * 100 + jokers, i));
        auto* s = static_cast<PestenState*>(state.get());
        Rng rng(i);
        int64_t steps = 0;
        while (!s->IsTerminal() && steps < PestenInfo().default_decision_cap) {
          std::vector<int> actions;
          for (int seat : s->ActingSeats()) {
            const int n = s->NumLegalActions(seat);
            ASSERT_GE(n, 1);
            actions.push_back(static_cast<int>(rng.Uniform(n)));
          }
          s->Apply(actions);
          ++steps;
          int total = static_cast<int>(s->Pile().size()) + s->deck_size();
          for (int seat = 0; seat < seats; ++seat) total += s->HandSize(seat);
          ASSERT_EQ(total, 52 + jokers);
        }
        decisions += steps;
        worst = std::max(worst, steps);
        finished += s->IsTerminal();
        ++matches;
      }
    }
  }
  std::printf("random playouts: %d/%d finished, %.0f decisions on average, "
              "at most %lld\n",
              finished, matches, double(decisions) / matches,
              static_cast<long long>(worst));
  EXPECT_EQ(finished, matches);
}

}  // namespace
}  // namespace pesten
}  // namespace arena
