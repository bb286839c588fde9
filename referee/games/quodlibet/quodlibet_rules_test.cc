// Quodlibet rules engine: a hand-worked deal for every contract with its
// penalties written out (worked by hand in the comments, never computed by
// the test), each 100-point special, the census order and costs of
// Quadrature and Snack, the Unter rule, each contract's information rule,
// the partie (choice of contracts, wheels, running totals) and the options.
#include <algorithm>
#include <array>
#include <memory>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "arena/records/record_tools.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/games/quodlibet/quodlibet.h"
#include "tests/test_util.h"

namespace arena {
namespace quodlibet {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;
using Penalties = std::array<int, kNumSeats>;

// Card ids: Hearts 0..7, Bells 8..15, Leaves 16..23, Acorns ("E", Eichel)
// 24..31; within a suit 7, 8, 9, 10, Unter, Ober, King, Ace.
enum : int {
  H7, H8, H9, H10, HU, HO, HK, HA,
  B7, B8, B9, B10, BU, BO, BK, BA,
  L7, L8, L9, L10, LU, LO, LK, LA,
  E7, E8, E9, E10, EU, EO, EK, EA,
};

constexpr int kCard = QuodlibetState::kActCard;
constexpr int kSlot = QuodlibetState::kActSlot;
constexpr int kContract = QuodlibetState::kActContract;

std::unique_ptr<QuodlibetGame> MakeGame(const Options& options) {
  auto game = QuodlibetGame::Create(options, 4);
  EXPECT_TRUE(game.ok()) << game.status();
  return game.ok() ? std::move(*game) : nullptr;
}

std::vector<int> Concat(const std::vector<std::vector<int>>& parts) {
  std::vector<int> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// One deal of `contract` (ruleset `ruleset`) from the given deck order.
std::unique_ptr<QuodlibetState> OneDeal(const std::string& contract,
                                        const std::vector<int>& deck,
                                        const std::string& ruleset = "badenia",
                                        uint64_t seed = 1) {
  auto game = MakeGame(
      {{"contract", contract}, {"kingdoms", "1"}, {"ruleset", ruleset}});
  auto state = QuodlibetState::FromDeckOrdersForTest(*game, {deck}, seed);
  EXPECT_TRUE(state.ok()) << state.status();
  return state.ok() ? std::move(*state) : nullptr;
}

int IndexOf(const QuodlibetState& s, int encoded) {
  for (int i = 0; i < s.NumLegalActions(s.current_seat()); ++i) {
    if (s.LegalAt(i) == encoded) return i;
  }
  return -1;
}

// Plays `card` for the acting seat, which must hold it and may play it.
void Play(QuodlibetState& s, int card) {
  ASSERT_FALSE(s.IsTerminal());
  const int seat = s.current_seat();
  int i;
  if (s.contract() == v1::QUODLIBET_CONTRACT_OPEN_TROUSERS) {
    const std::vector<int> slots = s.Slots(seat);
    auto it = std::find(slots.begin(), slots.end(), card);
    ASSERT_NE(it, slots.end()) << CardName(card) << " not held by " << seat;
    i = IndexOf(s, kSlot + static_cast<int>(it - slots.begin()));
  } else {
    i = IndexOf(s, kCard + card);
  }
  ASSERT_GE(i, 0) << CardName(card) << " is not legal for seat " << seat;
  s.Apply({i});
}

void PlayAll(QuodlibetState& s, const std::vector<int>& cards) {
  for (int c : cards) {
    Play(s, c);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

std::vector<const LoggedEvent*> EventsOf(const State& s,
                                         v1::QuodlibetEvent::KindCase kind) {
  std::vector<const LoggedEvent*> out;
  for (const LoggedEvent& e : s.events()) {
    if (e.event.quodlibet().kind_case() == kind) out.push_back(&e);
  }
  return out;
}

// ---------------------------------------------------------------------------
// The mixed deal D1. Everyone follows suit in every trick; seat 0 (the beer
// king of kingdom 0) leads the first trick. Tricks in order of play:
//   T1 leader 0: H7 H10 HK H8    -> seat 2 (HK)
//   T2 leader 2: B7 BO B8 BA     -> seat 1 (BA)
//   T3 leader 1: L7 L8 LU LO     -> seat 0 (LO)
//   T4 leader 0: E10 E8 E9 E7    -> seat 0 (E10)
//   T5 leader 0: HU HA HO H9     -> seat 1 (HA)
//   T6 leader 1: BK B9 B10 BU    -> seat 1 (BK)
//   T7 leader 1: L9 L10 LK LA    -> seat 0 (LA)
//   T8 leader 0: EU EO EK EA     -> seat 3 (EA)
// Tricks taken: seat 0: 3 (T3 T4 T7), seat 1: 3 (T2 T5 T6), seat 2: 1 (T1),
// seat 3: 1 (T8).
const std::vector<int> kD1Hand0 = {H7, B8, LO, E10, HU, BU, LA, EU};
const std::vector<int> kD1Hand1 = {H10, BA, L7, E8, HA, BK, L9, EO};
const std::vector<int> kD1Hand2 = {HK, B7, L8, E9, HO, B9, L10, EK};
const std::vector<int> kD1Hand3 = {H8, BO, LU, E7, H9, B10, LK, EA};
const std::vector<int> kD1Play = {
    H7, H10, HK, H8,  B7, BO, B8, BA,  L7, L8, LU, LO,  E10, E8, E9, E7,
    HU, HA, HO, H9,   BK, B9, B10, BU, L9, L10, LK, LA, EU, EO, EK, EA};

std::vector<int> DeckD1() {
  return Concat({kD1Hand0, kD1Hand1, kD1Hand2, kD1Hand3});
}

Penalties PlayD1(const std::string& contract,
                 const std::string& ruleset = "badenia") {
  auto s = OneDeal(contract, DeckD1(), ruleset);
  if (!s) return {-1, -1, -1, -1};
  PlayAll(*s, kD1Play);
  EXPECT_TRUE(s->IsTerminal()) << contract;
  return s->last_penalties();
}

TEST(QuodlibetSetUp, TheTestHookRefusesABadDeckOrderSayingWhy) {
  auto game = MakeGame({});
  std::vector<int> deck(kNumCards);
  std::iota(deck.begin(), deck.end(), 0);
  std::vector<int> short_deck(deck.begin(), deck.end() - 1);
  EXPECT_EQ(QuodlibetState::FromDeckOrdersForTest(*game, {deck, short_deck}, 1)
                .status()
                .message(),
            "deck order has 31 cards, want 32");
  deck[0] = 31;
  EXPECT_EQ(QuodlibetState::FromDeckOrdersForTest(*game, {deck}, 1)
                .status()
                .message(),
            "deck order: bad or repeated card 31");
}

TEST(QuodlibetDeal, DealGivesEachSeatEightCardsInDeckOrder) {
  auto s = OneDeal("minus", DeckD1());
  EXPECT_THAT(s->Hand(0), ElementsAre(H7, HU, B8, BU, LO, LA, E10, EU));
  EXPECT_THAT(s->Hand(3), ElementsAre(H8, H9, B10, BO, LU, LK, E7, EA));
  EXPECT_EQ(s->current_seat(), 0);  // the beer king leads
}

TEST(QuodlibetTricks, MustFollowSuitElseAnyCard) {
  auto s = OneDeal("minus", DeckD1());
  Play(*s, H7);
  // Seat 1 holds H10 and HA: only those.
  EXPECT_EQ(s->NumLegalActions(1), 2);
  EXPECT_EQ(s->LegalAt(0), kCard + H10);
  EXPECT_EQ(s->LegalAt(1), kCard + HA);
  // Seat 0 leading: any of its cards.
  auto t = OneDeal("minus", DeckD1());
  EXPECT_EQ(t->NumLegalActions(0), 8);
  // A seat void in the led suit may play anything (suits deal below).
}

TEST(QuodlibetContracts, MinusTenPerTrick) {
  // 3, 3, 1, 1 tricks x 10.
  EXPECT_EQ(PlayD1("minus"), (Penalties{30, 30, 10, 10}));
}

TEST(QuodlibetContracts, PlusTenPerTrickNotTaken) {
  // (8 - 3) x 10, (8 - 3) x 10, (8 - 1) x 10, (8 - 1) x 10.
  EXPECT_EQ(PlayD1("plus"), (Penalties{50, 50, 70, 70}));
}

TEST(QuodlibetContracts, AlarichRedRuffianFiftyAhmedThirty) {
  // Hearts King in T1 (seat 2): 50. Bells Ober in T2 (seat 1): 30.
  EXPECT_EQ(PlayD1("alarich"), (Penalties{0, 30, 50, 0}));
}

TEST(QuodlibetContracts, NoRedsLowHeartsTwentyHighHeartsTen) {
  // T1 to seat 2: H7 20 + H10 20 + HK 10 + H8 20 = 70.
  // T5 to seat 1: HU 10 + HA 10 + HO 10 + H9 20 = 50.
  EXPECT_EQ(PlayD1("no_reds"), (Penalties{0, 50, 70, 0}));
  EXPECT_EQ(PlayD1("no_reds", "encyclopedia"), (Penalties{0, 50, 70, 0}));
}

TEST(QuodlibetContracts, FirstThreeAndLastBadeniaLastTrickEighty) {
  // T1 seat 2: 10; T2 seat 1: 20; T3 seat 0: 30; T8 seat 3: 80.
  EXPECT_EQ(PlayD1("first_three_and_last"), (Penalties{30, 20, 10, 80}));
}

TEST(QuodlibetContracts, FirstThreeAndLastEncyclopediaLastTrickFifty) {
  EXPECT_EQ(PlayD1("first_three_and_last", "encyclopedia"),
            (Penalties{30, 20, 10, 50}));
}

TEST(QuodlibetContracts, OberUnterThirtyTwentyOrExactlyHundredTogether) {
  // T2 (seat 1): BO alone 30. T3 (seat 0): LU + LO 100. T5 (seat 1): HU + HO
  // 100. T6 (seat 1): BU alone 20. T8 (seat 3): EU + EO 100.
  // Seat 0: 100; seat 1: 30 + 100 + 20 = 150; seat 2: 0; seat 3: 100.
  EXPECT_EQ(PlayD1("ober_unter"), (Penalties{100, 150, 0, 100}));
}

TEST(QuodlibetContracts, AllOrNothingAddsTheFiveMinusContracts) {
  // Minus {30,30,10,10} + Alarich {0,30,50,0} + No Reds {0,50,70,0}
  // + First-Three-and-Last {30,20,10,80} + Ober/Unter {100,150,0,100}:
  // seat 0: 30+0+0+30+100 = 160; seat 1: 30+30+50+20+150 = 280;
  // seat 2: 10+50+70+10+0 = 140; seat 3: 10+0+0+80+100 = 190.
  EXPECT_EQ(PlayD1("all_or_nothing"), (Penalties{160, 280, 140, 190}));
}

TEST(QuodlibetContracts, BribeThirtyToTheTakerTwentyToTheLowestCard) {
  // Lowest card by rank, ties to the first played:
  // T1 (winner 2) H7 by 0: 2 +30, 0 +20.  T2 (winner 1) B7 by 2: 1 +30, 2 +20.
  // T3 (winner 0) L7 by 1: 0 +30, 1 +20.  T4 (winner 0) E7 by 3: 0 +30, 3 +20.
  // T5 (winner 1) H9 by 3: 1 +30, 3 +20.  T6 (winner 1) B9 by 2: 1 +30, 2 +20.
  // T7 (winner 0) L9 by 1: 0 +30, 1 +20.  T8 (winner 3) EU by 0: 3 +30, 0 +20.
  // Seat 0: 20+30+30+30+20 = 130; seat 1: 30+20+30+30+20 = 130;
  // seat 2: 30+20+20 = 70; seat 3: 20+20+30 = 70.
  EXPECT_EQ(PlayD1("bribe", "encyclopedia"), (Penalties{130, 130, 70, 70}));
}

TEST(QuodlibetContracts, BadNeighbourBadeniaPenaltyGoesToThePreviousSeat) {
  // Seat 0's 30 -> seat 3, seat 1's 30 -> seat 0, seat 2's 10 -> seat 1,
  // seat 3's 10 -> seat 2.
  EXPECT_EQ(PlayD1("bad_neighbour"), (Penalties{30, 10, 10, 30}));
}

TEST(QuodlibetContracts, BadNeighbourEncyclopediaPenaltyGoesToTheNextSeat) {
  // Seat 0's 30 -> seat 1, seat 1's 30 -> seat 2, seat 2's 10 -> seat 3,
  // seat 3's 10 -> seat 0.
  EXPECT_EQ(PlayD1("bad_neighbour", "encyclopedia"),
            (Penalties{10, 30, 30, 10}));
}

TEST(QuodlibetContracts, GoodHuntingIsMinusWithOpenHands) {
  EXPECT_EQ(PlayD1("good_hunting"), (Penalties{30, 30, 10, 10}));
}

TEST(QuodlibetContracts, OpenTrousersIsMinusPlayedBySlot) {
  // The same cards, each played by choosing the slot that holds it.
  EXPECT_EQ(PlayD1("open_trousers"), (Penalties{30, 30, 10, 10}));
}

TEST(QuodlibetContracts, OpenTrousersNeedNotFollowSuit) {
  auto s = OneDeal("open_trousers", DeckD1());
  Play(*s, H7);
  // Seat 1 holds two Hearts but may play any of its 8 slots, e.g. BA.
  EXPECT_EQ(s->NumLegalActions(1), 8);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(s->LegalAt(i), kSlot + i);
  Play(*s, BA);
  // The row closes up: 7 slots left, the played card gone from them.
  const std::vector<int> slots = s->Slots(1);
  EXPECT_EQ(slots.size(), 7u);
  EXPECT_EQ(std::count(slots.begin(), slots.end(), BA), 0);
  // The highest card of the led suit still wins: H7, BA, HK, H8 -> seat 2.
  Play(*s, HK);
  Play(*s, H8);
  EXPECT_EQ(s->current_seat(), 2);
}

// ---------------------------------------------------------------------------
// The suits deal: seat 0 holds all Hearts, seat 1 all Bells, seat 2 all
// Leaves, seat 3 all Acorns. Seat 0 leads a Heart each trick and takes all
// eight; the others are void and discard.
std::vector<int> DeckSuits() {
  std::vector<int> d(32);
  for (int i = 0; i < 32; ++i) d[i] = i;
  return d;
}

Penalties PlaySuits(const std::string& contract, const std::vector<int>& play,
                    const std::string& ruleset = "badenia") {
  auto s = OneDeal(contract, DeckSuits(), ruleset);
  if (!s) return {-1, -1, -1, -1};
  PlayAll(*s, play);
  EXPECT_TRUE(s->IsTerminal()) << contract;
  return s->last_penalties();
}

// Trick by trick: seat 0's Heart, then a Bell, a Leaf, an Acorn of the same
// rank: H7 B7 L7 E7, H8 B8 L8 E8, ...
std::vector<int> RankByRank() {
  std::vector<int> p;
  for (int r = 0; r < 8; ++r) {
    for (int s = 0; s < 4; ++s) p.push_back(CardId(s, r));
  }
  return p;
}

TEST(QuodlibetSpecials, MinusAllEightTricksCostHundred) {
  EXPECT_EQ(PlaySuits("minus", RankByRank()), (Penalties{100, 0, 0, 0}));
  EXPECT_EQ(PlaySuits("good_hunting", RankByRank()), (Penalties{100, 0, 0, 0}));
}

TEST(QuodlibetSpecials, PlusNoTrickCostsHundred) {
  // Seat 0 took all 8: 0. The others took none: 100 each.
  EXPECT_EQ(PlaySuits("plus", RankByRank()), (Penalties{0, 100, 100, 100}));
}

TEST(QuodlibetSpecials, BadNeighbourAllTricksHundredToTheNeighbour) {
  EXPECT_EQ(PlaySuits("bad_neighbour", RankByRank()),
            (Penalties{0, 0, 0, 100}));
  EXPECT_EQ(PlaySuits("bad_neighbour", RankByRank(), "encyclopedia"),
            (Penalties{0, 100, 0, 0}));
}

TEST(QuodlibetSpecials, AlarichBothInOneTrickCostHundred) {
  // T1: HK, BO (seat 1 discards Ahmed), L7, E7 -> seat 0: 100, not 80.
  std::vector<int> play = {HK, BO, L7, E7, H7, B7, L8, E8, H8, B8, L9, E9,
                           H9, B9, L10, E10, H10, B10, LU, EU, HU, BU, LO, EO,
                           HO, BK, LK, EK, HA, BA, LA, EA};
  EXPECT_EQ(PlaySuits("alarich", play), (Penalties{100, 0, 0, 0}));
}

TEST(QuodlibetSpecials, AlarichBothInDifferentTricksCostEighty) {
  // BO in T6 and HK in T7, both to seat 0: 30 + 50.
  EXPECT_EQ(PlaySuits("alarich", RankByRank()), (Penalties{80, 0, 0, 0}));
}

TEST(QuodlibetSpecials, NoRedsAllEightHearts) {
  // badenia: 4 x 20 + 4 x 10 = 120; encyclopedia: 100 flat.
  EXPECT_EQ(PlaySuits("no_reds", RankByRank()), (Penalties{120, 0, 0, 0}));
  EXPECT_EQ(PlaySuits("no_reds", RankByRank(), "encyclopedia"),
            (Penalties{100, 0, 0, 0}));
}

TEST(QuodlibetSpecials, FirstThreeAndLastAllToOneSeat) {
  // 10 + 20 + 30 + 80 = 140; encyclopedia 10 + 20 + 30 + 50 = 110.
  EXPECT_EQ(PlaySuits("first_three_and_last", RankByRank()),
            (Penalties{140, 0, 0, 0}));
  EXPECT_EQ(PlaySuits("first_three_and_last", RankByRank(), "encyclopedia"),
            (Penalties{110, 0, 0, 0}));
}

TEST(QuodlibetSpecials, OberUnterOneOberThreeUntersIsExactlyHundred) {
  // T1: HO BU LU EU: one Ober, three Unters: 100 (not 30 + 60).
  // T2: HU BO LO EO: 100. T3..T8 hold no Ober or Unter.
  std::vector<int> play = {HO, BU, LU, EU, HU, BO, LO, EO, H7, B7, L7, E7,
                           H8, B8, L8, E8, H9, B9, L9, E9, H10, B10, L10, E10,
                           HK, BK, LK, EK, HA, BA, LA, EA};
  EXPECT_EQ(PlaySuits("ober_unter", play), (Penalties{200, 0, 0, 0}));
}

TEST(QuodlibetSpecials, OberUnterWithoutPairsCountsEachCard) {
  // T5: HU BU LU EU (four Unters) 80; T6: HO BO LO EO (four Obers) 120.
  EXPECT_EQ(PlaySuits("ober_unter", RankByRank()), (Penalties{200, 0, 0, 0}));
}

TEST(QuodlibetSpecials, AllOrNothingEverythingToOneSeat) {
  // T1 HK BO L7 E7: Alarich 100, Ober/Unter 30 (one Ober).
  // T2 HO BU L8 E8: Ober/Unter 100.  T3 HU B7 LU EU: three Unters 60.
  // T4 H7 B8 LO EO: two Obers 60.    T5..T8: nothing more.
  // Minus 100 (all tricks) + Alarich 100 + No Reds 120 + First-Three-and-
  // Last 140 + Ober/Unter 30 + 100 + 60 + 60 = 710.
  std::vector<int> play = {HK, BO, L7, E7, HO, BU, L8, E8, HU, B7, LU, EU,
                           H7, B8, LO, EO, H8, B9, L9, E9, H9, B10, L10, E10,
                           H10, BK, LK, EK, HA, BA, LA, EA};
  EXPECT_EQ(PlaySuits("all_or_nothing", play), (Penalties{710, 0, 0, 0}));
}

TEST(QuodlibetSpecials, BribeTakerWithTheLowestCardPaysHundred) {
  // T1 H7 B7 L7 E7: all Sevens, H7 first played is the lowest and wins: 100.
  // T2 HA B8 L8 E8: lowest B8 (first Eight) by seat 1: seat 0 30, seat 1 20.
  // T3..T8 (H8 B9.., H9 B10.., H10 BU.., HU BO.., HO BK.., HK BA..): seat 0's
  // Heart is the lowest each time and wins: 6 x 100.
  // Seat 0: 100 + 30 + 600 = 730; seat 1: 20.
  std::vector<int> play = {H7, B7, L7, E7, HA, B8, L8, E8, H8, B9, L9, E9,
                           H9, B10, L10, E10, H10, BU, LU, EU, HU, BO, LO, EO,
                           HO, BK, LK, EK, HK, BA, LA, EA};
  EXPECT_EQ(PlaySuits("bribe", play, "encyclopedia"),
            (Penalties{730, 20, 0, 0}));
}

TEST(QuodlibetSpecials, VoidSeatMayDiscardAnything) {
  auto s = OneDeal("minus", DeckSuits());
  Play(*s, H7);
  EXPECT_EQ(s->NumLegalActions(1), 8);  // no Hearts: any Bell
}

// ---------------------------------------------------------------------------
// Quadrature, on the D1 hands:
//   seat 0: H7 HU B8 BU LO LA E10 EU     seat 1: H10 HA L7 L9 BK BA E8 EO
//   seat 2: HK HO B7 B9 L8 L10 E9 EK     seat 3: H8 H9 BO B10 LU LK E7 EA
TEST(QuodlibetQuadrature, AdditionsCensusesAndLeaders) {
  auto s = OneDeal("quadrature", DeckD1());
  struct Lead {
    int seat, card;
  };
  // 1: 0 leads H7; H8, H9 (3), H10 (1) added: 4 cards, seat 1 leads.
  // 2: 1 leads L7; L8 (2), L9 (1), L10 (2): seat 2 leads.
  // 3: 2 leads HO; HK (2), HA (1): the Ace stops it, seat 1 leads.
  // 4: 1 leads BK; BA (1): Ace. Seat 1 leads.
  // 5: 1 leads E8; E9 (2), E10 (0), EU (0): seat 0 leads.
  // 6: 0 leads HU; HO is already played: stop. Seat 0 leads.
  // 7: 0 leads LO; LK (3), LA (0): Ace. Seat 0 leads.
  // 8: 0 leads B8; B9 (2), B10 (3), BU (0): seat 0 is out with BU: census 1:
  //    seat 1 holds EO (10), seat 2 B7 EK (20), seat 3 BO LU E7 EA (40).
  //    The seat after seat 0 that holds cards leads: seat 1.
  // 9: 1 leads EO and is out at once: census 2: seat 2 B7 EK (2 x 20 = 40),
  //    seat 3 BO LU E7 EA (4 x 20 = 80); the sequence runs on: EK (2),
  //    EA (3). Seat 2 (after seat 1) leads.
  // 10: 2 leads B7 (B8 played: stop) and is out: census 3: seat 3 holds BO
  //    LU E7 (3 x 30 = 90). The deal ends.
  const std::vector<Lead> leads = {{0, H7}, {1, L7}, {2, HO}, {1, BK},
                                   {1, E8}, {0, HU}, {0, LO}, {0, B8},
                                   {1, EO}, {2, B7}};
  for (const Lead& l : leads) {
    ASSERT_FALSE(s->IsTerminal());
    ASSERT_EQ(s->current_seat(), l.seat) << "before leading " << CardName(l.card);
    // Any held card may be led.
    EXPECT_EQ(s->NumLegalActions(l.seat),
              static_cast<int>(s->Hand(l.seat).size()));
    Play(*s, l.card);
  }
  EXPECT_TRUE(s->IsTerminal());
  EXPECT_EQ(s->last_penalties(), (Penalties{0, 10, 60, 210}));
  // The additions are forced plays (events), not decisions: 10 decisions.
  EXPECT_EQ(s->step(), 10);
  auto played = EventsOf(*s, v1::QuodlibetEvent::kPlayed);
  int forced = 0;
  for (const LoggedEvent* e : played) {
    EXPECT_TRUE(e->is_public);
    forced += e->event.quodlibet().played().forced();
  }
  // Cards played: 4+4+3+2+4+1+3+4+3+1 = 29, of which 10 led.
  EXPECT_EQ(played.size(), 29u);
  EXPECT_EQ(forced, 19);
  auto censuses = EventsOf(*s, v1::QuodlibetEvent::kCensus);
  ASSERT_EQ(censuses.size(), 3u);
  const auto& c1 = censuses[0]->event.quodlibet().census();
  EXPECT_EQ(c1.number(), 1);
  EXPECT_EQ(c1.went_out(), 0);
  EXPECT_THAT(c1.costs(), ElementsAre(0, 10, 20, 40));
  const auto& c2 = censuses[1]->event.quodlibet().census();
  EXPECT_EQ(c2.went_out(), 1);
  EXPECT_THAT(c2.costs(), ElementsAre(0, 0, 40, 80));
  const auto& c3 = censuses[2]->event.quodlibet().census();
  EXPECT_EQ(c3.went_out(), 2);
  EXPECT_THAT(c3.costs(), ElementsAre(0, 0, 0, 90));
}

// ---------------------------------------------------------------------------
// Snack. Hands: seat 0 HU H10 H9 H8; seat 1 BU LU B10 E7; seat 2 EU EO EK L10;
// seat 3 H7 B9 B8 LO. Packets: HO HK HA | B7 BO BK | L9 L8 L7 | E10 E9 E8 |
// LK LA BA | EA.
std::vector<int> DeckSnack() {
  return Concat({{HU, H10, H9, H8},
                 {BU, LU, B10, E7},
                 {EU, EO, EK, L10},
                 {H7, B9, B8, LO},
                 {HO, HK, HA, B7, BO, BK, L9, L8, L7, E10, E9, E8, LK, LA, BA,
                  EA}});
}

TEST(QuodlibetSnack, UnterRuleCensusesAndPacketsOnTheTable) {
  auto s = OneDeal("snack", DeckSnack());
  constexpr int kPickUp = QuodlibetState::kActPickUp;
  constexpr int kEndTurn = QuodlibetState::kActEndTurn;
  auto act = [&](int encoded) {
    const int i = IndexOf(*s, encoded);
    ASSERT_GE(i, 0) << "action " << encoded << " not legal";
    s->Apply({i});
  };
  EXPECT_EQ(s->packets_left(), 6);
  // Turn 1, seat 0: HU is laid out by the referee; then H10 or end turn.
  ASSERT_EQ(s->current_seat(), 0);
  EXPECT_THAT(s->Hand(0), ElementsAre(H8, H9, H10));
  ASSERT_EQ(s->NumLegalActions(0), 2);
  EXPECT_EQ(s->LegalAt(0), kCard + H10);
  EXPECT_EQ(s->LegalAt(1), kEndTurn);  // no pick-up after laying out
  act(kCard + H10);
  act(kCard + H9);
  act(kCard + H8);  // out: census 1, 4 cards x 10 for each other seat
  // Turn 2, seat 1: both Unters (BU, LU) are laid out by the referee; then
  // B10 or end turn.
  ASSERT_EQ(s->current_seat(), 1);
  EXPECT_THAT(s->Hand(1), ElementsAre(B10, E7));
  act(kEndTurn);
  // Turn 3, seat 2: EU laid by the referee; EO, L10 or end turn.
  ASSERT_EQ(s->current_seat(), 2);
  EXPECT_EQ(s->NumLegalActions(2), 3);
  act(kCard + EO);
  act(kCard + EK);
  act(kCard + L10);  // out: census 2: seat 1 B10 E7 (2 x 20), seat 3 (4 x 20)
  // Turn 4, seat 3: H7, LO or pick up.
  ASSERT_EQ(s->current_seat(), 3);
  EXPECT_EQ(s->NumLegalActions(3), 3);
  act(kPickUp);  // HO HK HA
  EXPECT_EQ(s->packets_left(), 5);
  // Turn 5, seat 1 (seat 0 and 2 are out): B10 or pick up; B10, and with
  // nothing more to lay out the turn ends by itself.
  ASSERT_EQ(s->current_seat(), 1);
  act(kCard + B10);
  // Turn 6, seat 3 lays out everything: B9 B8 H7 LO HO HK HA; out: census 3:
  // seat 1 holds E7 (30) and pays 30 for each of the 13 packet cards left.
  ASSERT_EQ(s->current_seat(), 3);
  for (int c : {B9, B8, H7, LO, HO, HK}) act(kCard + c);
  ASSERT_FALSE(s->IsTerminal());
  EXPECT_EQ(s->NumLegalActions(3), 2);  // HA or end turn
  act(kCard + HA);
  ASSERT_TRUE(s->IsTerminal());
  // Seat 0: 0. Seat 1: 40 + 40 + 30 + 390 = 500. Seat 2: 40.
  // Seat 3: 40 + 80 = 120.
  EXPECT_EQ(s->last_penalties(), (Penalties{0, 500, 40, 120}));
  auto censuses = EventsOf(*s, v1::QuodlibetEvent::kCensus);
  ASSERT_EQ(censuses.size(), 3u);
  EXPECT_THAT(censuses[0]->event.quodlibet().census().costs(),
              ElementsAre(0, 40, 40, 40));
  EXPECT_THAT(censuses[1]->event.quodlibet().census().costs(),
              ElementsAre(0, 40, 0, 80));
  EXPECT_THAT(censuses[2]->event.quodlibet().census().costs(),
              ElementsAre(0, 420, 0, 0));
  EXPECT_EQ(censuses[2]->event.quodlibet().census().packet_cards_charged(), 13);
  // The Unters were forced plays: HU, BU, LU, EU.
  std::vector<int> forced_unters;
  for (const LoggedEvent* e : EventsOf(*s, v1::QuodlibetEvent::kPlayed)) {
    const auto& p = e->event.quodlibet().played();
    if (p.forced() && RankOf(p.card()) == kUnter) forced_unters.push_back(p.card());
  }
  EXPECT_THAT(forced_unters, ElementsAre(HU, BU, LU, EU));
  // The pick-up: the picker sees the cards, the others only the count.
  auto picks = EventsOf(*s, v1::QuodlibetEvent::kPickedUp);
  ASSERT_EQ(picks.size(), 1u);
  EXPECT_EQ(picks[0]->seats_mask, 1u << 3);
  EXPECT_THAT(picks[0]->event.quodlibet().picked_up().cards(),
              ElementsAre(HO, HK, HA));
  ASSERT_TRUE(picks[0]->has_redacted);
  EXPECT_THAT(picks[0]->redacted.quodlibet().picked_up().cards(), IsEmpty());
  EXPECT_EQ(picks[0]->redacted.quodlibet().picked_up().count(), 3);
}

TEST(QuodlibetSnack, NoLayoutPossibleForcesThePickUp) {
  // Seat 0 holds no Unter and nothing can be laid: it must pick up, which
  // the referee does; seat 1 then has its turn.
  auto s = OneDeal("snack", Concat({{H7, B7, L7, E7},
                                    {HU, H8, H9, H10},
                                    {BU, B8, B9, B10},
                                    {LU, L8, L9, L10},
                                    {EU, E8, E9, E10, HO, HK, HA, BO, BK, BA,
                                     LO, LK, LA, EO, EK, EA}}));
  auto picks = EventsOf(*s, v1::QuodlibetEvent::kPickedUp);
  ASSERT_EQ(picks.size(), 1u);
  EXPECT_TRUE(picks[0]->event.quodlibet().picked_up().forced());
  EXPECT_THAT(s->Hand(0), ElementsAre(H7, B7, L7, E7, E8, E9, EU));
  // Seat 1: HU laid by the referee, then H10 or end turn.
  EXPECT_EQ(s->current_seat(), 1);
  EXPECT_THAT(s->Hand(1), ElementsAre(H8, H9, H10));
}

// The decision cap (RULINGS, common): the capping step's own consequences
// resolve (the additions of a lead, a census it triggers, a trick it
// completes, the scoring of a deal it ends), then nothing more happens;
// penalties already paid stand, also in an unfinished deal ("sofort"), but
// trick points of an unfinished deal are not scored.
TEST(QuodlibetCap, QuadratureCensusesPaidBeforeTheCapStand) {
  // The leads of AdditionsCensusesAndLeaders. Cap 8: lead 8 (B8) runs its
  // additions and seat 0 goes out: census 1 costs 0, 10, 20, 40 and stands.
  // The next lead (seat 1) never comes. Placements by total: 1, 2, 3, 4
  // (dropping the census would tie all four at 0).
  auto s = OneDeal("quadrature", DeckD1());
  s->set_decision_cap(8);
  for (int card : {H7, L7, HO, BK, E8, HU, LO, B8}) Play(*s, card);
  EXPECT_FALSE(s->IsTerminal());
  EXPECT_THAT(s->ActingSeats(), IsEmpty());
  EXPECT_EQ(EventsOf(*s, v1::QuodlibetEvent::kCensus).size(), 1u);
  EXPECT_THAT(EventsOf(*s, v1::QuodlibetEvent::kDealScored), IsEmpty());
  v1::MatchResult r = s->Result();
  EXPECT_THAT(r.scores(), ElementsAre(0, 10, 20, 40));
  EXPECT_THAT(r.placements(), ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(r.detail(), HasSubstr("censuses paid in the unfinished deal"));
  // The census is explained in the score lines.
  double seat3 = 0;
  for (const auto& l : r.score_lines()) {
    if (l.seat() == 3) seat3 += l.points();
  }
  EXPECT_EQ(seat3, 40);
}

TEST(QuodlibetCap, QuadratureLeadAtTheCapRunsItsSequenceAndCensus) {
  // Cap 9: seat 1 leads EO and is out at once: census 2 (seat 2: 2 x 20,
  // seat 3: 4 x 20); the sequence still runs: EK (seat 2), EA (seat 3).
  // Totals: seat 1 10; seat 2 20 + 40 = 60; seat 3 40 + 80 = 120.
  auto s = OneDeal("quadrature", DeckD1());
  s->set_decision_cap(9);
  for (int card : {H7, L7, HO, BK, E8, HU, LO, B8, EO}) Play(*s, card);
  EXPECT_THAT(s->ActingSeats(), IsEmpty());
  EXPECT_THAT(s->Hand(2), ElementsAre(B7));
  EXPECT_THAT(s->Hand(3), ElementsAre(BO, LU, E7));
  EXPECT_THAT(s->Result().scores(), ElementsAre(0, 10, 60, 120));
  EXPECT_THAT(s->Result().placements(), ElementsAre(1, 2, 3, 4));
}

TEST(QuodlibetCap, SnackCensusStandsAndTheNextTurnNeverStarts) {
  // DeckSnack: seat 0 lays H10, H9, H8 (steps 1-3; HU was forced) and goes
  // out at the cap: census 1 costs 4 x 10 for each other seat. Seat 1's
  // turn (its forced Unters) never starts: it still holds 4 cards.
  auto s = OneDeal("snack", DeckSnack());
  s->set_decision_cap(3);
  for (int card : {H10, H9, H8}) {
    const int i = IndexOf(*s, kCard + card);
    ASSERT_GE(i, 0);
    s->Apply({i});
  }
  EXPECT_THAT(s->ActingSeats(), IsEmpty());
  EXPECT_THAT(s->Hand(1), ElementsAre(B10, BU, LU, E7));
  EXPECT_THAT(s->Result().scores(), ElementsAre(0, 40, 40, 40));
  EXPECT_THAT(s->Result().placements(), ElementsAre(1, 2, 2, 2));
}

TEST(QuodlibetCap, TrickPointsOfAnUnfinishedDealAreNotScored) {
  // Minus on D1, cap 4: the first trick is completed and taken (seat 2,
  // with HK) but not scored; nobody leads the second. All totals 0.
  auto s = OneDeal("minus", DeckD1());
  s->set_decision_cap(4);
  PlayAll(*s, {H7, H10, HK, H8});
  EXPECT_EQ(EventsOf(*s, v1::QuodlibetEvent::kTrickTaken).size(), 1u);
  EXPECT_THAT(s->ActingSeats(), IsEmpty());
  EXPECT_THAT(s->Result().scores(), ElementsAre(0, 0, 0, 0));
  EXPECT_THAT(s->Result().placements(), ElementsAre(1, 1, 1, 1));
  // Cap 3: the trick is not complete; seat 3 never plays to it.
  auto t = OneDeal("minus", DeckD1());
  t->set_decision_cap(3);
  PlayAll(*t, {H7, H10, HK});
  EXPECT_THAT(EventsOf(*t, v1::QuodlibetEvent::kTrickTaken), IsEmpty());
  EXPECT_THAT(t->Hand(3), ElementsAre(H8, H9, B10, BO, LU, LK, E7, EA));
}

TEST(QuodlibetCap, ADealEndedAtTheCapIsScoredAndNoNewDealIsDealt) {
  // A badenia partie of one kingdom: step 1 the beer king chooses Minus,
  // steps 2-33 play D1. Step 33 completes the last trick: the deal is
  // scored (30, 30, 10, 10), and deal 2 is never dealt.
  auto game = MakeGame({{"kingdoms", "1"}});
  auto st = QuodlibetState::FromDeckOrdersForTest(*game, {DeckD1(), DeckD1()}, 1);
  ASSERT_TRUE(st.ok()) << st.status();
  QuodlibetState& s = **st;
  s.set_decision_cap(33);
  const int minus = IndexOf(s, kContract + v1::QUODLIBET_CONTRACT_MINUS);
  ASSERT_GE(minus, 0);
  s.Apply({minus});
  PlayAll(s, kD1Play);
  EXPECT_EQ(s.step(), 33);
  EXPECT_FALSE(s.IsTerminal());
  EXPECT_THAT(s.ActingSeats(), IsEmpty());
  EXPECT_EQ(EventsOf(s, v1::QuodlibetEvent::kDealScored).size(), 1u);
  EXPECT_EQ(EventsOf(s, v1::QuodlibetEvent::kDealt).size(), 1u);
  v1::MatchResult r = s.Result();
  EXPECT_THAT(r.scores(), ElementsAre(30, 30, 10, 10));
  EXPECT_THAT(r.placements(), ElementsAre(3, 3, 1, 1));
}

// ---------------------------------------------------------------------------
// Information: who sees which hand.

TEST(QuodlibetViews, OwnHandOnlyInOrdinaryContracts) {
  auto s = OneDeal("minus", DeckD1());
  v1::View view;
  s->FillView(1, &view);
  const auto& q = view.quodlibet();
  EXPECT_THAT(q.hand(), ElementsAre(H10, HA, BK, BA, L7, L9, E8, EO));
  EXPECT_THAT(q.open_hands(), IsEmpty());
  EXPECT_THAT(q.hand_sizes(), ElementsAre(8, 8, 8, 8));
  EXPECT_EQ(q.contract(), v1::QUODLIBET_CONTRACT_MINUS);
  for (const auto* e : EventsOf(*s, v1::QuodlibetEvent::kHandShown)) {
    const int seat = e->event.quodlibet().hand_shown().seat();
    EXPECT_FALSE(e->is_public);
    EXPECT_EQ(e->seats_mask, 1u << seat);
  }
  for (const auto* e : EventsOf(*s, v1::QuodlibetEvent::kDealt)) {
    EXPECT_FALSE(e->is_public);
    EXPECT_EQ(e->seats_mask, 0u);  // the record only
    EXPECT_FALSE(e->has_redacted);
  }
}

TEST(QuodlibetViews, GoodHuntingShowsEveryHandToEveryone) {
  auto s = OneDeal("good_hunting", DeckD1());
  for (int seat = 0; seat < 4; ++seat) {
    v1::View view;
    s->FillView(seat, &view);
    ASSERT_EQ(view.quodlibet().open_hands_size(), 4);
    EXPECT_THAT(view.quodlibet().open_hands(3).cards(),
                ElementsAre(H8, H9, B10, BO, LU, LK, E7, EA));
  }
  for (const auto* e : EventsOf(*s, v1::QuodlibetEvent::kHandShown)) {
    EXPECT_TRUE(e->is_public);
  }
}

TEST(QuodlibetViews, OpenTrousersHidesOnlyTheOwnHand) {
  auto s = OneDeal("open_trousers", DeckD1());
  for (int seat = 0; seat < 4; ++seat) {
    v1::View view;
    s->FillView(seat, &view);
    const auto& q = view.quodlibet();
    EXPECT_THAT(q.hand(), IsEmpty());
    EXPECT_EQ(q.hidden_slots(), 8);
    ASSERT_EQ(q.open_hands_size(), 3);
    std::set<int> seen;
    for (const auto& h : q.open_hands()) {
      EXPECT_NE(h.seat(), seat);
      // Shown in slot order.
      EXPECT_EQ(std::vector<int>(h.cards().begin(), h.cards().end()),
                s->Slots(h.seat()));
      seen.insert(h.cards().begin(), h.cards().end());
    }
    for (int c : s->Hand(seat)) EXPECT_EQ(seen.count(c), 0u);
    // Legal actions are slots, never cards.
    if (seat == s->current_seat()) {
      google::protobuf::RepeatedPtrField<v1::Action> legal;
      s->FillLegalActions(seat, &legal);
      for (const auto& a : legal) {
        EXPECT_TRUE(a.quodlibet().has_slot());
        EXPECT_FALSE(a.quodlibet().has_card());
      }
    }
  }
  for (const auto* e : EventsOf(*s, v1::QuodlibetEvent::kHandShown)) {
    const int seat = e->event.quodlibet().hand_shown().seat();
    EXPECT_EQ(e->seats_mask, 0xfu & ~(1u << seat));
    ASSERT_TRUE(e->has_redacted);
    EXPECT_THAT(e->redacted.quodlibet().hand_shown().cards(), IsEmpty());
    EXPECT_EQ(e->redacted.quodlibet().hand_shown().count(), 8);
    EXPECT_TRUE(e->redacted.quodlibet().hand_shown().face_down());
  }
}

TEST(QuodlibetViews, OpenTrousersSlotOrderComesFromTheSeed) {
  auto a = OneDeal("open_trousers", DeckD1(), "badenia", 5);
  auto b = OneDeal("open_trousers", DeckD1(), "badenia", 5);
  EXPECT_EQ(a->Slots(2), b->Slots(2));
  std::vector<int> sorted = a->Slots(2);
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, a->Hand(2));
  bool differs = false;
  for (uint64_t seed = 6; seed < 12 && !differs; ++seed) {
    differs = OneDeal("open_trousers", DeckD1(), "badenia", seed)->Slots(2) !=
              a->Slots(2);
  }
  EXPECT_TRUE(differs);
}

TEST(QuodlibetViews, SnackShowsLayoutAndPackets) {
  auto s = OneDeal("snack", DeckSnack());
  v1::View view;
  s->FillView(0, &view);
  const auto& q = view.quodlibet();
  EXPECT_THAT(q.hand(), ElementsAre(H8, H9, H10));
  ASSERT_EQ(q.rows_size(), 1);
  EXPECT_EQ(q.rows(0).suit(), v1::QUODLIBET_SUIT_HEARTS);
  EXPECT_EQ(q.rows(0).low_card(), HU);
  EXPECT_EQ(q.rows(0).high_card(), HU);
  EXPECT_EQ(q.packets_left(), 6);
  EXPECT_EQ(q.packet_cards_left(), 16);
  EXPECT_THAT(q.hand_sizes(), ElementsAre(3, 4, 4, 4));
  EXPECT_TRUE(q.laid_out_this_turn());
}

// ---------------------------------------------------------------------------
// The partie

TEST(QuodlibetPartie, BadeniaBeerKingSeesHandThenChoosesSnackLast) {
  auto game = MakeGame({{"kingdoms", "1"}});
  auto state = game->NewInitialState(3);
  auto* s = static_cast<QuodlibetState*>(state.get());
  // Deal 1: the beer king (seat 0) has seen only his own hand.
  ASSERT_EQ(s->current_seat(), 0);
  EXPECT_EQ(s->NumLegalActions(0), 11);  // every contract but Snack
  auto shown = EventsOf(*s, v1::QuodlibetEvent::kHandShown);
  ASSERT_EQ(shown.size(), 1u);
  EXPECT_EQ(shown[0]->seats_mask, 1u);
  v1::View king, other;
  s->FillView(0, &king);
  s->FillView(1, &other);
  EXPECT_EQ(king.quodlibet().hand_size(), 8);
  EXPECT_EQ(other.quodlibet().hand_size(), 0);
  EXPECT_EQ(king.quodlibet().phase(), v1::QUODLIBET_PHASE_CHOOSE_CONTRACT);
  std::vector<int> order;
  std::set<int> played;
  Rng rng(1);
  while (!s->IsTerminal()) {
    if (s->NumLegalActions(s->current_seat()) > 0 &&
        s->LegalAt(0) >= kContract && s->LegalAt(0) < kContract + 20) {
      // Choices: never Snack, never a played contract.
      for (int i = 0; i < s->NumLegalActions(0); ++i) {
        const int c = s->LegalAt(i) - kContract;
        EXPECT_NE(c, v1::QUODLIBET_CONTRACT_SNACK);
        EXPECT_EQ(played.count(c), 0u);
      }
      EXPECT_EQ(s->NumLegalActions(0), 11 - static_cast<int>(order.size()));
    }
    const int n = s->NumLegalActions(s->current_seat());
    s->Apply({static_cast<int>(rng.Uniform(n))});
    if (!s->IsTerminal() && s->contract() != 0 &&
        played.count(s->contract()) == 0) {
      played.insert(s->contract());
      order.push_back(s->contract());
    }
  }
  // The last contract forced, never chosen: Snack.
  auto chosen = EventsOf(*s, v1::QuodlibetEvent::kContractChosen);
  ASSERT_EQ(chosen.size(), 12u);
  std::set<int> all;
  for (size_t i = 0; i < chosen.size(); ++i) {
    const auto& c = chosen[i]->event.quodlibet().contract_chosen();
    all.insert(c.contract());
    EXPECT_EQ(c.beer_king(), 0);
    EXPECT_EQ(c.forced(), i >= 10) << i;  // deal 11: one left; deal 12: Snack
  }
  EXPECT_EQ(chosen[11]->event.quodlibet().contract_chosen().contract(),
            v1::QUODLIBET_CONTRACT_SNACK);
  EXPECT_EQ(all.size(), 12u);
  EXPECT_EQ(all.count(v1::QUODLIBET_CONTRACT_BRIBE), 0u);
  auto scored = EventsOf(*s, v1::QuodlibetEvent::kDealScored);
  ASSERT_EQ(scored.size(), 12u);
  // Running totals: the sum of the deals' penalties.
  Penalties sum{};
  for (const auto* e : scored) {
    for (int seat = 0; seat < 4; ++seat) {
      sum[seat] += e->event.quodlibet().deal_scored().penalties(seat);
      EXPECT_EQ(e->event.quodlibet().deal_scored().totals(seat), sum[seat]);
    }
  }
  for (int seat = 0; seat < 4; ++seat) EXPECT_EQ(s->total(seat), sum[seat]);
  const v1::MatchResult r = s->Result();
  EXPECT_EQ(r.end_reason(), v1::END_REASON_NORMAL);
  EXPECT_EQ(r.score_lines_size(), 48);
  for (int seat = 0; seat < 4; ++seat) {
    double lines = 0;
    for (const auto& l : r.score_lines()) {
      if (l.seat() == seat) lines += l.points();
    }
    EXPECT_EQ(lines, r.scores(seat));
    EXPECT_EQ(r.scores(seat), sum[seat]);
  }
}

TEST(QuodlibetPartie, EncyclopediaWheelByWheelWheelThreeBeforeTheDeal) {
  auto game = MakeGame({{"ruleset", "encyclopedia"}, {"kingdoms", "1"}});
  auto state = game->NewInitialState(8);
  auto* s = static_cast<QuodlibetState*>(state.get());
  Rng rng(2);
  while (!s->IsTerminal()) {
    const int seat = s->current_seat();
    if (s->LegalAt(0) >= kContract && s->LegalAt(0) < kContract + 20) {
      const int wheel = s->deal() / 4 + 1;
      for (int i = 0; i < s->NumLegalActions(seat); ++i) {
        EXPECT_EQ(WheelOf(static_cast<Contract>(s->LegalAt(i) - kContract)),
                  wheel);
      }
      v1::View view;
      s->FillView(seat, &view);
      if (wheel == 3) {
        EXPECT_EQ(view.quodlibet().hand_size(), 0) << "wheel 3: not yet dealt";
        EXPECT_THAT(view.quodlibet().hand_sizes(), ElementsAre(0, 0, 0, 0));
      } else {
        EXPECT_EQ(view.quodlibet().hand_size(), 8);
      }
    }
    s->Apply({static_cast<int>(rng.Uniform(s->NumLegalActions(seat)))});
  }
  auto chosen = EventsOf(*s, v1::QuodlibetEvent::kContractChosen);
  ASSERT_EQ(chosen.size(), 12u);
  for (size_t i = 0; i < 12; ++i) {
    const auto& c = chosen[i]->event.quodlibet().contract_chosen();
    EXPECT_EQ(WheelOf(c.contract()), static_cast<int>(i / 4 + 1));
    // The fourth of each wheel is the one left: forced. Wheel 3 has three
    // contracts to choose from (Snack is last), so its third is forced too.
    const bool forced = i % 4 == 3 || i == 10;
    EXPECT_EQ(c.forced(), forced) << i;
    EXPECT_EQ(c.before_deal(), i >= 8 || forced) << i;
  }
  EXPECT_EQ(chosen[11]->event.quodlibet().contract_chosen().contract(),
            v1::QUODLIBET_CONTRACT_SNACK);
}

TEST(QuodlibetPartie, SeatKIsBeerKingOfKingdomK) {
  auto game = MakeGame({{"contract", "minus"}});
  auto state = game->NewInitialState(4);
  auto* s = static_cast<QuodlibetState*>(state.get());
  Rng rng(3);
  std::vector<int> first_leaders;
  int last_kingdom = -1;
  while (!s->IsTerminal()) {
    if (s->kingdom() != last_kingdom) {
      last_kingdom = s->kingdom();
      first_leaders.push_back(s->current_seat());
    }
    s->Apply({static_cast<int>(
        rng.Uniform(s->NumLegalActions(s->current_seat())))});
  }
  EXPECT_THAT(first_leaders, ElementsAre(0, 1, 2, 3));
  // A fixed contract: 4 deals, no choice decisions, every choice forced.
  auto chosen = EventsOf(*s, v1::QuodlibetEvent::kContractChosen);
  ASSERT_EQ(chosen.size(), 4u);
  for (const auto* e : chosen) {
    EXPECT_TRUE(e->event.quodlibet().contract_chosen().forced());
    EXPECT_EQ(e->event.quodlibet().contract_chosen().contract(),
              v1::QUODLIBET_CONTRACT_MINUS);
  }
  EXPECT_EQ(s->step(), 4 * 32);
}

TEST(QuodlibetPartie, RandomPartiesFinishWithConservedCards) {
  for (const char* ruleset : {"badenia", "encyclopedia"}) {
    auto game = MakeGame({{"ruleset", ruleset}});
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      auto state = game->NewInitialState(seed);
      Rng rng(seed);
      int guard = 0;
      while (!state->IsTerminal() && guard < 20000) {
        const int seat = state->ActingSeats()[0];
        state->Apply({static_cast<int>(
            rng.Uniform(state->NumLegalActions(seat)))});
        ++guard;
      }
      ASSERT_TRUE(state->IsTerminal()) << ruleset << " seed " << seed;
      EXPECT_LT(guard, QuodlibetInfo().default_decision_cap / 4);
      EXPECT_EQ(EventsOf(*state, v1::QuodlibetEvent::kDealScored).size(), 48u);
      auto r = state->Result();
      EXPECT_EQ(r.score_lines_size(), 48 * 4);
    }
  }
}

// ---------------------------------------------------------------------------
// Options

TEST(QuodlibetOptions, BadOptionsAreRefusedWithClearErrors) {
  auto bad = [](const Options& o, int seats = 4) {
    auto g = CreateQuodlibet(o, seats);
    EXPECT_FALSE(g.ok());
    return g.ok() ? std::string() : std::string(g.status().message());
  };
  EXPECT_THAT(bad({}, 3), HasSubstr("3 seats is not allowed (exactly 4)"));
  EXPECT_THAT(bad({{"ruleset", "vienna"}}),
              HasSubstr("ruleset=vienna must be one of badenia, encyclopedia"));
  EXPECT_THAT(bad({{"kingdoms", "5"}}),
              HasSubstr("kingdoms=5 must be a whole number from 1 to 4"));
  EXPECT_THAT(bad({{"kingdoms", "0"}}), HasSubstr("kingdoms=0"));
  EXPECT_THAT(bad({{"contract", "bribe"}}),
              HasSubstr("contract=bribe is not a contract of ruleset badenia"));
  EXPECT_THAT(bad({{"contract", "all_or_nothing"}, {"ruleset", "encyclopedia"}}),
              HasSubstr("not a contract of ruleset encyclopedia"));
  EXPECT_THAT(bad({{"contract", "poker"}}), HasSubstr("contract=poker"));
  EXPECT_THAT(bad({{"trumps", "hearts"}}), HasSubstr("unknown option 'trumps'"));
  EXPECT_TRUE(CreateQuodlibet({{"contract", "bribe"}, {"ruleset", "encyclopedia"}}, 4).ok());
  EXPECT_TRUE(CreateQuodlibet({{"kingdoms", "2"}}, 4).ok());
}

TEST(QuodlibetOptions, GameInfoAndRules) {
  const GameInfo& info = QuodlibetInfo();
  EXPECT_EQ(info.name, "quodlibet");
  EXPECT_EQ(info.min_seats, 4);
  EXPECT_EQ(info.max_seats, 4);
  EXPECT_FALSE(info.higher_score_wins);
  auto game = MakeGame({{"ruleset", "encyclopedia"}});
  v1::QuodlibetRules rules;
  game->FillRules(&rules);
  ASSERT_EQ(rules.cards_size(), 32);
  EXPECT_EQ(rules.cards(HK).name(), "Hearts King");
  EXPECT_EQ(rules.cards(BO).name(), "Bells Ober");
  EXPECT_EQ(rules.cards(EA).suit(), v1::QUODLIBET_SUIT_ACORNS);
  EXPECT_EQ(rules.cards(L7).rank(), v1::QUODLIBET_RANK_SEVEN);
  EXPECT_EQ(rules.contracts_size(), 12);
  ASSERT_EQ(rules.wheels_size(), 3);
  EXPECT_THAT(rules.wheels(2).contracts(),
              ElementsAre(v1::QUODLIBET_CONTRACT_OPEN_TROUSERS,
                          v1::QUODLIBET_CONTRACT_GOOD_HUNTING,
                          v1::QUODLIBET_CONTRACT_QUADRATURE,
                          v1::QUODLIBET_CONTRACT_SNACK));
  EXPECT_EQ(rules.deals_per_kingdom(), 12);
  v1::Rules from_state;
  game->NewInitialState(9)->FillRules(&from_state);
  EXPECT_EQ(from_state.quodlibet().SerializeAsString(),
            rules.SerializeAsString());
}

}  // namespace
}  // namespace quodlibet
}  // namespace arena

// Game-specific checks moved from the former quodlibet_no_leak_test.cc and
// quodlibet_record_test.cc; the generic ones (no leak, records, cap,
// determinism) run for every game in tests/conformance_test.cc.
namespace arena {
namespace {

using ::testing::HasSubstr;

const std::set<std::string> kNoLeakCardFields = {"card",       "cards",
                                                 "hand",       "played_cards",
                                                 "low_card",   "high_card",
                                                 "packet_cards"};

testing::LocalMatch PlayOne(const Options& o, uint64_t seed,
                            v1::AutoMoves auto_moves = v1::AUTO_MOVES_SINGLE) {
  auto game = CreateGame("quodlibet", o, 4);
  EXPECT_TRUE(game.ok()) << game.status();
  MatchSpec spec;
  spec.match_id = "q" + std::to_string(seed);
  spec.game_name = "quodlibet";
  spec.options = o;
  spec.seed = seed;
  spec.auto_moves = auto_moves;
  return testing::PlayLocal(**game, spec, testing::RandomPolicy(seed * 31));
}

// Moved from the former quodlibet_no_leak_test.cc (the generic no-leak checks
// are in tests/conformance_test.cc): in Open Trousers a seat's own cards
// really are absent from everything it is sent, while the others' are present.
TEST(QuodlibetNoLeak, OpenTrousersOwnCardsNeverReachTheSeat) {
  auto game = quodlibet::QuodlibetGame::Create(
      {{"contract", "open_trousers"}, {"kingdoms", "1"}}, 4);
  ASSERT_TRUE(game.ok());
  auto state = (*game)->NewInitialState(77);
  auto* s = static_cast<quodlibet::QuodlibetState*>(state.get());
  Rng rng(7);
  int checked = 0;
  while (!s->IsTerminal()) {
    const int seat = s->current_seat();
    const std::vector<int> hand = s->Hand(seat);
    const std::set<int> own(hand.begin(), hand.end());
    v1::DecisionRequest req;
    s->FillView(seat, req.mutable_view());
    s->FillLegalActions(seat, req.mutable_legal_actions());
    for (const LoggedEvent& e : s->events()) {
      if (const v1::Event* ev = EventForSeat(e, seat)) *req.mutable_view()->add_events() = *ev;
    }
    std::vector<int> cards;
    testing::CollectInts(req, kNoLeakCardFields, &cards);
    int others = 0;
    for (int c : cards) {
      EXPECT_EQ(own.count(c), 0u) << "own card " << c << " sent to seat " << seat;
      others += 1;
    }
    EXPECT_GT(others, 0);
    ++checked;
    s->Apply({static_cast<int>(rng.Uniform(s->NumLegalActions(seat)))});
  }
  EXPECT_EQ(checked, 32);
}

// Moved from the former quodlibet_record_test.cc.
TEST(QuodlibetRecords, ChangedSlotOrderOrActionIsCaught) {
  auto lines = testing::ParseOrFail(PlayOne({{"contract", "open_trousers"}}, 5,
                             v1::AUTO_MOVES_NONE).record_lines);
  ASSERT_TRUE(VerifyRecord(lines, "t").ok());
  // Swap two slots of a hand shown face up to the others.
  auto changed = lines;
  bool done = false;
  for (auto& l : changed) {
    if (!l.has_event()) continue;
    auto* e = l.mutable_event()->mutable_event()->mutable_quodlibet();
    if (e->has_hand_shown() && e->hand_shown().cards_size() > 1) {
      auto* cards = e->mutable_hand_shown()->mutable_cards();
      std::swap(*cards->Mutable(0), *cards->Mutable(1));
      done = true;
      break;
    }
  }
  ASSERT_TRUE(done);
  EXPECT_THAT(VerifyRecord(changed, "t").message(), HasSubstr("event differs"));
  // Another slot played.
  changed = lines;
  for (auto& l : changed) {
    if (l.has_decision() && l.decision().step() == 3) {
      auto* a = l.mutable_decision()->mutable_actions(0);
      a->set_action(a->action() == 0 ? 1 : 0);
      break;
    }
  }
  EXPECT_FALSE(VerifyRecord(changed, "t").ok());
}

}  // namespace
}  // namespace arena
