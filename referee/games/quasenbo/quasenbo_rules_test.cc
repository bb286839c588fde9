// Quäsenbö rules engine: one test per ruling (named after it), the visibility
// of every event, option checking, and random playouts over a grid of options.
// Expected values are worked out by hand from the card table below (the
// catalogue order is itself pinned by CatalogueOrderIsFixed).
#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/games/quasenbo/quasenbo.h"
#include "referee/game_api/rng.h"

namespace arena {
namespace quasenbo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;
using Position = QuasenboState::Position;

// Card ids (basic deck; suits in brackets).
constexpr int kAceMoons = 0;        // [Mo]
constexpr int kAceSuns = 1;         // [Su]
constexpr int kAceWaves = 2;        // [Wa]
constexpr int kAceLeaves = 3;       // [Le]
constexpr int kAceWyrms = 4;        // [Wy]
constexpr int kAceKnots = 5;        // [Kn]
constexpr int kAuthor = 6;          // 2 [Mo Kn]
constexpr int kDesert = 7;          // 2 [Su Wy]
constexpr int kOrigin = 8;          // 2 [Wa Le]
constexpr int kJourney = 9;         // 3 [Mo Wa]
constexpr int kPainter = 10;        // 3 [Su Kn]
constexpr int kMountain = 12;       // 4 [Mo Su]
constexpr int kSailor = 13;         // 4 [Wa Le]
constexpr int kBattle = 14;         // 4 [Wy Kn]
constexpr int kForest = 15;         // 5 [Mo Le]
constexpr int kChanceMeeting = 21;  // 7 [Mo Le]
constexpr int kMill = 25;           // 8 [Wa Le]
constexpr int kPact = 27;           // 9 [Mo Su]
constexpr int kHuntress = 30;       // Crown [Mo]
constexpr int kBard = 31;           // Crown [Su]
constexpr int kSea = 32;            // Crown [Wa]
constexpr int kEnd = 33;            // Crown [Le]
constexpr int kCalamity = 34;       // Crown [Wy]
constexpr int kWindfall = 35;       // Crown [Kn]
// With pawns (and courts) on: Pawns follow the Crowns.
constexpr int kHarvest = 36;     // Pawn [Mo Su Le]
constexpr int kBorderland = 39;  // Pawn [Wa Le Wy]
// With only the Excuse added it takes id 36.
constexpr int kExcuse36 = 36;

constexpr int kMoons = v1::QUASENBO_SUIT_MOONS;
constexpr int kSuns = v1::QUASENBO_SUIT_SUNS;
constexpr int kWaves = v1::QUASENBO_SUIT_WAVES;
constexpr int kKnots = v1::QUASENBO_SUIT_KNOTS;

std::unique_ptr<QuasenboGame> MakeGame(const Options& options, int seats) {
  absl::StatusOr<std::unique_ptr<QuasenboGame>> game =
      QuasenboGame::Create(options, seats);
  EXPECT_TRUE(game.ok()) << game.status();
  return game.ok() ? std::move(*game) : nullptr;
}

std::unique_ptr<QuasenboState> At(const QuasenboGame& game,
                                  const Position& position, uint64_t seed = 1) {
  absl::StatusOr<std::unique_ptr<QuasenboState>> state =
      QuasenboState::FromPositionForTest(game, position, seed);
  EXPECT_TRUE(state.ok()) << state.status();
  return state.ok() ? std::move(*state) : nullptr;
}

std::vector<int> Ints(const google::protobuf::RepeatedField<int32_t>& v) {
  return std::vector<int>(v.begin(), v.end());
}

// The legal actions of the acting seat as (card, decree) pairs.
std::vector<std::pair<int, int>> Legal(const QuasenboState& s) {
  std::vector<std::pair<int, int>> out;
  for (int i = 0; i < s.NumLegalActions(s.current_seat()); ++i) {
    out.push_back({s.LegalCard(i), s.LegalDecree(i)});
  }
  return out;
}

// Events from index `from` on, of one kind.
std::vector<const LoggedEvent*> EventsOf(const QuasenboState& s,
                                         v1::QuasenboEvent::KindCase kind,
                                         size_t from = 0) {
  std::vector<const LoggedEvent*> out;
  for (size_t i = from; i < s.events().size(); ++i) {
    if (s.events()[i].event.quasenbo().kind_case() == kind) {
      out.push_back(&s.events()[i]);
    }
  }
  return out;
}

int Total(const QuasenboState& s) {
  int total = s.deck_size() + s.pile_size();
  for (int seat = 0; seat < s.num_seats(); ++seat) total += s.HandSize(seat);
  return total;
}

// ---------------------------------------------------------------------------
// Configuration

TEST(QuasenboSetUp, TestHooksRefuseABadDeckOrPositionSayingWhy) {
  auto game = MakeGame({}, 2);
  EXPECT_EQ(QuasenboState::FromDeckOrderForTest(*game, {0, 1, 2}, 1)
                .status()
                .message(),
            "deck order has 3 cards, want 36");
  Position three_hands;
  three_hands.hands = {{0}, {1}, {2}};
  three_hands.pile = {{3}};
  EXPECT_EQ(QuasenboState::FromPositionForTest(*game, three_hands, 1)
                .status()
                .message(),
            "position: one hand per seat (3 hands for 2 seats)");
  // Card 36 is the Excuse, not in the basic deck.
  EXPECT_EQ(
      QuasenboState::FromPositionForTest(*game, {{{0}, {1}}, {{2}}, {36}}, 1)
          .status()
          .message(),
      "position: bad or repeated card 36");
}

TEST(QuasenboOptions, DealThatDoesNotFitIsRejected) {
  // 5 seats x 8 cards + 1 start card = 41 > 36.
  absl::StatusOr<std::unique_ptr<Game>> game =
      CreateQuasenbo({{"hand_size", "8"}}, 5);
  ASSERT_FALSE(game.ok());
  EXPECT_EQ(game.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(game.status().message(),
              HasSubstr("5 seats x 8 cards + 1 start card = 41 cards, but "
                        "the deck has 36"));
  // 5 x 7 + 1 = 36 fits exactly; with Pawns and Courts 5 x 8 + 1 = 41 <= 44.
  EXPECT_TRUE(CreateQuasenbo({}, 5).ok());
  EXPECT_TRUE(
      CreateQuasenbo({{"hand_size", "8"}, {"pawns", "1"}, {"courts", "1"}}, 5)
          .ok());
  // 2 x 18 + 1 = 37 > 36.
  EXPECT_FALSE(CreateQuasenbo({{"hand_size", "18"}}, 2).ok());
}

TEST(QuasenboOptions, ExcuseNeedsASpareCardBesideTheStartCard) {
  // 37 cards with the Excuse: 4 x 9 + 1 = 37 would fit by count, but if the
  // one card left were the Excuse no start card could be turned.
  absl::StatusOr<std::unique_ptr<Game>> game =
      CreateQuasenbo({{"excuse", "true"}, {"hand_size", "9"}}, 4);
  ASSERT_FALSE(game.ok());
  EXPECT_THAT(game.status().message(),
              HasSubstr("4 seats x 9 cards + 1 start card + 1 spare card (the "
                        "Excuse cannot start the pile) = 38 cards, but the "
                        "deck has 37"));
  EXPECT_TRUE(CreateQuasenbo({{"excuse", "true"}, {"hand_size", "8"}}, 4).ok());
}

TEST(QuasenboOptions, UnknownOptionsAndBadValuesAreRejected) {
  absl::StatusOr<std::unique_ptr<Game>> game =
      CreateQuasenbo({{"jokers", "2"}}, 2);
  ASSERT_FALSE(game.ok());
  EXPECT_THAT(game.status().message(), HasSubstr("unknown option 'jokers'"));
  game = CreateQuasenbo({{"hand_size", "0"}}, 2);
  ASSERT_FALSE(game.ok());
  EXPECT_THAT(game.status().message(),
              HasSubstr("hand_size=0 must be a whole number from 1 to 20"));
  game = CreateQuasenbo({{"excuse", "maybe"}}, 2);
  ASSERT_FALSE(game.ok());
  EXPECT_THAT(game.status().message(), HasSubstr("excuse=maybe"));
  EXPECT_FALSE(CreateQuasenbo({}, 1).ok());
  EXPECT_FALSE(CreateQuasenbo({}, 6).ok());
}

TEST(QuasenboOptions, GameInfo) {
  const GameInfo& info = QuasenboInfo();
  EXPECT_EQ(info.name, "quasenbo");
  EXPECT_EQ(info.min_seats, 2);
  EXPECT_EQ(info.max_seats, 5);
  EXPECT_EQ(info.default_seats, 2);
  EXPECT_FALSE(info.higher_score_wins);
  std::set<std::string> names;
  for (const auto& [name, help] : info.options) names.insert(name);
  EXPECT_EQ(names, (std::set<std::string>{"courts", "double_quasenbo", "excuse",
                                          "hand_size", "pawns"}));
}

TEST(QuasenboOptions, CatalogueOrderIsFixed) {
  auto basic = MakeGame({}, 2);
  EXPECT_EQ(basic->num_cards(), 36);
  EXPECT_EQ(basic->CardId("Ace of Moons"), kAceMoons);
  EXPECT_EQ(basic->CardId("Ace of Knots"), kAceKnots);
  EXPECT_EQ(basic->CardId("Author"), kAuthor);
  EXPECT_EQ(basic->CardId("Origin"), kOrigin);
  EXPECT_EQ(basic->CardId("Journey"), kJourney);
  EXPECT_EQ(basic->CardId("Battle"), kBattle);
  EXPECT_EQ(basic->CardId("Forest"), kForest);
  EXPECT_EQ(basic->CardId("Chance Meeting"), kChanceMeeting);
  EXPECT_EQ(basic->CardId("Mill"), kMill);
  EXPECT_EQ(basic->CardId("Pact"), kPact);
  EXPECT_EQ(basic->CardId("Merchant"), 29);
  EXPECT_EQ(basic->CardId("Huntress"), kHuntress);
  EXPECT_EQ(basic->CardId("Windfall"), kWindfall);
  EXPECT_EQ(basic->CardId("Excuse"), -1);
  EXPECT_EQ(basic->CardId("Harvest"), -1);

  auto all = MakeGame({{"excuse", "1"}, {"pawns", "1"}, {"courts", "1"}}, 2);
  EXPECT_EQ(all->num_cards(), 45);
  EXPECT_EQ(all->CardId("Harvest"), kHarvest);
  EXPECT_EQ(all->CardId("Borderland"), kBorderland);
  EXPECT_EQ(all->CardId("Consul"), 40);
  EXPECT_EQ(all->CardId("Window"), 43);
  EXPECT_EQ(all->CardId("Excuse"), 44);
  auto courts = MakeGame({{"courts", "1"}}, 2);
  EXPECT_EQ(courts->CardId("Consul"), 36);
  auto excuse = MakeGame({{"excuse", "1"}}, 2);
  EXPECT_EQ(excuse->CardId("Excuse"), kExcuse36);

  v1::QuasenboRules rules;
  all->FillRules(&rules);
  ASSERT_EQ(rules.cards_size(), 45);
  EXPECT_EQ(rules.cards(6).name(), "Author");
  EXPECT_EQ(rules.cards(6).rank(), v1::QUASENBO_RANK_TWO);
  EXPECT_THAT(rules.cards(6).suits(),
              ElementsAre(v1::QUASENBO_SUIT_MOONS, v1::QUASENBO_SUIT_KNOTS));
  EXPECT_EQ(rules.cards(kHarvest).rank(), v1::QUASENBO_RANK_PAWN);
  EXPECT_THAT(rules.cards(kHarvest).suits(),
              ElementsAre(v1::QUASENBO_SUIT_MOONS, v1::QUASENBO_SUIT_SUNS,
                          v1::QUASENBO_SUIT_LEAVES));
  EXPECT_EQ(rules.cards(40).rank(), v1::QUASENBO_RANK_COURT);
  EXPECT_EQ(rules.cards(kHuntress).rank(), v1::QUASENBO_RANK_CROWN);
  EXPECT_TRUE(rules.cards(44).excuse());
  EXPECT_EQ(rules.cards(44).rank(), v1::QUASENBO_RANK_UNSPECIFIED);
  EXPECT_THAT(rules.cards(44).suits(), IsEmpty());
  EXPECT_EQ(rules.hand_size(), 7);

  // The same for every seed, and the same from a state.
  v1::Rules r1, r2;
  all->NewInitialState(1)->FillRules(&r1);
  all->NewInitialState(99)->FillRules(&r2);
  EXPECT_EQ(r1.SerializeAsString(), r2.SerializeAsString());
  EXPECT_EQ(r1.quasenbo().SerializeAsString(), rules.SerializeAsString());
}

// ---------------------------------------------------------------------------
// The deal and the start

// Deck order 0..35, 2 seats: seat 0 gets the even ids 0..12, seat 1 the odd
// ids 1..13, the start card is 14 (Battle, 4 [Wy Kn]).
std::vector<int> Identity(int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

TEST(QuasenboRulings, DealIsRoundRobinFromSeatZero) {
  auto game = MakeGame({}, 2);
  auto state = QuasenboState::FromDeckOrderForTest(*game, Identity(36), 1);
  ASSERT_TRUE(state.ok()) << state.status();
  const QuasenboState& s = **state;
  EXPECT_THAT(s.Hand(0), ElementsAre(0, 2, 4, 6, 8, 10, 12));
  EXPECT_THAT(s.Hand(1), ElementsAre(1, 3, 5, 7, 9, 11, 13));
  ASSERT_EQ(s.pile_size(), 1);
  EXPECT_EQ(s.Pile()[0].card, kBattle);
  EXPECT_EQ(s.deck_size(), 21);
  EXPECT_EQ(s.Deck().front(), 15);
  EXPECT_EQ(s.Deck().back(), 35);
}

TEST(QuasenboRulings, SeatZeroPlaysFirst) {
  // In the pinned deal, seat 0 may play on Battle [Wy Kn] (rank 4): Ace of
  // Wyrms (Wy), Author (Kn), Painter (Kn) by suit, Mountain (4) by rank.
  auto game = MakeGame({}, 2);
  auto state = QuasenboState::FromDeckOrderForTest(*game, Identity(36), 1);
  ASSERT_TRUE(state.ok());
  EXPECT_THAT((*state)->ActingSeats(), ElementsAre(0));
  EXPECT_THAT(
      Legal(**state),
      ElementsAre(std::make_pair(kAceWyrms, 0), std::make_pair(kAuthor, 0),
                  std::make_pair(kPainter, 0), std::make_pair(kMountain, 0)));
  // And from shuffled deals, with any number of seats.
  for (int seats = 2; seats <= 4; ++seats) {
    auto g = MakeGame({}, seats);
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      auto st = g->NewInitialState(seed);
      ASSERT_FALSE(st->IsTerminal());
      EXPECT_THAT(st->ActingSeats(), ElementsAre(0));
    }
  }
}

TEST(QuasenboRulings, PlayPassesToTheNextSeat) {
  auto game = MakeGame({}, 3);
  auto state = game->NewInitialState(7);
  std::vector<int> order;
  for (int i = 0; i < 7 && !state->IsTerminal(); ++i) {
    order.push_back(state->ActingSeats()[0]);
    state->Apply({0});
  }
  EXPECT_THAT(order, ElementsAre(0, 1, 2, 0, 1, 2, 0));
}

TEST(QuasenboRulings, HandSizeOptionSetsTheDeal) {
  auto game = MakeGame({{"hand_size", "3"}}, 4);
  auto state = QuasenboState::FromDeckOrderForTest(*game, Identity(36), 1);
  ASSERT_TRUE(state.ok());
  EXPECT_THAT((*state)->Hand(0), ElementsAre(0, 4, 8));
  EXPECT_THAT((*state)->Hand(3), ElementsAre(3, 7, 11));
  EXPECT_EQ((*state)->Pile()[0].card, 12);  // Mountain
  EXPECT_EQ((*state)->deck_size(), 23);
}

TEST(QuasenboRulings, ExcuseStartCardIsReturnedAndReshuffled) {
  // Excuse game (37 cards, Excuse = 36): the deal takes 0..13 and the next
  // card, the start card, would be the Excuse.
  auto game = MakeGame({{"excuse", "true"}}, 2);
  std::vector<int> order = Identity(14);
  order.push_back(kExcuse36);
  for (int c = 14; c < 36; ++c) order.push_back(c);
  auto state = QuasenboState::FromDeckOrderForTest(*game, order, 5);
  ASSERT_TRUE(state.ok()) << state.status();
  const QuasenboState& s = **state;
  auto starts = EventsOf(s, v1::QuasenboEvent::kStartCard);
  ASSERT_EQ(starts.size(), 1u);
  const auto& full = starts[0]->event.quasenbo().start_card();
  EXPECT_EQ(full.excuses_returned(), 1);
  EXPECT_NE(full.card(), kExcuse36);
  ASSERT_EQ(s.pile_size(), 1);
  EXPECT_EQ(s.Pile()[0].card, full.card());
  // The Excuse went back: 23 cards left after the deal, one turned up.
  EXPECT_EQ(s.deck_size(), 22);
  std::vector<int> deck = s.Deck();
  EXPECT_EQ(std::count(deck.begin(), deck.end(), kExcuse36), 1);
  EXPECT_EQ(Ints(full.deck()), deck);
  // The record's deal still shows the Excuse on top of the undealt cards.
  auto deals = EventsOf(s, v1::QuasenboEvent::kDeal);
  EXPECT_EQ(deals[0]->event.quasenbo().deal().deck(0), kExcuse36);
  // The seats are told the start card and the count, not the deck.
  ASSERT_TRUE(starts[0]->has_redacted);
  EXPECT_EQ(starts[0]->redacted.quasenbo().start_card().excuses_returned(), 1);
  EXPECT_EQ(starts[0]->redacted.quasenbo().start_card().card(), full.card());
  EXPECT_EQ(starts[0]->redacted.quasenbo().start_card().deck_size(), 0);
}

// ---------------------------------------------------------------------------
// Playing, drawing, passing

TEST(QuasenboRulings, PlayedCardMustShareASuitOrARank) {
  // Top: Mountain, 4 [Mo Su]. Forest (Mo) and Bard (Su) share a suit, Sailor
  // (4) the rank; Sea [Wa] and Origin (2 [Wa Le]) share nothing.
  auto game = MakeGame({}, 2);
  auto s = At(*game, {{{kSea, kForest, kBard, kSailor, kOrigin}, {kEnd}},
                      {{kMountain}},
                      {kAceKnots}});
  EXPECT_THAT(Legal(*s), ElementsAre(std::make_pair(kSailor, 0),
                                     std::make_pair(kForest, 0),
                                     std::make_pair(kBard, 0)));
}

TEST(QuasenboRulings, NoVoluntaryDrawWhileHoldingPlayable) {
  // Top: Ace of Moons. Journey and Forest (Mo) are playable, Bard is not:
  // the legal actions are exactly the two plays; nothing is drawn.
  auto game = MakeGame({}, 2);
  auto s = At(
      *game,
      {{{kBard, kForest, kJourney}, {kEnd}}, {{kAceMoons}}, {kHuntress, kSea}});
  EXPECT_THAT(Legal(*s), ElementsAre(std::make_pair(kJourney, 0),
                                     std::make_pair(kForest, 0)));
  EXPECT_EQ(s->deck_size(), 2);
  EXPECT_EQ(s->HandSize(0), 3);
  EXPECT_THAT(EventsOf(*s, v1::QuasenboEvent::kDrew), IsEmpty());
  google::protobuf::RepeatedPtrField<v1::Action> actions;
  s->FillLegalActions(0, &actions);
  ASSERT_EQ(actions.size(), 2);
  EXPECT_EQ(actions[0].quasenbo().card(), kJourney);
  EXPECT_EQ(actions[1].quasenbo().card(), kForest);
  EXPECT_EQ(s->ActionLabel(0, 1), "play Forest");
}

TEST(QuasenboRulings, DrawUntilPlayableThenMustPlayIt) {
  // Top: Ace of Moons. Seat 0 holds Painter [Su Kn] and Bard [Su]: neither
  // plays. It draws Desert [Su Wy] (no), Sea [Wa] (no), Forest [Mo Le] (yes)
  // and must play Forest; Journey stays in the deck.
  auto game = MakeGame({}, 2);
  auto s = At(*game, {{{kPainter, kBard}, {kCalamity}},
                      {{kAceMoons}},
                      {kDesert, kSea, kForest, kJourney}});
  EXPECT_THAT(s->ActingSeats(), ElementsAre(0));
  EXPECT_THAT(s->Hand(0), ElementsAre(kDesert, kPainter, kForest, kBard, kSea));
  EXPECT_THAT(Legal(*s), ElementsAre(std::make_pair(kForest, 0)));
  EXPECT_THAT(s->Deck(), ElementsAre(kJourney));
  auto drew = EventsOf(*s, v1::QuasenboEvent::kDrew);
  ASSERT_EQ(drew.size(), 1u);
  const LoggedEvent& e = *drew[0];
  // The drawer (and the record) see the cards; the others the count only.
  EXPECT_FALSE(e.is_public);
  EXPECT_EQ(e.seats_mask, 1u);
  EXPECT_THAT(Ints(e.event.quasenbo().drew().cards()),
              ElementsAre(kDesert, kSea, kForest));
  EXPECT_EQ(e.event.quasenbo().drew().count(), 3);
  EXPECT_FALSE(e.event.quasenbo().drew().penalty());
  ASSERT_TRUE(e.has_redacted);
  EXPECT_EQ(EventForSeat(e, 0), &e.event);
  EXPECT_EQ(EventForSeat(e, 1), &e.redacted);
  EXPECT_EQ(e.redacted.quasenbo().drew().seat(), 0);
  EXPECT_EQ(e.redacted.quasenbo().drew().count(), 3);
  EXPECT_EQ(e.redacted.quasenbo().drew().cards_size(), 0);
  s->Apply({0});
  EXPECT_EQ(s->Pile().back().card, kForest);
  EXPECT_THAT(s->ActingSeats(), ElementsAre(1));
}

TEST(QuasenboRulings, DrawnExcuseOffersOneActionPerDecree) {
  auto game = MakeGame({{"excuse", "true"}}, 2);
  auto s =
      At(*game, {{{kBard}, {kCalamity}}, {{kAceMoons}}, {kExcuse36, kForest}});
  EXPECT_THAT(
      Legal(*s),
      ElementsAre(std::make_pair(kExcuse36, 1), std::make_pair(kExcuse36, 2),
                  std::make_pair(kExcuse36, 3), std::make_pair(kExcuse36, 4),
                  std::make_pair(kExcuse36, 5), std::make_pair(kExcuse36, 6)));
  EXPECT_EQ(s->ActionLabel(0, 2), "play Excuse, decree Waves");
  s->Apply({2});
  auto played = EventsOf(*s, v1::QuasenboEvent::kPlayed);
  ASSERT_EQ(played.size(), 1u);
  EXPECT_EQ(played[0]->event.quasenbo().played().card(), kExcuse36);
  EXPECT_EQ(played[0]->event.quasenbo().played().decree(),
            v1::QUASENBO_SUIT_WAVES);
}

TEST(QuasenboRulings, ExcuseIsPlayableOnAnything) {
  // Top: Ace of Moons; Bard cannot play, Forest can; the Excuse always can,
  // as six actions after the others (it has the highest id).
  auto game = MakeGame({{"excuse", "true"}}, 2);
  auto s =
      At(*game,
         {{{kBard, kForest, kExcuse36}, {kCalamity}}, {{kAceMoons}}, {kSea}});
  auto legal = Legal(*s);
  ASSERT_EQ(legal.size(), 7u);
  EXPECT_EQ(legal[0], std::make_pair(kForest, 0));
  EXPECT_EQ(legal[1], std::make_pair(kExcuse36, kMoons));
  EXPECT_EQ(legal[6], std::make_pair(kExcuse36, kKnots));
}

TEST(QuasenboRulings, EmptyDeckReshufflesAllButTopTwo) {
  // Pile (bottom first): Forest, Desert, Windfall, Bard, Ace of Moons. Seat 0
  // holds Calamity [Wy] and cannot play on the Ace of Moons; the deck is
  // empty, so Forest, Desert and Windfall become the new deck (Bard and the
  // Ace stay) and seat 0 draws until Forest.
  auto game = MakeGame({}, 2);
  auto s = At(*game, {{{kCalamity}, {kEnd}},
                      {{kForest}, {kDesert}, {kWindfall}, {kBard}, {kAceMoons}},
                      {}});
  auto reshuffled = EventsOf(*s, v1::QuasenboEvent::kReshuffled);
  ASSERT_EQ(reshuffled.size(), 1u);
  const LoggedEvent& r = *reshuffled[0];
  EXPECT_EQ(r.event.quasenbo().reshuffled().count(), 3);
  EXPECT_THAT(Ints(r.event.quasenbo().reshuffled().deck()),
              UnorderedElementsAre(kForest, kDesert, kWindfall));
  // Record only in full; everyone is told the size.
  EXPECT_FALSE(r.is_public);
  EXPECT_EQ(r.seats_mask, 0u);
  ASSERT_TRUE(r.has_redacted);
  EXPECT_EQ(r.redacted.quasenbo().reshuffled().count(), 3);
  EXPECT_EQ(r.redacted.quasenbo().reshuffled().deck_size(), 0);
  EXPECT_EQ(EventForSeat(r, 0), &r.redacted);
  EXPECT_EQ(EventForSeat(r, 1), &r.redacted);

  ASSERT_EQ(s->pile_size(), 2);
  EXPECT_EQ(s->Pile()[0].card, kBard);
  EXPECT_EQ(s->Pile()[1].card, kAceMoons);
  EXPECT_THAT(Legal(*s), ElementsAre(std::make_pair(kForest, 0)));
  EXPECT_EQ(s->HandSize(0) - 1 + s->deck_size(), 3);  // Calamity + 3 cards
  EXPECT_EQ(Total(*s), 7);
}

TEST(QuasenboRulings, PassWhenNothingToDraw) {
  // Pile: Bard, Ace of Moons; deck empty: a reshuffle yields nothing. Seat 0
  // (Calamity) cannot play and passes; seat 1 (Forest, Sea) is to play.
  auto game = MakeGame({}, 2);
  auto s =
      At(*game, {{{kCalamity}, {kForest, kSea}}, {{kBard}, {kAceMoons}}, {}});
  auto passed = EventsOf(*s, v1::QuasenboEvent::kPassed);
  ASSERT_EQ(passed.size(), 1u);
  EXPECT_TRUE(passed[0]->is_public);
  EXPECT_EQ(passed[0]->event.quasenbo().passed().seat(), 0);
  EXPECT_THAT(EventsOf(*s, v1::QuasenboEvent::kReshuffled), IsEmpty());
  EXPECT_THAT(EventsOf(*s, v1::QuasenboEvent::kDrew), IsEmpty());
  EXPECT_FALSE(s->IsTerminal());
  EXPECT_THAT(s->ActingSeats(), ElementsAre(1));
  EXPECT_EQ(s->passes_in_row(), 1);
  EXPECT_THAT(s->Hand(0), ElementsAre(kCalamity));
  EXPECT_THAT(Legal(*s), ElementsAre(std::make_pair(kForest, 0)));
}

TEST(QuasenboRulings, PassesInARowResetWhenSomeonePlays) {
  // As above: seat 0 passes (1 in a row), seat 1 plays Forest (0 in a row).
  // Seat 0 then draws the Bard from the reshuffled pile bottom, still cannot
  // play on Forest [Mo Le], and passes (1); seat 1's Sea cannot play and
  // nothing is left: it passes (2 of 2) and the match ends. Without the
  // reset the match would have ended at seat 0's second pass.
  auto game = MakeGame({}, 2);
  auto s =
      At(*game, {{{kCalamity}, {kForest, kSea}}, {{kBard}, {kAceMoons}}, {}});
  s->Apply({0});
  EXPECT_TRUE(s->IsTerminal());
  auto passed = EventsOf(*s, v1::QuasenboEvent::kPassed);
  ASSERT_EQ(passed.size(), 3u);
  EXPECT_EQ(passed[1]->event.quasenbo().passed().seat(), 0);
  EXPECT_EQ(passed[2]->event.quasenbo().passed().seat(), 1);
  EXPECT_EQ(s->passes_in_row(), 2);
  EXPECT_THAT(s->Hand(0), ElementsAre(kBard, kCalamity));
  EXPECT_THAT(s->Hand(1), ElementsAre(kSea));
  v1::MatchResult r = s->Result();
  EXPECT_THAT(r.scores(), ElementsAre(2, 1));
  EXPECT_THAT(r.placements(), ElementsAre(2, 1));
}

TEST(QuasenboRulings, AllPassEndsByTieBreak) {
  // Pile: Bard, Ace of Moons; deck empty; nobody holds a Moons card or an
  // Ace: seats 0, 1, 2 pass in turn and the match ends, ranked by cards left.
  auto game = MakeGame({}, 3);
  auto s = At(*game, {{{kCalamity}, {kWindfall, kSea}, {kDesert}},
                      {{kBard}, {kAceMoons}},
                      {}});
  EXPECT_TRUE(s->IsTerminal());
  EXPECT_THAT(s->ActingSeats(), IsEmpty());
  auto passed = EventsOf(*s, v1::QuasenboEvent::kPassed);
  ASSERT_EQ(passed.size(), 3u);
  EXPECT_EQ(passed[0]->event.quasenbo().passed().seat(), 0);
  EXPECT_EQ(passed[2]->event.quasenbo().passed().seat(), 2);
  EXPECT_EQ(s->winner(), -1);
  v1::MatchResult r = s->Result();
  EXPECT_THAT(r.scores(), ElementsAre(1, 2, 1));
  EXPECT_THAT(r.placements(), ElementsAre(1, 3, 1));
  EXPECT_FALSE(r.higher_score_wins());
  EXPECT_EQ(r.end_reason(), v1::END_REASON_NORMAL);
  EXPECT_THAT(r.detail(), HasSubstr("all 3 seats passed in a row"));
}

TEST(QuasenboRulings, UnfinishedMatchIsRankedByCardsLeft) {
  // The tie-break used at the decision cap and for forfeits.
  auto game = MakeGame({}, 3);
  auto s =
      At(*game, {{{kForest, kSea, kEnd}, {kBard}, {kAuthor, kDesert, kOrigin}},
                 {{kAceMoons}},
                 {kCalamity}});
  ASSERT_FALSE(s->IsTerminal());
  v1::MatchResult r = s->Result();
  EXPECT_THAT(r.scores(), ElementsAre(3, 1, 3));
  EXPECT_THAT(r.placements(), ElementsAre(2, 1, 2));
  EXPECT_EQ(r.end_reason(), v1::END_REASON_UNSPECIFIED);
  EXPECT_THAT(r.detail(), HasSubstr("unfinished"));
  EXPECT_THAT(r.detail(), HasSubstr("cards left by seat: 3, 1, 3"));
}

// The decision cap (RULINGS, common): the capping step's own consequences
// resolve, nothing of the next turn happens, and the match is ranked on the
// hands as they are.
TEST(QuasenboRulings, AtTheCapTheNextSeatDrawsNothing) {
  // Top: Ace of Moons. Seat 0 plays Forest [Mo Le] as step 1 = the cap (no
  // quäsenbö: the pile is two cards). Seat 1's Painter [Su Kn] cannot
  // follow: in play it would draw Desert, Bard and Journey (the first that
  // plays) and hold 4; at the cap its turn never starts. Cards left: seat 0
  // Sea = 1, seat 1 Painter = 1 -> both placed 1 (not 1 and 2).
  auto game = MakeGame({}, 2);
  auto s = At(*game, {{{kForest, kSea}, {kPainter}},
                      {{kAceMoons}},
                      {kDesert, kBard, kJourney}});
  s->set_decision_cap(1);
  EXPECT_THAT(Legal(*s), ElementsAre(std::make_pair(kForest, 0)));
  s->Apply({0});
  EXPECT_FALSE(s->IsTerminal());
  EXPECT_THAT(s->ActingSeats(), IsEmpty());
  EXPECT_THAT(s->Hand(1), ElementsAre(kPainter));
  EXPECT_THAT(s->Deck(), ElementsAre(kDesert, kBard, kJourney));
  EXPECT_TRUE(EventsOf(*s, v1::QuasenboEvent::kDrew).empty());
  v1::MatchResult r = s->Result();
  EXPECT_THAT(r.scores(), ElementsAre(1, 1));
  EXPECT_THAT(r.placements(), ElementsAre(1, 1));
  EXPECT_EQ(r.decisions(), 1);
}

TEST(QuasenboRulings, AtTheCapThePenaltyOfTheCappingStepIsDrawn) {
  // Pile Pact [Mo Su], Mountain [Mo Su]; seat 0's Huntress [Mo] at the cap
  // (step 1) is a quäsenbö: it draws the Bard. Seat 1's Windfall [Kn]
  // cannot follow, but its draws belong to the next turn: none. Cards left:
  // seat 0 Bard + Sea = 2, seat 1 = 1 -> placements 2, 1.
  auto game = MakeGame({}, 2);
  auto s = At(*game, {{{kHuntress, kSea}, {kWindfall}},
                      {{kPact}, {kMountain}},
                      {kBard, kCalamity, kSailor}});
  s->set_decision_cap(1);
  s->Apply({0});
  EXPECT_THAT(s->ActingSeats(), IsEmpty());
  EXPECT_THAT(s->Hand(0), ElementsAre(kBard, kSea));
  EXPECT_THAT(s->Hand(1), ElementsAre(kWindfall));
  EXPECT_THAT(s->Deck(), ElementsAre(kCalamity, kSailor));
  v1::MatchResult r = s->Result();
  EXPECT_THAT(r.scores(), ElementsAre(2, 1));
  EXPECT_THAT(r.placements(), ElementsAre(2, 1));
}

TEST(QuasenboRulings, ALastCardAtTheCapStillWins) {
  // Seat 0 plays its last card as the capping step: the game ends by the
  // rules (terminal), not by the cap.
  auto game = MakeGame({}, 2);
  auto s = At(*game, {{{kForest}, {kPainter, kBard}}, {{kAceMoons}}, {kSea}});
  s->set_decision_cap(1);
  s->Apply({0});
  EXPECT_TRUE(s->IsTerminal());
  EXPECT_EQ(s->Result().end_reason(), v1::END_REASON_NORMAL);
  EXPECT_THAT(s->Result().placements(), ElementsAre(1, 2));
}

TEST(QuasenboRulings, EndingATurnWithNoCardsWins) {
  // Seat 1 plays its last card, Forest [Mo Le], on the Ace of Moons over
  // Calamity [Wy]: no quäsenbö, no cards left: it wins.
  auto game = MakeGame({}, 3);
  auto s = At(*game, {{{kBard, kEnd}, {kForest}, {kSea, kDesert, kOrigin}},
                      {{kCalamity}, {kAceMoons}},
                      {kWindfall},
                      /*current_seat=*/1});
  ASSERT_THAT(s->ActingSeats(), ElementsAre(1));
  s->Apply({0});
  EXPECT_TRUE(s->IsTerminal());
  EXPECT_EQ(s->winner(), 1);
  v1::MatchResult r = s->Result();
  EXPECT_THAT(r.scores(), ElementsAre(2, 0, 3));
  EXPECT_THAT(r.placements(), ElementsAre(2, 1, 3));
  EXPECT_EQ(r.end_reason(), v1::END_REASON_NORMAL);
  EXPECT_THAT(r.detail(), HasSubstr("seat 1 ended a turn with no cards"));
}

// ---------------------------------------------------------------------------
// The Excuse's decree

TEST(QuasenboRulings, ExcuseCarriesDecreeInTopThree) {
  // Pile: Journey [Mo Wa], Excuse decreeing Waves. On top, the Excuse is a
  // Waves card with no rank: Sea plays, the Ace of Moons and Huntress (Mo,
  // from Journey below) do not. Playing Sea makes Waves three times in a
  // row (Journey, Excuse, Sea): a quäsenbö.
  auto game = MakeGame({{"excuse", "true"}}, 2);
  auto s = At(*game, {{{kAceMoons, kHuntress, kSea}, {kEnd}},
                      {{kJourney}, {kExcuse36, kWaves}},
                      {kBard, kCalamity}});
  EXPECT_THAT(Legal(*s), ElementsAre(std::make_pair(kSea, 0)));
  v1::View view;
  s->FillView(0, &view);
  ASSERT_EQ(view.quasenbo().top_size(), 2);
  EXPECT_EQ(view.quasenbo().top(0).card(), kExcuse36);
  EXPECT_EQ(view.quasenbo().top(0).decree(), v1::QUASENBO_SUIT_WAVES);
  EXPECT_EQ(view.quasenbo().top(1).card(), kJourney);
  EXPECT_EQ(view.quasenbo().top(1).decree(), v1::QUASENBO_SUIT_UNSPECIFIED);
  s->Apply({0});
  auto played = EventsOf(*s, v1::QuasenboEvent::kPlayed);
  ASSERT_EQ(played.size(), 1u);
  EXPECT_EQ(played[0]->event.quasenbo().played().penalty(), 1);
  EXPECT_THAT(s->Hand(0), ElementsAre(kAceMoons, kHuntress, kBard));

  // Two deep, the decree still counts: Excuse (Waves), Sailor [Wa Le], then
  // Origin [Wa Le] repeats Waves three times.
  auto t = At(*game, {{{kOrigin, kBard}, {kEnd}},
                      {{kExcuse36, kWaves}, {kSailor}},
                      {kCalamity}});
  t->Apply({0});
  EXPECT_EQ(EventsOf(*t, v1::QuasenboEvent::kPlayed)[0]
                ->event.quasenbo()
                .played()
                .penalty(),
            1);
}

TEST(QuasenboRulings, ExcuseHasNoSuitBeyondTopThree) {
  // Double quäsenbö. Pile: Excuse (played as Waves, now 4th from the top),
  // Sea [Wa], Mill [Wa Le], Sailor [Wa Le]. Origin [Wa Le] makes a Waves run
  // Origin-Sailor-Mill-Sea of 4 (the Excuse below has lost its suit) and a
  // Leaves run of 3: penalty 4 - 2 = 2, not 3.
  auto game = MakeGame({{"excuse", "true"}, {"double_quasenbo", "true"}}, 2);
  auto s = At(*game, {{{kOrigin, kBard}, {kEnd}},
                      {{kExcuse36, kWaves}, {kSea}, {kMill}, {kSailor}},
                      {kAceSuns, kAceWaves, kAceLeaves}});
  EXPECT_EQ(s->Pile()[0].decree, 0);  // not reported beyond the top three
  s->Apply({0});
  EXPECT_EQ(EventsOf(*s, v1::QuasenboEvent::kPlayed)[0]
                ->event.quasenbo()
                .played()
                .penalty(),
            2);
  EXPECT_THAT(s->Hand(0), ElementsAre(kAceSuns, kAceWaves, kBard));
  // The Excuse has now left the top three: the view shows Origin, Sailor,
  // Mill only.
  v1::View view;
  s->FillView(1, &view);
  ASSERT_EQ(view.quasenbo().top_size(), 3);
  EXPECT_EQ(view.quasenbo().top(2).card(), kMill);
}

TEST(QuasenboRulings, ExcuseLosesDecreeWhenReshuffled) {
  // Pile: Excuse (Suns), Bard [Su], Pact [Mo Su]; deck empty. Seat 0 holds
  // Sea and cannot play on Pact: the reshuffle turns the Excuse into the
  // whole deck; drawn, it is a plain Excuse again: six decrees to choose
  // from, and the new decree (Knots) is what the pile shows.
  auto game = MakeGame({{"excuse", "true"}}, 2);
  auto s =
      At(*game, {{{kSea}, {kEnd}}, {{kExcuse36, kSuns}, {kBard}, {kPact}}, {}});
  auto reshuffled = EventsOf(*s, v1::QuasenboEvent::kReshuffled);
  ASSERT_EQ(reshuffled.size(), 1u);
  EXPECT_THAT(Ints(reshuffled[0]->event.quasenbo().reshuffled().deck()),
              ElementsAre(kExcuse36));
  EXPECT_THAT(s->Hand(0), ElementsAre(kSea, kExcuse36));
  ASSERT_EQ(Legal(*s).size(), 6u);
  EXPECT_EQ(Legal(*s)[0], std::make_pair(kExcuse36, kMoons));
  s->Apply({5});  // Knots: no quäsenbö (Pact, Bard have no Knots)
  EXPECT_EQ(EventsOf(*s, v1::QuasenboEvent::kPlayed)[0]
                ->event.quasenbo()
                .played()
                .decree(),
            v1::QUASENBO_SUIT_KNOTS);
  // Seat 1 (End [Le]) cannot follow Knots: the next reshuffle gives it the
  // Bard (not Knots either) and leaves Pact and the Excuse, which keeps its
  // new decree; seat 1 passes, seat 0 (Sea) passes: the match ends.
  ASSERT_EQ(s->pile_size(), 2);
  EXPECT_EQ(s->Pile()[0].card, kPact);
  EXPECT_EQ(s->Pile()[1].card, kExcuse36);
  EXPECT_EQ(s->Pile()[1].decree, kKnots);
  EXPECT_THAT(s->Hand(1), ElementsAre(kBard, kEnd));
  EXPECT_EQ(EventsOf(*s, v1::QuasenboEvent::kPassed).size(), 2u);
  EXPECT_TRUE(s->IsTerminal());
}

// ---------------------------------------------------------------------------
// Quäsenbö

TEST(QuasenboRulings, QuasenboPenaltyOneCard) {
  // Pile: Pact [Mo Su], Mountain [Mo Su]. Huntress [Mo] repeats Moons three
  // times: seat 0 draws one card, the Bard.
  auto game = MakeGame({}, 2);
  auto s = At(*game, {{{kHuntress, kSea}, {kWindfall}},
                      {{kPact}, {kMountain}},
                      {kBard, kCalamity}});
  EXPECT_THAT(Legal(*s), ElementsAre(std::make_pair(kHuntress, 0)));
  const size_t before = s->events().size();
  s->Apply({0});
  auto played = EventsOf(*s, v1::QuasenboEvent::kPlayed, before);
  ASSERT_EQ(played.size(), 1u);
  EXPECT_TRUE(played[0]->is_public);
  EXPECT_EQ(played[0]->event.quasenbo().played().seat(), 0);
  EXPECT_EQ(played[0]->event.quasenbo().played().card(), kHuntress);
  EXPECT_EQ(played[0]->event.quasenbo().played().penalty(), 1);
  EXPECT_EQ(played[0]->event.step(), 1);
  auto drew = EventsOf(*s, v1::QuasenboEvent::kDrew, before);
  ASSERT_EQ(drew.size(), 1u);
  EXPECT_TRUE(drew[0]->event.quasenbo().drew().penalty());
  EXPECT_THAT(Ints(drew[0]->event.quasenbo().drew().cards()),
              ElementsAre(kBard));
  EXPECT_TRUE(drew[0]->redacted.quasenbo().drew().penalty());
  EXPECT_EQ(drew[0]->redacted.quasenbo().drew().count(), 1);
  EXPECT_THAT(s->Hand(0), ElementsAre(kBard, kSea));
  EXPECT_THAT(s->Deck(), ElementsAre(kCalamity));
  EXPECT_THAT(s->ActingSeats(), ElementsAre(1));
}

TEST(QuasenboRulings, MixedSuitsAreNotQuasenbo) {
  // Pile: Sea [Wa], Huntress [Mo]. Journey [Mo Wa] shares Moons with the
  // card below and Waves with the one under it: no single suit three times.
  auto game = MakeGame({}, 2);
  auto s = At(
      *game,
      {{{kJourney, kBard}, {kAceWaves}}, {{kSea}, {kHuntress}}, {kCalamity}});
  EXPECT_THAT(Legal(*s), ElementsAre(std::make_pair(kJourney, 0),
                                     std::make_pair(kBard, 0)));
  s->Apply({0});
  EXPECT_EQ(EventsOf(*s, v1::QuasenboEvent::kPlayed)[0]
                ->event.quasenbo()
                .played()
                .penalty(),
            0);
  EXPECT_THAT(EventsOf(*s, v1::QuasenboEvent::kDrew), IsEmpty());
  EXPECT_THAT(s->Hand(0), ElementsAre(kBard));
}

TEST(QuasenboRulings, RepeatedRankIsNotQuasenbo) {
  // Huntress, Bard, Sea: three Crowns, three different suits.
  auto game = MakeGame({}, 2);
  auto s =
      At(*game,
         {{{kSea, kForest}, {kWindfall}}, {{kHuntress}, {kBard}}, {kCalamity}});
  s->Apply({0});
  EXPECT_EQ(EventsOf(*s, v1::QuasenboEvent::kPlayed)[0]
                ->event.quasenbo()
                .played()
                .penalty(),
            0);
}

TEST(QuasenboRulings, PawnOnPawnCanStillBeQuasenbo) {
  // Pile: Forest [Mo Le], Harvest (Pawn [Mo Su Le]). Borderland (Pawn
  // [Wa Le Wy]) follows rank, yet Leaves appears three times.
  auto game = MakeGame({{"pawns", "true"}}, 2);
  auto s = At(*game, {{{kBorderland, kBard}, {kWindfall}},
                      {{kForest}, {kHarvest}},
                      {kCalamity}});
  EXPECT_THAT(Legal(*s), ElementsAre(std::make_pair(kBard, 0),
                                     std::make_pair(kBorderland, 0)));
  s->Apply({1});
  EXPECT_EQ(EventsOf(*s, v1::QuasenboEvent::kPlayed)[0]
                ->event.quasenbo()
                .played()
                .penalty(),
            1);
}

TEST(QuasenboRulings, DoubleQuasenboPenaltyIsRunMinusTwo) {
  // Pile: Huntress [Mo], Ace of Moons, Forest [Mo Le], Chance Meeting
  // [Mo Le]. Journey [Mo Wa] makes a Moons run of 5: penalty 5 - 2 = 3.
  const Position position{
      {{kJourney, kWindfall}, {kSea}},
      {{kHuntress}, {kAceMoons}, {kForest}, {kChanceMeeting}},
      {kBard, kEnd, kCalamity, kAceKnots}};
  auto game = MakeGame({{"double_quasenbo", "true"}}, 2);
  auto s = At(*game, position);
  s->Apply({0});
  EXPECT_EQ(EventsOf(*s, v1::QuasenboEvent::kPlayed)[0]
                ->event.quasenbo()
                .played()
                .penalty(),
            3);
  EXPECT_THAT(s->Hand(0), ElementsAre(kBard, kEnd, kCalamity, kWindfall));
  // Without the option the same play costs one card.
  auto plain = MakeGame({}, 2);
  auto t = At(*plain, position);
  t->Apply({0});
  EXPECT_EQ(EventsOf(*t, v1::QuasenboEvent::kPlayed)[0]
                ->event.quasenbo()
                .played()
                .penalty(),
            1);
  EXPECT_THAT(t->Hand(0), ElementsAre(kBard, kWindfall));
  // A run of exactly three costs one card with the option too.
  auto u = At(*game, {{{kHuntress, kSea}, {kWindfall}},
                      {{kPact}, {kMountain}},
                      {kBard, kCalamity}});
  u->Apply({0});
  EXPECT_EQ(EventsOf(*u, v1::QuasenboEvent::kPlayed)[0]
                ->event.quasenbo()
                .played()
                .penalty(),
            1);
}

TEST(QuasenboRulings, PenaltyDrawMayReshuffle) {
  // Pile: Sea, Desert, Pact, Mountain; deck empty. Huntress is a quäsenbö;
  // the deck is rebuilt from all but the top two (Mountain, Huntress):
  // Sea, Desert, Pact; one of them is drawn.
  auto game = MakeGame({}, 2);
  auto s = At(*game, {{{kHuntress, kBard}, {kWindfall}},
                      {{kSea}, {kDesert}, {kPact}, {kMountain}},
                      {}});
  // Both Huntress [Mo] and Bard [Su] play on Mountain, and both repeat a
  // suit of Mountain and Pact. Seat 0 plays the Bard; Windfall (a Crown)
  // then plays on it without drawing.
  EXPECT_THAT(Legal(*s), ElementsAre(std::make_pair(kHuntress, 0),
                                     std::make_pair(kBard, 0)));
  s->Apply({1});
  auto played = EventsOf(*s, v1::QuasenboEvent::kPlayed);
  ASSERT_EQ(played.size(), 1u);
  EXPECT_EQ(played[0]->event.quasenbo().played().card(), kBard);
  EXPECT_EQ(played[0]->event.quasenbo().played().penalty(), 1);
  auto reshuffled = EventsOf(*s, v1::QuasenboEvent::kReshuffled);
  ASSERT_EQ(reshuffled.size(), 1u);
  EXPECT_THAT(Ints(reshuffled[0]->event.quasenbo().reshuffled().deck()),
              UnorderedElementsAre(kSea, kDesert, kPact));
  ASSERT_EQ(s->pile_size(), 2);
  EXPECT_EQ(s->Pile()[0].card, kMountain);
  EXPECT_EQ(s->Pile()[1].card, kBard);
  EXPECT_EQ(s->HandSize(0), 2);
  EXPECT_EQ(s->deck_size(), 2);
  auto drew = EventsOf(*s, v1::QuasenboEvent::kDrew);
  ASSERT_EQ(drew.size(), 1u);
  EXPECT_TRUE(drew[0]->event.quasenbo().drew().penalty());
  EXPECT_LT(reshuffled[0] - &s->events()[0], drew[0] - &s->events()[0]);
}

// The rulings say a penalty that finds nothing to draw is not taken, so a
// player whose last card commits a quäsenbö with nothing to draw still wins.
// Under the reshuffle rule that case cannot arise: a quäsenbö needs the played
// card and two below it, so an empty deck is always rebuilt from at least one
// card (and a run of L cards, penalty L - 2, leaves at least L - 2 to
// reshuffle). The engine would stop drawing when nothing is left and judge
// the win on the hand after the penalty; these two tests pin the reachable
// boundary: the smallest pile, an empty deck, and the penalty is still drawn
// in full.
TEST(QuasenboRulings, PenaltyAlwaysFindsACardThroughTheReshuffle) {
  // Pile: Pact, Mountain; deck empty. Huntress is a quäsenbö; all but the top
  // two (Mountain, Huntress) is the Pact alone: it is drawn.
  auto game = MakeGame({{"double_quasenbo", "true"}}, 2);
  auto s =
      At(*game, {{{kHuntress, kSea}, {kWindfall}}, {{kPact}, {kMountain}}, {}});
  s->Apply({0});
  EXPECT_EQ(EventsOf(*s, v1::QuasenboEvent::kPlayed)[0]
                ->event.quasenbo()
                .played()
                .penalty(),
            1);
  EXPECT_THAT(s->Hand(0), ElementsAre(kPact, kSea));
  EXPECT_EQ(s->deck_size(), 0);
  EXPECT_EQ(s->pile_size(), 2);
}

TEST(QuasenboRulings, LastCardQuasenboIsNoWinEvenFromTheSmallestPile) {
  // As above with Huntress as the last card: the reshuffle finds the Pact,
  // the penalty is drawn, so seat 0 ends its turn with one card: no win.
  auto game = MakeGame({}, 2);
  auto s = At(*game, {{{kHuntress}, {kWindfall}}, {{kPact}, {kMountain}}, {}});
  s->Apply({0});
  EXPECT_FALSE(s->IsTerminal());
  EXPECT_THAT(s->Hand(0), ElementsAre(kPact));
  EXPECT_EQ(s->winner(), -1);
  // With a card in the deck, the same: the quäsenbö on the last card is not
  // a win (the rules text's own example).
  auto t =
      At(*game, {{{kHuntress}, {kWindfall}}, {{kPact}, {kMountain}}, {kSea}});
  t->Apply({0});
  EXPECT_FALSE(t->IsTerminal());
  EXPECT_THAT(t->Hand(0), ElementsAre(kSea));
  EXPECT_THAT(t->ActingSeats(), ElementsAre(1));
}

// ---------------------------------------------------------------------------
// What the seats see

TEST(QuasenboVisibility, DealIsRecordOnlyAndEachSeatSeesItsOwnHand) {
  auto game = MakeGame({}, 2);
  auto state = QuasenboState::FromDeckOrderForTest(*game, Identity(36), 1);
  ASSERT_TRUE(state.ok());
  const auto& events = (*state)->events();
  ASSERT_GE(events.size(), 4u);
  // 0: everything, record only.
  EXPECT_FALSE(events[0].is_public);
  EXPECT_EQ(events[0].seats_mask, 0u);
  EXPECT_FALSE(events[0].has_redacted);
  const auto& deal = events[0].event.quasenbo().deal();
  ASSERT_EQ(deal.hands_size(), 2);
  EXPECT_THAT(Ints(deal.hands(1).cards()), ElementsAre(1, 3, 5, 7, 9, 11, 13));
  EXPECT_EQ(deal.deck_size(), 22);
  EXPECT_EQ(deal.deck(0), kBattle);
  EXPECT_EQ(EventForSeat(events[0], 0), nullptr);
  EXPECT_EQ(EventForSeat(events[0], 1), nullptr);
  // 1, 2: each seat's own hand, to that seat only.
  for (int seat = 0; seat < 2; ++seat) {
    const LoggedEvent& e = events[1 + seat];
    EXPECT_EQ(e.seats_mask, 1u << seat);
    EXPECT_FALSE(e.has_redacted);
    ASSERT_EQ(e.event.quasenbo().deal().hands_size(), 1);
    EXPECT_EQ(e.event.quasenbo().deal().hands(0).seat(), seat);
    EXPECT_EQ(e.event.quasenbo().deal().deck_size(), 0);
    EXPECT_EQ(EventForSeat(e, 1 - seat), nullptr);
  }
  EXPECT_THAT(Ints(events[1].event.quasenbo().deal().hands(0).cards()),
              ElementsAre(0, 2, 4, 6, 8, 10, 12));
  // 3: the start card, public; its deck order record only.
  const LoggedEvent& start = events[3];
  EXPECT_FALSE(start.is_public);
  EXPECT_EQ(start.seats_mask, 0u);
  ASSERT_TRUE(start.has_redacted);
  EXPECT_EQ(start.event.quasenbo().start_card().card(), kBattle);
  EXPECT_EQ(start.event.quasenbo().start_card().deck_size(), 21);
  EXPECT_EQ(start.redacted.quasenbo().start_card().card(), kBattle);
  EXPECT_EQ(start.redacted.quasenbo().start_card().deck_size(), 0);
  EXPECT_EQ(EventForSeat(start, 0), &start.redacted);
  for (const LoggedEvent& e : events) EXPECT_EQ(e.event.step(), 0);
}

TEST(QuasenboVisibility, ViewShowsOnlyWhatTheSeatMayKnow) {
  auto game = MakeGame({}, 2);
  auto state = QuasenboState::FromDeckOrderForTest(*game, Identity(36), 1);
  ASSERT_TRUE(state.ok());
  v1::View view;
  (*state)->FillView(1, &view);
  const v1::QuasenboView& q = view.quasenbo();
  EXPECT_THAT(Ints(q.hand()), ElementsAre(1, 3, 5, 7, 9, 11, 13));
  ASSERT_EQ(q.top_size(), 1);
  EXPECT_EQ(q.top(0).card(), kBattle);
  EXPECT_THAT(Ints(q.hand_sizes()), ElementsAre(7, 7));
  EXPECT_EQ(q.deck_size(), 21);
  EXPECT_EQ(q.pile_size(), 1);
  EXPECT_EQ(q.current_seat(), 0);
  EXPECT_EQ(q.passes_in_row(), 0);
  EXPECT_EQ(view.events_size(), 0);  // the runner adds events

  // Seat 1's view does not depend on seat 0's cards or the deck order.
  auto a = At(*game, {{{kForest, kSea}, {kBard, kEnd}},
                      {{kAceMoons}},
                      {kCalamity, kWindfall, kDesert}});
  auto b = At(*game, {{{kJourney, kDesert}, {kBard, kEnd}},
                      {{kAceMoons}},
                      {kSea, kForest, kCalamity}});
  v1::View va, vb;
  a->FillView(1, &va);
  b->FillView(1, &vb);
  EXPECT_EQ(va.SerializeAsString(), vb.SerializeAsString());
}

TEST(QuasenboVisibility, EventsCarryTheDecisionStep) {
  auto game = MakeGame({}, 2);
  auto s = game->NewInitialState(3);
  const size_t before = s->events().size();
  s->Apply({0});
  s->Apply({0});
  ASSERT_GT(s->events().size(), before);
  EXPECT_EQ(s->events()[before].event.step(), 1);
  EXPECT_EQ(s->events().back().event.step(), 2);
  EXPECT_EQ(s->step(), 2);
}

// ---------------------------------------------------------------------------
// Random playouts over the options grid

struct Playout {
  std::vector<int> actions;
  std::string events;  // every logged event, serialized, with visibility
};

std::string Serialize(const QuasenboState& s) {
  std::string out;
  for (const LoggedEvent& e : s.events()) {
    out += e.is_public ? "P" : "-";
    out += std::to_string(e.seats_mask);
    out += e.event.SerializeAsString();
    if (e.has_redacted) out += "R" + e.redacted.SerializeAsString();
    out += "|";
  }
  return out;
}

void CheckInvariants(const QuasenboGame& game, const QuasenboState& s) {
  const int n = s.num_seats();
  ASSERT_EQ(Total(s), game.num_cards());
  if (s.IsTerminal()) {
    ASSERT_TRUE(s.ActingSeats().empty());
    if (s.winner() >= 0) {
      ASSERT_EQ(s.HandSize(s.winner()), 0);
    } else {
      ASSERT_EQ(s.passes_in_row(), n);
    }
    return;
  }
  ASSERT_EQ(s.ActingSeats().size(), 1u);
  const int seat = s.ActingSeats()[0];
  ASSERT_EQ(seat, s.current_seat());
  ASSERT_GE(s.NumLegalActions(seat), 1);
  for (int other = 0; other < n; ++other) {
    if (other != seat) {
      ASSERT_EQ(s.NumLegalActions(other), 0);
    }
    ASSERT_GT(s.HandSize(other), 0);
  }
  ASSERT_LT(s.passes_in_row(), n);
  v1::View view;
  s.FillView(seat, &view);
  const v1::QuasenboView& q = view.quasenbo();
  ASSERT_EQ(Ints(q.hand()), s.Hand(seat));
  ASSERT_EQ(q.hand_sizes_size(), n);
  ASSERT_EQ(q.deck_size(), s.deck_size());
  ASSERT_EQ(q.pile_size(), s.pile_size());
  ASSERT_EQ(q.top_size(), std::min(3, s.pile_size()));
  for (const v1::QuasenboPileCard& p : q.top()) {
    const bool excuse = p.card() == game.catalogue().excuse_id;
    ASSERT_EQ(p.decree() != v1::QUASENBO_SUIT_UNSPECIFIED, excuse);
  }
  google::protobuf::RepeatedPtrField<v1::Action> actions;
  s.FillLegalActions(seat, &actions);
  ASSERT_EQ(actions.size(), s.NumLegalActions(seat));
  const std::vector<int> hand = s.Hand(seat);
  for (const v1::Action& a : actions) {
    ASSERT_TRUE(std::count(hand.begin(), hand.end(), a.quasenbo().card()));
  }
}

Playout RunPlayout(const QuasenboGame& game, uint64_t seed, int cap,
                   const std::vector<int>* replay) {
  Playout out;
  Rng rng(seed ^ 0x5eed);
  std::unique_ptr<State> base = game.NewInitialState(seed);
  auto* s = static_cast<QuasenboState*>(base.get());
  CheckInvariants(game, *s);
  int steps = 0;
  while (!s->IsTerminal() && steps < cap) {
    const int seat = s->ActingSeats()[0];
    const int n = s->NumLegalActions(seat);
    const int a = replay ? (*replay)[steps] : static_cast<int>(rng.Uniform(n));
    out.actions.push_back(a);
    s->Apply({a});
    ++steps;
    CheckInvariants(game, *s);
    if (::testing::Test::HasFatalFailure()) return out;
  }
  EXPECT_TRUE(s->IsTerminal()) << "seed " << seed << " not over in " << cap;
  int last_step = 0;
  for (const LoggedEvent& e : s->events()) {
    EXPECT_GE(e.event.step(), last_step);
    last_step = e.event.step();
    // Redacted versions never carry cards or deck orders.
    if (e.has_redacted) {
      const v1::QuasenboEvent& r = e.redacted.quasenbo();
      EXPECT_EQ(r.drew().cards_size() + r.reshuffled().deck_size() +
                    r.start_card().deck_size(),
                0);
    }
  }
  const v1::MatchResult r = s->Result();
  EXPECT_EQ(r.placements_size(), s->num_seats());
  if (s->winner() >= 0) {
    EXPECT_EQ(r.placements(s->winner()), 1);
  }
  out.events = Serialize(*s);
  return out;
}

TEST(QuasenboSimulation, RandomPlayoutsKeepInvariantsOverOptionsGrid) {
  const int kCap = 5000;
  int playouts = 0;
  for (int seats = 2; seats <= 5; ++seats) {
    for (int bits = 0; bits < 16; ++bits) {
      Options options{{"excuse", bits & 1 ? "true" : "false"},
                      {"pawns", bits & 2 ? "true" : "false"},
                      {"courts", bits & 4 ? "true" : "false"},
                      {"double_quasenbo", bits & 8 ? "true" : "false"}};
      for (const char* hand_size : {"7", "3"}) {
        options["hand_size"] = hand_size;
        auto game = MakeGame(options, seats);
        ASSERT_NE(game, nullptr);
        for (uint64_t seed = 1; seed <= 25; ++seed) {
          const uint64_t match_seed = DeriveSeed(seed, seats * 100 + bits);
          Playout p = RunPlayout(*game, match_seed, kCap, nullptr);
          if (HasFatalFailure()) return;
          ++playouts;
          if (seed <= 3) {  // determinism: same seed and actions, same events
            Playout q = RunPlayout(*game, match_seed, kCap, &p.actions);
            ASSERT_EQ(p.events, q.events) << "seed " << match_seed;
          }
        }
      }
    }
  }
  EXPECT_EQ(playouts, 4 * 16 * 2 * 25);
}

TEST(QuasenboSimulation, DifferentSeedsDealDifferently) {
  auto game = MakeGame({}, 2);
  auto a = game->NewInitialState(1);
  auto b = game->NewInitialState(2);
  EXPECT_NE(static_cast<QuasenboState*>(a.get())->Hand(0),
            static_cast<QuasenboState*>(b.get())->Hand(0));
}

}  // namespace
}  // namespace quasenbo
}  // namespace arena
