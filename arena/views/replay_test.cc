// arena replay: card names for every game (card 0 included), events in words,
// and per-seat redaction that matches what the runner sent each seat.
#include "arena/views/replay.h"

#include <malloc.h>

#include <map>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "arena/records/record_tools.h"
#include "arena/views/replay_json.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "referee/games/registry.h"
#include "tests/test_util.h"

namespace arena {
namespace {

using google::protobuf::util::MessageDifferencer;
using testing::PlayLocal;
using testing::RandomPolicy;

struct GameCase {
  std::string game;
  int seats;
  Options options;
};

void PrintTo(const GameCase& c, std::ostream* os) { *os << c.game; }

class EveryGame : public ::testing::TestWithParam<GameCase> {};

struct Played {
  std::vector<v1::RecordLine> lines;
  // Every event each seat was sent in its decision requests, in order.
  std::vector<std::vector<v1::Event>> sent;
};

Played PlayOne(const GameCase& c, uint64_t seed) {
  auto game = CreateGame(c.game, c.options, c.seats);
  EXPECT_TRUE(game.ok()) << game.status();
  MatchSpec spec;
  spec.game_name = c.game;
  spec.options = c.options;
  spec.seed = seed;
  spec.auto_moves = v1::AUTO_MOVES_NONE;
  Played p;
  p.sent.resize(c.seats);
  auto tap = [&](int seat, const google::protobuf::Message& m) {
    if (const auto* r = dynamic_cast<const v1::DecisionRequest*>(&m)) {
      for (const auto& e : r->view().events()) p.sent[seat].push_back(e);
    }
  };
  auto m = PlayLocal(**game, spec, RandomPolicy(seed), tap);
  auto lines = ParseRecordLines(m.record_lines, "local");
  EXPECT_TRUE(lines.ok()) << lines.status();
  p.lines = *lines;
  return p;
}

TEST_P(EveryGame, SeatReplayHoldsExactlyWhatTheRunnerSentThatSeat) {
  const GameCase& c = GetParam();
  for (uint64_t seed : {1, 2, 3}) {
    Played p = PlayOne(c, seed);
    for (int seat = 0; seat < c.seats; ++seat) {
      ReplayOptions o;
      o.seat = seat;
      auto r = BuildReplay(p.lines, o);
      ASSERT_TRUE(r.ok()) << r.status();
      std::vector<v1::Event> shown;
      for (const auto& step : r->steps()) {
        EXPECT_LE(step.views_size(), 1);
        for (const auto& a : step.actions()) EXPECT_EQ(a.seat(), seat);
        for (const auto& e : step.events()) shown.push_back(e.event());
      }
      // The runner sends events up to the seat's last decision; the replay
      // goes on to the end. What was sent must be the replay's beginning.
      ASSERT_GE(shown.size(), p.sent[seat].size()) << c.game << " seat " << seat;
      ASSERT_FALSE(p.sent[seat].empty());
      for (size_t i = 0; i < p.sent[seat].size(); ++i) {
        ASSERT_TRUE(MessageDifferencer::Equals(shown[i], p.sent[seat][i]))
            << c.game << " seed " << seed << " seat " << seat << " event " << i << ": "
            << shown[i].ShortDebugString() << " vs " << p.sent[seat][i].ShortDebugString();
      }
    }
  }
}

TEST_P(EveryGame, TextNamesEveryCardAndHasNoRawProtobuf) {
  const GameCase& c = GetParam();
  Played p = PlayOne(c, 4);
  auto r = BuildReplay(p.lines, {});
  ASSERT_TRUE(r.ok()) << r.status();
  std::ostringstream text;
  PrintReplayText(*r, text);
  const std::string t = text.str();
  EXPECT_FALSE(absl::StrContains(t, "card #")) << "a card without a name";
  EXPECT_FALSE(absl::StrContains(t, c.game + " {")) << "raw protobuf text";
  EXPECT_FALSE(absl::StrContains(t, "card: ")) << "raw protobuf text";
  EXPECT_TRUE(absl::StrContains(t, "result: "));
  // Every card of the match's catalogue has a name.
  ASSERT_GT(r->cards_size(), 0);
  for (const auto& card : r->cards()) EXPECT_FALSE(card.name().empty()) << card.id();
  // Every event has words.
  for (const auto& s : r->steps()) {
    for (const auto& e : s.events()) EXPECT_FALSE(e.text().empty());
  }
  // A seat's view is shown field by field, its own game's fields even when
  // the view comes packed in an Any (a game outside the bundled ones).
  ReplayOptions seat0;
  seat0.seat = 0;
  auto v = BuildReplay(p.lines, seat0);
  ASSERT_TRUE(v.ok()) << v.status();
  std::ostringstream seat_text;
  PrintReplayText(*v, seat_text);
  const std::string st = seat_text.str();
  ASSERT_TRUE(absl::StrContains(st, "view of seat 0: ")) << st;
  EXPECT_FALSE(absl::StrContains(st, "type url")) << "a packed view, not its fields\n" << st;
  EXPECT_FALSE(absl::StrContains(st, "value \"")) << "a packed view's bytes\n" << st;
  EXPECT_FALSE(absl::StrContains(st, "view of seat 0: \n")) << "an empty view\n" << st;
}

// The streamed JSON is the whole document's, byte for byte, for every seat,
// the spectator and a replay stopped early; and the fast writer wrote every
// step itself (protobuf's printer is the fallback, as slow as before).
TEST_P(EveryGame, StreamedJsonIsTheWholeDocument) {
  const GameCase& c = GetParam();
  const std::set<std::string> kBundled = {"quasenbo", "pesten", "quodlibet", "quabble"};
  const bool bundled = kBundled.count(c.game) > 0;
  for (uint64_t seed : {5, 6}) {
    Played p = PlayOne(c, seed);
    std::vector<ReplayOptions> cases(c.seats + 3);
    for (int s = 0; s < c.seats; ++s) cases[s].seat = s;
    cases[c.seats + 1].spectator = true;
    cases[c.seats + 2].step = 3;
    for (const ReplayOptions& o : cases) {
      auto whole = BuildReplay(p.lines, o);
      ASSERT_TRUE(whole.ok()) << whole.status();
      std::ostringstream streamed;
      ReplayJsonSink sink(streamed);
      ASSERT_TRUE(StreamReplay(p.lines, o, sink).ok());
      ASSERT_EQ(streamed.str(), ReplayToJson(*whole) + "\n")
          << c.game << " seed " << seed << " seat " << o.seat;
      for (const v1::ReplayStep& step : whole->steps()) {
        // (Equal to protobuf's: the whole document is.) A game outside the
        // bundled ones packs its parts in an Any, left to protobuf's printer.
        std::string fast;
        if (!AppendReplayJsonFast(step, &fast)) {
          ASSERT_FALSE(bundled) << c.game << " step " << step.step();
        }
      }
      // The text as it comes equals the text of the whole replay.
      std::ostringstream text, streamed_text;
      PrintReplayText(*whole, text);
      ReplayTextSink text_sink(streamed_text);
      ASSERT_TRUE(StreamReplay(p.lines, o, text_sink).ok());
      EXPECT_EQ(streamed_text.str(), text.str());
    }
  }
}

// Every registered game (a game outside the bundled ones too, when the build
// has one): the bundled ones at a chosen seat count and options, any other
// at its defaults.
std::vector<GameCase> EveryRegisteredGame() {
  const std::map<std::string, GameCase> chosen = {
      {"quasenbo", {"quasenbo", 2, {}}},
      {"pesten", {"pesten", 3, {}}},
      {"quodlibet", {"quodlibet", 4, {{"contract", "minus"}}}},
      {"quabble", {"quabble", 4, {}}}};
  std::vector<GameCase> cases;
  for (const std::string& name : GameNames()) {
    auto it = chosen.find(name);
    cases.push_back(it != chosen.end()
                        ? it->second
                        : GameCase{name, FindGameInfo(name)->default_seats, {}});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Replay, EveryGame, ::testing::ValuesIn(EveryRegisteredGame()),
                         [](const auto& info) { return info.param.game; });

TEST(DescribeMessage, CardZeroIsShownByName) {
  // Pesten ids: (suit - 1) * 13 + (rank - 2), so 0 is the 2 of Clubs and
  // 51 the Ace of Spades (pesten.proto).
  auto game = CreateGame("pesten", {}, 2);
  ASSERT_TRUE(game.ok());
  const auto cards = CardCatalogue(*(*game)->NewInitialState(1));
  v1::PestenView v;
  v.set_top_card(0);
  v.add_hand(51);
  v.add_hand(0);
  const std::string t = DescribeMessage(v, cards);
  EXPECT_TRUE(absl::StrContains(t, "top card 2 of Clubs")) << t;
  EXPECT_TRUE(absl::StrContains(t, "hand [Ace of Spades, 2 of Clubs]")) << t;
  EXPECT_TRUE(absl::StrContains(t, "draw obligation 0")) << t;
  EXPECT_TRUE(absl::StrContains(t, "wished suit none")) << t;
  ASSERT_GT(cards.size(), 51u);
  EXPECT_EQ(cards[0].suits(0), "clubs");
  EXPECT_EQ(cards[51].rank(), "ace");
}

TEST(BuildReplay, BadSeatAndStepAreErrors) {
  Played p = PlayOne({"quasenbo", 2, {}}, 1);
  ReplayOptions o;
  o.seat = 2;
  auto r = BuildReplay(p.lines, o);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "seats 0 to 1")) << r.status();
  o.seat = -3;
  EXPECT_FALSE(BuildReplay(p.lines, o).ok());
  o.seat = -1;
  o.step = -2;
  EXPECT_FALSE(BuildReplay(p.lines, o).ok());
  o.step = 2;
  auto part = BuildReplay(p.lines, o);
  ASSERT_TRUE(part.ok()) << part.status();
  EXPECT_FALSE(part->finished());
  for (const auto& s : part->steps()) EXPECT_LE(s.step(), 3);
}

TEST(BuildReplay, TamperedRecordIsRefused) {
  Played p = PlayOne({"pesten", 2, {}}, 1);
  for (auto& l : p.lines) {
    if (l.has_decision()) {
      l.mutable_decision()->mutable_actions(0)->set_label("play the Joker of Nothing");
      break;
    }
  }
  auto r = BuildReplay(p.lines, {});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "Joker of Nothing")) << r.status();
}

