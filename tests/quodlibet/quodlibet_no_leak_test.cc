// Quodlibet's information rules as a property over many random matches,
// through the real match runner: no message sent to a seat holds a card that
// seat may not know at that moment.
//
// What a seat may know is worked out here from the record's full events and
// the rules, not from the engine's visibility marks. Within a deal (cards come
// back every deal, so knowledge is kept per deal):
// - a beer king who chooses after the deal knows his hand from the deal on;
// - once the contract is set and the cards are dealt: in Good Hunting every
//   seat knows every hand; in Open Trousers every seat knows the other three
//   hands and NOT its own; otherwise every seat knows its own hand;
// - every card played, led, added or laid out is known to all;
// - a Snack packet's cards are known to the seat that picks it up.
// The cards still hidden face down (a seat's own cards in Open Trousers, the
// other hands in other contracts, packets on the table) must never appear.
// Besides, no seat is ever sent the record-only deal, another seat's hidden
// hand, or another seat's picked-up cards.
#include <algorithm>
#include <array>
#include <set>

#include "gtest/gtest.h"
#include "referee/games/quodlibet/quodlibet.h"
#include "referee/record.h"
#include "tests/test_util.h"

namespace arena {
namespace {

using testing::CollectInts;
using v1::QuodlibetEvent;

const std::set<std::string> kCardFields = {"card",       "cards",
                                           "hand",       "played_cards",
                                           "low_card",   "high_card",
                                           "packet_cards"};

struct DealKnowledge {
  std::array<std::set<int>, 4> known;
  int beer_king = 0;
  int contract = 0;
  bool dealt = false;
  std::array<std::vector<int>, 4> hands;
};

class Knowledge {
 public:
  int current_deal() const { return static_cast<int>(deals_.size()) - 1; }
  const DealKnowledge& deal(int i) const { return deals_[i]; }
  int open_trousers_deals = 0, good_hunting_deals = 0, snack_pickups = 0;

  void Learn(const v1::RecordedEvent& re) {
    const QuodlibetEvent& e = re.event().quodlibet();
    switch (e.kind_case()) {
      case QuodlibetEvent::kDealStarted:
        deals_.emplace_back();
        deals_.back().beer_king = e.deal_started().beer_king();
        break;
      case QuodlibetEvent::kDealt: {
        DealKnowledge& d = deals_.back();
        d.dealt = true;
        for (const auto& h : e.dealt().hands()) {
          d.hands[h.seat()].assign(h.cards().begin(), h.cards().end());
        }
        if (d.contract != 0) {
          Reveal(&d);
        } else {
          // He deals, looks at his hand, then chooses.
          d.known[d.beer_king].insert(d.hands[d.beer_king].begin(),
                                      d.hands[d.beer_king].end());
        }
        break;
      }
      case QuodlibetEvent::kContractChosen: {
        DealKnowledge& d = deals_.back();
        d.contract = e.contract_chosen().contract();
        if (d.contract == v1::QUODLIBET_CONTRACT_OPEN_TROUSERS) {
          ++open_trousers_deals;
        }
        if (d.contract == v1::QUODLIBET_CONTRACT_GOOD_HUNTING) {
          ++good_hunting_deals;
        }
        if (d.dealt) Reveal(&d);
        break;
      }
      case QuodlibetEvent::kPlayed:
        for (auto& k : deals_.back().known) k.insert(e.played().card());
        break;
      case QuodlibetEvent::kTrickTaken:
        break;  // its cards were played before
      case QuodlibetEvent::kPickedUp:
        ++snack_pickups;
        deals_.back().known[e.picked_up().seat()].insert(
            e.picked_up().cards().begin(), e.picked_up().cards().end());
        break;
      default:
        break;
    }
  }

  void CatchUp(const std::vector<std::string>& lines) {
    std::vector<std::string> fresh(lines.begin() + lines_seen_, lines.end());
    lines_seen_ = lines.size();
    auto parsed = ParseRecordLines(fresh, "record");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    for (const auto& l : *parsed) {
      if (l.has_event()) Learn(l.event());
    }
  }

