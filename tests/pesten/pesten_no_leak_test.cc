// Pesten's no-leak property: no message sent to a seat holds a card that seat
// may not know, over many matches through the real match runner (the code
// that feeds the gRPC service), with every seat count and Joker count.
//
// What a seat may know is worked out here from the record's full events and
// the rules, independently of the engine's visibility marks: in a round, a
// seat knows the cards it was dealt, the cards it drew, the card it passed
// and the card it received in a 10's pass, and every card turned up or
// played. Knowledge of a round's cards ends with the round (all cards are
// reshuffled), so the view and the legal actions are checked against this
// round's knowledge; the events in a request, which may reach back into the
// previous round, against everything the seat has seen so far. Besides, no
// message may show the deck order, another seat's hand, the cards another
// seat drew, or a pass between two other seats; legal cards must lie in the
// seat's own hand; and simultaneous requests come only in the 10's pass.
#include <algorithm>
#include <set>

#include "bots/pesten/policy.h"
#include "gtest/gtest.h"
#include "referee/record.h"
#include "tests/test_util.h"

namespace arena {
namespace {

using testing::CollectInts;

struct Knowledge {
  explicit Knowledge(int n) : round(n), ever(n) {}
  std::vector<std::set<int>> round;  // this round's
  std::vector<std::set<int>> ever;   // since the match began
  int current_round = -1;
  testing::RecordFollower follower;
  int passes_seen = 0;

  void Know(int seat, int card) {
    round[seat].insert(card);
    ever[seat].insert(card);
  }
  void Everyone(int card) {
    for (size_t s = 0; s < round.size(); ++s) Know(static_cast<int>(s), card);
  }

  void Learn(const v1::RecordedEvent& re) {
    const v1::PestenEvent& e = re.event().pesten();
    switch (e.kind_case()) {
      case v1::PestenEvent::kDeal:
        if (e.deal().round() != current_round) {
          current_round = e.deal().round();
          for (auto& k : round) k.clear();
        }
        for (const auto& h : e.deal().hands()) {
          for (int c : h.cards()) Know(h.seat(), c);
        }
        break;
      case v1::PestenEvent::kStartCard:
        Everyone(e.start_card().card());
        break;
      case v1::PestenEvent::kPlayed:
        Everyone(e.played().card());
        break;
      case v1::PestenEvent::kDrew:
        for (int c : e.drew().cards()) Know(e.drew().seat(), c);
        break;
      case v1::PestenEvent::kCardPassed:
        EXPECT_TRUE(e.card_passed().has_card()) << "record lacks a passed card";
        Know(e.card_passed().from_seat(), e.card_passed().card());
        Know(e.card_passed().to_seat(), e.card_passed().card());
        ++passes_seen;
        break;
      default:
        break;
    }
  }