// A sink that sees each step once, in order, and the heap in use (malloc's
// bytes) when it does; `keep` keeps every step, as BuildReplay does.
class HeapSink : public ReplaySink {
 public:
  explicit HeapSink(bool keep) : keep_(keep) {}
  absl::Status Begin(const v1::Replay&) override {
    base_ = InUse();
    return absl::OkStatus();
  }
  absl::Status Step(v1::ReplayStep& step) override {
    EXPECT_GT(step.step(), last_) << "steps out of order";
    last_ = step.step();
    ++steps_;
    if (keep_) kept_.push_back(step);
    peak_ = std::max(peak_, InUse() - base_);
    return absl::OkStatus();
  }
  absl::Status End(const v1::Replay& tail) override {
    finished_ = tail.finished();
    return absl::OkStatus();
  }
  static int64_t InUse() { return static_cast<int64_t>(mallinfo2().uordblks); }
  int64_t peak_ = 0;
  int steps_ = 0;
  bool finished_ = false;

 private:
  bool keep_;
  int64_t base_ = 0;
  int last_ = -1;
  std::vector<v1::ReplayStep> kept_;
};

// What streaming a long match holds at once is one step (a few KB), not the
// match: over a 4-seat Pesten match of 2,000 or more decisions, the heap
// grows by less than 256 KiB while the steps come, where keeping them (what
// BuildReplay does) grows it by megabytes (checked, so that the measure can
// fail).
TEST(StreamReplay, HoldsOneStepAtATime) {
  Played p;
  int64_t decisions = 0;
  for (uint64_t seed = 1; seed < 200 && decisions < 2000; ++seed) {
    p = PlayOne({"pesten", 4, {}}, seed);
    decisions = p.lines.back().result().decisions();
  }
  ASSERT_GE(decisions, 2000);
  // Re-simulation alone grows the heap too (the game's own event log): the
  // bound is over that.
  int64_t resim_base = 0, resim_peak = 0;
  ResimVisitor v;
  v.on_start = [&](const v1::RecordHeader&, const State&) { resim_base = HeapSink::InUse(); };
  v.on_decision = [&](const v1::DecisionStep&, const State&) {
    resim_peak = std::max(resim_peak, HeapSink::InUse() - resim_base);
  };
  ASSERT_TRUE(Resimulate(p.lines, "local", v).ok());
  HeapSink streamed(/*keep=*/false);
  ASSERT_TRUE(StreamReplay(p.lines, {}, streamed).ok());
  EXPECT_TRUE(streamed.finished_);
  EXPECT_GE(streamed.steps_, decisions);
  EXPECT_LT(streamed.peak_, resim_peak + (256 << 10))
      << "bytes held while streaming " << decisions << " decisions; re-simulation alone "
      << resim_peak;
  HeapSink kept(/*keep=*/true);
  ASSERT_TRUE(StreamReplay(p.lines, {}, kept).ok());
  EXPECT_GT(kept.peak_, resim_peak + (4 << 20)) << "keeping every step should show";
}