 private:
  static void Reveal(DealKnowledge* d) {
    for (int seat = 0; seat < 4; ++seat) {
      for (int owner = 0; owner < 4; ++owner) {
        bool sees;
        switch (d->contract) {
          case v1::QUODLIBET_CONTRACT_GOOD_HUNTING:
            sees = true;
            break;
          case v1::QUODLIBET_CONTRACT_OPEN_TROUSERS:
            sees = owner != seat;
            break;
          default:
            sees = owner == seat;
        }
        if (sees) {
          d->known[seat].insert(d->hands[owner].begin(), d->hands[owner].end());
        }
      }
    }
  }
  std::vector<DealKnowledge> deals_;
  size_t lines_seen_ = 0;
};

void CheckEventShape(const v1::Event& ev, int seat, int contract,
                     const std::string& where) {
  const QuodlibetEvent& e = ev.quodlibet();
  EXPECT_FALSE(e.has_dealt()) << where << ": the record-only deal was sent";
  if (e.has_hand_shown()) {
    const auto& h = e.hand_shown();
    const bool own = h.seat() == seat;
    if (contract == v1::QUODLIBET_CONTRACT_OPEN_TROUSERS) {
      if (own) {
        EXPECT_TRUE(h.cards().empty()) << where << ": own OT hand";
      }
    } else if (contract != v1::QUODLIBET_CONTRACT_GOOD_HUNTING && !own) {
      EXPECT_TRUE(h.cards().empty()) << where << ": seat " << h.seat()
                                     << "'s hand";
    }
  }
  if (e.has_picked_up() && e.picked_up().seat() != seat) {
    EXPECT_TRUE(e.picked_up().cards().empty())
        << where << ": cards picked up by seat " << e.picked_up().seat();
  }
}

struct Config {
  Options options;
  int seeds;
};

std::vector<Config> Grid() {
  std::vector<Config> grid;
  for (const char* ruleset : {"badenia", "encyclopedia"}) {
    grid.push_back({{{"ruleset", ruleset}}, 6});  // whole parties
    for (quodlibet::Contract c :
         quodlibet::ContractsOf(std::string(ruleset) == "badenia"
                                    ? v1::QUODLIBET_RULESET_BADENIA
                                    : v1::QUODLIBET_RULESET_ENCYCLOPEDIA)) {
      grid.push_back({{{"ruleset", ruleset},
                       {"contract", quodlibet::ContractOptionName(c)}},
                      12});
    }
  }
  return grid;
}

TEST(QuodlibetNoLeak, NoSeatIsSentACardItMayNotKnow) {
  int matches = 0;
  int64_t messages = 0, card_refs = 0, ot_deals = 0, gh_deals = 0,
          pickups = 0;
  for (const Config& c : Grid()) {
    auto game = CreateGame("quodlibet", c.options, 4);
    ASSERT_TRUE(game.ok()) << game.status();
    for (int i = 0; i < c.seeds; ++i) {
      const uint64_t seed = DeriveSeed(1000 + i, matches);
      Knowledge k;
      RecordWriter* writer = nullptr;
      bool failed = false;
      std::array<int, 4> seat_deal = {-1, -1, -1, -1};  // deal at its last request
      auto tap = [&](int seat, const google::protobuf::Message& m) {
        if (failed) return;
        const auto* req = dynamic_cast<const v1::DecisionRequest*>(&m);
        if (req == nullptr) return;
        k.CatchUp(writer->lines());
        ++messages;
        const std::string where = "seed " + std::to_string(seed) + " seat " +
                                  std::to_string(seat) + " step " +
                                  std::to_string(req->step());
        auto check = [&](const google::protobuf::Message& part, int deal,
                         const std::string& what) {
          std::vector<int> cards;
          CollectInts(part, kCardFields, &cards);
          card_refs += cards.size();
          const auto& known = k.deal(deal).known[seat];
          for (int card : cards) {
            if (!known.count(card)) {
              ADD_FAILURE() << where << " " << what << ": card " << card
                            << " is not known to this seat; "
                            << part.ShortDebugString();
              failed = true;
            }
          }
        };
        // Events: each against the knowledge of its own deal.
        int deal = seat_deal[seat];
        for (const auto& ev : req->view().events()) {
          if (ev.quodlibet().has_deal_started()) ++deal;
          deal = std::max(0, std::min(deal, k.current_deal()));
          CheckEventShape(ev, seat, k.deal(deal).contract, where);
          check(ev, deal, "event");
        }
        seat_deal[seat] = k.current_deal();
        // The view and the legal actions: the current deal.
        const int now = k.current_deal();
        v1::DecisionRequest rest = *req;
        rest.mutable_view()->clear_events();
        check(rest, now, "view/actions");
        const auto& q = req->view().quodlibet();
        if (q.contract() == v1::QUODLIBET_CONTRACT_OPEN_TROUSERS) {
          EXPECT_TRUE(q.hand().empty()) << where;
          for (const auto& a : req->legal_actions()) {
            EXPECT_FALSE(a.quodlibet().has_card()) << where;
          }
        }
        if (::testing::Test::HasFailure()) failed = true;
      };
      MatchSpec spec;
      spec.game_name = "quodlibet";
      spec.options = c.options;
      spec.seed = seed;
      spec.auto_moves = i % 2 ? v1::AUTO_MOVES_NONE : v1::AUTO_MOVES_SINGLE;
      auto m = testing::PlayLocal(**game, spec, testing::RandomPolicy(seed ^ 5),
                                  tap, &writer);
      EXPECT_EQ(m.outcome.result.end_reason(), v1::END_REASON_NORMAL);
      ++matches;
      ot_deals += k.open_trousers_deals;
      gh_deals += k.good_hunting_deals;
      pickups += k.snack_pickups;
      if (failed) return;
    }
  }
  EXPECT_EQ(matches, 2 * (6 + 12 * 12));
  EXPECT_GT(card_refs, messages);  // the check saw real content
  // The special information rules were exercised.
  EXPECT_GT(ot_deals, 100);
  EXPECT_GT(gh_deals, 100);
  EXPECT_GT(pickups, 100);
}

// The property test's knowledge is not vacuous: in Open Trousers a seat's own
// cards really are absent from everything it is sent, while the others'
// cards are present.
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
    CollectInts(req, kCardFields, &cards);
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

}  // namespace
}  // namespace arena