  void CatchUp(const std::vector<std::string>& lines) {
    follower.CatchUp(lines, [this](const v1::RecordedEvent& e) { Learn(e); });
  }
};

// Structural checks on one event as a seat received it.
void CheckEventForSeat(const v1::Event& ev, int seat, const std::string& where) {
  const v1::PestenEvent& e = ev.pesten();
  if (e.has_deal()) {
    EXPECT_TRUE(e.deal().deck().empty()) << where << ": deck order sent";
    for (const auto& h : e.deal().hands()) {
      EXPECT_EQ(h.seat(), seat) << where << ": another seat's hand";
    }
  }
  if (e.has_start_card()) {
    EXPECT_TRUE(e.start_card().deck().empty()) << where << ": deck order sent";
  }
  if (e.has_reshuffled()) {
    EXPECT_TRUE(e.reshuffled().deck().empty()) << where << ": deck order sent";
  }
  if (e.has_drew() && e.drew().seat() != seat) {
    EXPECT_TRUE(e.drew().cards().empty())
        << where << ": cards drawn by seat " << e.drew().seat();
  }
  if (e.has_card_passed()) {
    const auto& p = e.card_passed();
    EXPECT_EQ(p.has_card(), p.from_seat() == seat || p.to_seat() == seat)
        << where << ": a pass between seats " << p.from_seat() << " and "
        << p.to_seat();
  }
}

struct Config {
  int seats;
  Options options;
};

TEST(PestenNoLeak, NoSeatIsSentACardItMayNotKnow) {
  int matches = 0, rounds_played = 0, passes = 0, simultaneous = 0;
  int64_t messages = 0, card_refs = 0;
  for (int seats = 2; seats <= 6; ++seats) {
    for (int jokers : {0, 2, 4}) {
      Options o{{"jokers", std::to_string(jokers)}};
      auto game = CreateGame("pesten", o, seats);
      ASSERT_TRUE(game.ok()) << game.status();
      for (int i = 0; i < 24; ++i) {  // 15 configurations x 24 = 360 matches
        const uint64_t seed = DeriveSeed(seats * 1000 + jokers * 100 + i, 31);
        Knowledge k(seats);
        RecordWriter* writer = nullptr;
        bool failed = false;
        auto tap = [&](int seat, const google::protobuf::Message& m) {
          if (failed) return;
          k.CatchUp(writer->lines());
          ++messages;
          const std::string where = "seed " + std::to_string(seed) + " seat " +
                                    std::to_string(seat) + " " +
                                    m.GetDescriptor()->name();
          const auto* req = dynamic_cast<const v1::DecisionRequest*>(&m);
          if (req == nullptr) return;
          const v1::PestenView& v = req->view().pesten();
          for (const auto& ev : req->view().events()) {
            CheckEventForSeat(ev, seat, where);
            std::vector<int> cards;
            CollectInts(ev, {"card", "cards", "hand", "deck"}, &cards);
            card_refs += cards.size();
            for (int c : cards) {
              if (!k.ever[seat].count(c)) {
                ADD_FAILURE() << where << ": event card " << c
                              << " never known to this seat: "
                              << ev.ShortDebugString();
                failed = true;
              }
            }
          }
          // The view's cards and the legal cards: this round's knowledge.
          std::vector<int> now;
          CollectInts(v, {"hand", "top_card"}, &now);
          for (const auto& a : req->legal_actions()) {
            if (a.pesten().kind() == v1::PESTEN_ACTION_KIND_PLAY ||
                a.pesten().kind() == v1::PESTEN_ACTION_KIND_PASS_CARD) {
              now.push_back(a.pesten().card());
              EXPECT_NE(std::find(v.hand().begin(), v.hand().end(),
                                  a.pesten().card()),
                        v.hand().end())
                  << where << ": a legal card not in the hand";
            }
          }
          card_refs += now.size();
          for (int c : now) {
            if (!k.round[seat].count(c)) {
              ADD_FAILURE() << where << ": card " << c
                            << " is not known to this seat in round "
                            << k.current_round << ": "
                            << req->ShortDebugString();
              failed = true;
            }
          }
          EXPECT_EQ(v.hand_sizes_size(), seats) << where;
          EXPECT_EQ(v.hand_sizes(seat), v.hand_size()) << where;
          if (req->simultaneous()) {
            ++simultaneous;
            EXPECT_EQ(v.phase(), v1::PESTEN_PHASE_PASS) << where;
          }
          if (::testing::Test::HasFailure()) failed = true;
        };
        // Half the seats play the heuristic policy, so that rounds end and
        // every phase (wins, new deals, passes) is met; the rest at random.
        auto random = testing::RandomPolicy(seed ^ 5);
        auto policy = [&](int seat, const v1::MatchStart& start,
                          const v1::DecisionRequest& r) {
          if ((seat + i) % 2 == 0) return random(seat, start, r);
          return bots::ChoosePestenAction(start.rules().pesten(), r);
        };
        MatchSpec spec;
        spec.game_name = "pesten";
        spec.options = o;
        spec.seed = seed;
        spec.auto_moves = i % 2 ? v1::AUTO_MOVES_NONE : v1::AUTO_MOVES_SINGLE;
        spec.decision_cap = 3000;
        auto m = testing::PlayLocal(**game, spec, policy, tap, &writer);
        ++matches;
        rounds_played += k.current_round + 1;
        passes += k.passes_seen;
        if (failed) return;
      }
    }
  }
  std::printf("%d matches, %d rounds, %d cards passed, %d simultaneous "
              "requests, %lld messages, %lld card references\n",
              matches, rounds_played, passes, simultaneous,
              static_cast<long long>(messages),
              static_cast<long long>(card_refs));
  EXPECT_EQ(matches, 360);
  EXPECT_GT(rounds_played, matches);  // matches of several rounds were seen
  EXPECT_GT(passes, 0);
  EXPECT_GT(simultaneous, 0);
  EXPECT_GT(card_refs, messages);  // the check saw real content
}

}  // namespace
}  // namespace arena
