// The core promise: no message sent to a seat holds a card that seat may not
// know. Checked as a property over thousands of random matches, through the
// real match runner (the same code that feeds the gRPC service).
//
// What a seat may know is worked out here independently of the engine's own
// visibility marks, from the record's full events and the rules: a seat
// knows the cards it was dealt, the cards it drew, and every card turned up
// or played. Every card id in every message sent to a seat (views, events,
// legal actions) must be one it knows at the moment the message is sent.
// Besides, no message to a seat may show the order of the deck, another
// seat's hand, or the cards another seat drew.
#include <set>

#include "gtest/gtest.h"
#include "referee/record.h"
#include "tests/test_util.h"

namespace arena {
namespace {

using testing::CollectInts;

struct Knowledge {
  explicit Knowledge(int n) : known(n) {}
  std::vector<std::set<int>> known;
  testing::RecordFollower follower;

  void Learn(const v1::RecordedEvent& re) {
    const v1::QuasenboEvent& e = re.event().quasenbo();
    auto everyone = [&](int card) {
      for (auto& k : known) k.insert(card);
    };
    switch (e.kind_case()) {
      case v1::QuasenboEvent::kDeal:
        for (const auto& h : e.deal().hands()) {
          known[h.seat()].insert(h.cards().begin(), h.cards().end());
        }
        break;
      case v1::QuasenboEvent::kStartCard:
        everyone(e.start_card().card());
        break;
      case v1::QuasenboEvent::kPlayed:
        everyone(e.played().card());
        break;
      case v1::QuasenboEvent::kDrew:
        known[e.drew().seat()].insert(e.drew().cards().begin(),
                                      e.drew().cards().end());
        break;
      default:
        break;
    }
  }

  // Learns from record lines written since the last call.
  void CatchUp(const std::vector<std::string>& lines) {
    follower.CatchUp(lines, [this](const v1::RecordedEvent& e) { Learn(e); });
  }
};

// Structural checks on one event as a seat received it.
void CheckEventForSeat(const v1::Event& ev, int seat, const std::string& where) {
  const v1::QuasenboEvent& e = ev.quasenbo();
  if (e.has_deal()) {
    EXPECT_TRUE(e.deal().deck().empty()) << where << ": deck order sent to a seat";
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
}

struct Config {
  int seats;
  Options options;
};

std::vector<Config> Grid() {
  std::vector<Config> grid;
  for (int seats = 2; seats <= 5; ++seats) {
    for (int mask = 0; mask < 16; ++mask) {
      Options o;
      o["excuse"] = mask & 1 ? "true" : "false";
      o["pawns"] = mask & 2 ? "true" : "false";
      o["courts"] = mask & 4 ? "true" : "false";
      o["double_quasenbo"] = mask & 8 ? "true" : "false";
      // 5 seats of 7 cards fit the basic deck only just; use 5 cards there
      // so that draws and reshuffles happen too.
      if (seats == 5) o["hand_size"] = "5";
      grid.push_back({seats, o});
    }
  }
  return grid;
}

TEST(NoLeak, QuasenboNoSeatIsSentACardItMayNotKnow) {
  int matches = 0;
  int64_t messages = 0, card_refs = 0;
  for (const Config& c : Grid()) {
    auto game = CreateGame("quasenbo", c.options, c.seats);
    ASSERT_TRUE(game.ok()) << game.status();
    for (int i = 0; i < 40; ++i) {  // 64 configurations x 40 = 2560 matches
      const uint64_t seed = DeriveSeed(c.seats * 1000 + i, 77);
      Knowledge k(c.seats);
      RecordWriter* writer = nullptr;
      bool failed = false;
      auto tap = [&](int seat, const google::protobuf::Message& m) {
        if (failed) return;
        k.CatchUp(writer->lines());
        ++messages;
        const std::string where = "seed " + std::to_string(seed) + " seat " +
                                  std::to_string(seat) + " " +
                                  m.GetDescriptor()->name();
        if (const auto* req = dynamic_cast<const v1::DecisionRequest*>(&m)) {
          for (const auto& ev : req->view().events()) {
            CheckEventForSeat(ev, seat, where);
          }
          std::vector<int> cards;
          CollectInts(*req, {"card", "cards", "hand", "deck"}, &cards);
          card_refs += cards.size();
          for (int card : cards) {
            if (!k.known[seat].count(card)) {
              ADD_FAILURE() << where << ": card " << card
                            << " is not known to this seat; message: "
                            << req->ShortDebugString();
              failed = true;
            }
          }
        }
        if (::testing::Test::HasFailure()) failed = true;
      };
      MatchSpec spec;
      spec.game_name = "quasenbo";
      spec.options = c.options;
      spec.seed = seed;
      spec.auto_moves = i % 2 ? v1::AUTO_MOVES_NONE : v1::AUTO_MOVES_SINGLE;
      testing::PlayLocal(**game, spec, testing::RandomPolicy(seed ^ 5), tap,
                         &writer);
      ++matches;
      if (failed) return;
    }
  }
  EXPECT_EQ(matches, 2560);
  EXPECT_GT(card_refs, messages);  // the check saw real content
}

}  // namespace
}  // namespace arena
