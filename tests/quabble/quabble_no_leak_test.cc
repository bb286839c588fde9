// Quabble: no message sent to a seat holds a card that seat may not know,
// and no seat learns another's claim before the reveal. A property over
// thousands of random matches, 2 to 6 seats, through the real match runner.
//
// What a seat may know is worked out here from the record's full events and
// the rules, independently of the engine's visibility marks: a seat knows the
// cards it was dealt, the cards it drew, and every card offered (offers are
// face up; every card in a treasury, shared or in the King's treasury was
// offered first). Every card id in every message sent to a seat must be one
// it knows at that moment. Besides: no message shows the deck order or
// another seat's hand or draws, and a claim request carries no claim of the
// round being decided.
#include <set>

#include "gtest/gtest.h"
#include "referee/record.h"
#include "tests/test_util.h"

namespace arena {
namespace {

using testing::CollectInts;

// Every field of the Quabble messages that holds a card id.
const std::set<std::string> kCardFields = {"card",  "cards",     "hand",
                                           "deck",  "snatcher",  "snatch_card"};

struct Knowledge {
  explicit Knowledge(int n) : known(n) {}
  std::vector<std::set<int>> known;
  int reveals = 0;  // reveal events in the record so far
  testing::RecordFollower follower;

  void Learn(const v1::RecordedEvent& re) {
    const v1::QuabbleEvent& e = re.event().quabble();
    switch (e.kind_case()) {
      case v1::QuabbleEvent::kDeal:
        for (const auto& h : e.deal().hands()) {
          known[h.seat()].insert(h.cards().begin(), h.cards().end());
        }
        break;
      case v1::QuabbleEvent::kOffered:
        for (auto& k : known) k.insert(e.offered().card());
        break;
      case v1::QuabbleEvent::kDrew:
        known[e.drew().seat()].insert(e.drew().cards().begin(),
                                      e.drew().cards().end());
        break;
      case v1::QuabbleEvent::kReveal:
        ++reveals;
        break;
      default:
        break;
    }
  }

  void CatchUp(const std::vector<std::string>& lines) {
    follower.CatchUp(lines, [this](const v1::RecordedEvent& e) { Learn(e); });
  }
};

void CheckEventForSeat(const v1::Event& ev, int seat, const std::string& where) {
  const v1::QuabbleEvent& e = ev.quabble();
  if (e.has_deal()) {
    EXPECT_TRUE(e.deal().deck().empty()) << where << ": deck order sent";
    for (const auto& h : e.deal().hands()) {
      EXPECT_EQ(h.seat(), seat) << where << ": another seat's hand";
    }
  }
  if (e.has_drew() && e.drew().seat() != seat) {
    EXPECT_TRUE(e.drew().cards().empty())
        << where << ": the card drawn by seat " << e.drew().seat();
  }
}

TEST(QuabbleNoLeak, NoSeatIsSentACardOrAClaimItMayNotKnow) {
  int matches = 0;
  int64_t messages = 0, card_refs = 0, claim_requests = 0;
  for (int seats = 2; seats <= 6; ++seats) {
    auto game = CreateGame("quabble", {}, seats);
    ASSERT_TRUE(game.ok()) << game.status();
    for (int i = 0; i < 300; ++i) {  // 5 seat counts x 300 = 1500 matches
      const uint64_t seed = DeriveSeed(seats * 1000 + i, 91);
      Knowledge k(seats);
      RecordWriter* writer = nullptr;
      bool failed = false;
      auto tap = [&](int seat, const google::protobuf::Message& m) {
        if (failed) return;
        k.CatchUp(writer->lines());
        ++messages;
        const std::string where = "seats " + std::to_string(seats) + " seed " +
                                  std::to_string(seed) + " seat " +
                                  std::to_string(seat) + " " +
                                  m.GetDescriptor()->name();
        std::vector<int> cards;
        CollectInts(m, kCardFields, &cards);
        if (const auto* req = dynamic_cast<const v1::DecisionRequest*>(&m)) {
          for (const auto& ev : req->view().events()) {
            CheckEventForSeat(ev, seat, where);
          }
          const v1::QuabbleView& v = req->view().quabble();
          if (v.phase() == v1::QUABBLE_PHASE_CLAIM) {
            ++claim_requests;
            EXPECT_TRUE(req->simultaneous()) << where;
            // Claims known: exactly those of the rounds already revealed.
            EXPECT_EQ(k.reveals, v.round() - 1) << where;
            for (const auto& ev : req->view().events()) {
              EXPECT_FALSE(ev.quabble().has_reveal() && v.round() == 1) << where;
            }
            EXPECT_EQ(v.offers_size(), seats) << where;
          }
        }
        card_refs += cards.size();
        for (int card : cards) {
          if (card < 0) continue;  // "none" (-1) in actions and views
          if (!k.known[seat].count(card)) {
            ADD_FAILURE() << where << ": card " << card
                          << " is not known to this seat; message: "
                          << m.ShortDebugString();
            failed = true;
          }
        }
        if (::testing::Test::HasFailure()) failed = true;
      };
      MatchSpec spec;
      spec.game_name = "quabble";
      spec.seed = seed;
      spec.auto_moves = i % 2 ? v1::AUTO_MOVES_NONE : v1::AUTO_MOVES_SINGLE;
      auto m = testing::PlayLocal(**game, spec, testing::RandomPolicy(seed ^ 5),
                                  tap, &writer);
      EXPECT_EQ(m.outcome.result.end_reason(), v1::END_REASON_NORMAL);
      ++matches;
      if (failed) return;
    }
  }
  EXPECT_EQ(matches, 1500);
  EXPECT_GT(card_refs, messages);  // the check saw real content
  EXPECT_GT(claim_requests, 1500 * 10);
}

}  // namespace
}  // namespace arena