// A chunk's columns, worked out by hand for two steps of a 3-seat Pesten
// replay: the step numbers as differences, the second step's views as what
// changed (seat 1 played the second of its 6 cards: its hand spliced,
// shorter than the 5 left; every seat's top card, hand sizes (whole: a
// splice would be longer) and turn said once as alike), the event without its
// message and its repeated seats as 1, the label left out where it is the
// legal action's, kept where it is not.
TEST(PageStepColumns, SaysOnlyWhatThePageCannotWorkOut) {
  v1::ReplayStep first, second;
  first.set_step(4);
  second.set_step(5);
  for (int s = 0; s < 3; ++s) {
    v1::PestenView* v = first.add_views()->mutable_pesten();
    v->set_top_card(9);
    v->add_hand_sizes(2);
    v->add_hand_sizes(6);
    v->add_hand_sizes(2);
    v->set_current_seat(1);
    if (s == 1) {
      for (int c : {10, 20, 30, 40, 50, 60}) v->add_hand(c);
    }
    v1::PestenView* w = second.add_views()->mutable_pesten();
    *w = *v;
    w->set_top_card(20);
    w->set_hand_sizes(1, 5);
    w->set_current_seat(2);
    if (s == 1) {
      w->clear_hand();
      for (int c : {10, 30, 40, 50, 60}) w->add_hand(c);
    }
  }
  v1::ReplayAction* a = first.add_actions();
  a->set_seat(1);
  a->set_action(1);
  a->set_label("play 20");
  a->add_legal("play 10");
  a->add_legal("play 20");
  *second.add_actions() = *a;
  second.mutable_actions(0)->set_label("timed out: play 20");
  v1::ReplayEvent* e = second.add_events();
  e->set_text("seat 1 played 20");
  e->mutable_event()->set_step(5);
  e->mutable_visibility()->set_is_public(true);
  for (int s = 0; s < 3; ++s) {
    e->add_seats()->set_sees(true);
  }
  e->mutable_seats(0)->mutable_event()->set_step(5);
  e->mutable_seats(1)->mutable_event()->set_step(5);
  e->mutable_seats(2)->mutable_event()->set_step(5);

  PageStepColumns columns;
  columns.Add(first, nullptr);
  columns.Add(second, &first);
  EXPECT_EQ(columns.size(), 2);
  const std::string view0 =
      "{\"events\":[],\"pesten\":{\"hand\":[],\"top_card\":9,"
      "\"wished_suit\":\"PESTEN_SUIT_UNSPECIFIED\",\"draw_obligation\":0,"
      "\"direction\":\"PESTEN_DIRECTION_UNSPECIFIED\",\"hand_sizes\":[2,6,2],"
      "\"winning_points\":[],\"current_seat\":1,\"phase\":\"PESTEN_PHASE_UNSPECIFIED\","
      "\"deck_size\":0,\"pile_size\":0,\"round\":0,\"dealer\":0}}";
  std::string view1 = view0;
  view1.replace(view1.find("\"hand\":[]"), 9, "\"hand\":[10,20,30,40,50,60]");
  const std::string want =
      "{\"step\":[4,1],"
      "\"events\":[[],[{\"visibility\":{\"is_public\":true,\"seats\":[]},"
      "\"text\":\"seat 1 played 20\",\"seats\":[{\"sees\":true,\"redacted\":false,"
      "\"text\":\"\"},1,1]}]],"
      "\"views\":[[" + view0 + "," + view1 + "," + view0 + "],"
      "{\"c\":{\"pesten\":{\"top_card\":20,\"hand_sizes\":[2,5,2],\"current_seat\":2}},"
      "\"s\":[{},{\"pesten\":{\"hand\":{\"@s\":[1,1]}}},{}]}],"
      "\"actions\":[[{\"seat\":1,\"action\":1,\"source\":\"SOURCE_UNSPECIFIED\","
      "\"think_us\":\"0\",\"fault_detail\":\"\",\"legal\":[\"play 10\",\"play 20\"]}],"
      "[{\"seat\":1,\"action\":1,\"label\":\"timed out: play 20\","
      "\"source\":\"SOURCE_UNSPECIFIED\",\"think_us\":\"0\",\"fault_detail\":\"\","
      "\"legal\":[\"play 10\",\"play 20\"]}]],"
      "\"delta\":[0,1]}";
  EXPECT_EQ(columns.TakeJson(), want);
  EXPECT_EQ(columns.size(), 0);
}

}  // namespace
}  // namespace arena
