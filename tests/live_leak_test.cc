// The no-leak property of the live match stream: across every registered
// game and grid point of seats and options (tests/conformance_util.h), what
// the live site sends about a match in progress (SpectatorJson,
// arena/live/live_site.h: the live page and its stream carry that and
// nothing else) holds, at every length the record has while the match is
// played, no card id that the record's events had not shown to everyone
// (the oracle: the game's own logged events, public or in their redacted
// version, as the conformance suite's no-leak check uses them), no seat's
// view, no action, label or legal action, and no seed. The same check run
// on the omniscient replay must find hidden cards, so it can fail.
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "arena/live/live_site.h"
#include "arena/views/replay.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "referee/game_api/rng.h"
#include "tests/conformance_util.h"

namespace arena {
namespace {

using conformance::CardValues;
using conformance::GridPoint;

// Every length of every match is re-simulated from its start (as the server
// does), so a long match costs its length squared: 2 matches a point.
constexpr int kMatchesPerPoint = 2;
// The omniscient replay (which must be caught) is checked at every this many
// lengths.
constexpr size_t kOmniscientEvery = 5;
// The JSON the server sends is compared with the projection at every this
// many lengths.
constexpr size_t kJsonEvery = 7;
constexpr int64_t kMatchCap = 400;

// Cards shown to everyone by the first `events` of `logged`.
std::set<int> PublicCards(const std::vector<LoggedEvent>& logged, size_t events) {
  std::set<int> out;
  for (size_t i = 0; i < events && i < logged.size(); ++i) {
    const LoggedEvent& e = logged[i];
    const v1::Event* seen = e.is_public ? &e.event : e.has_redacted ? &e.redacted : nullptr;
    if (seen == nullptr) continue;
    std::vector<int> cards;
    CardValues(*seen, &cards, /*with_zero=*/true);
    out.insert(cards.begin(), cards.end());
  }
  return out;
}

// The first card of the replay's events that is not in `known`, or -1; and
// anything else a spectator must not get, in `problem`.
int FirstHiddenCard(const v1::Replay& r, const std::set<int>& known, std::string* problem) {
  for (const auto& step : r.steps()) {
    if (step.views_size() > 0 && problem->empty()) *problem = "a seat's view";
    for (const auto& a : step.actions()) {
      if ((a.action() != 0 || !a.label().empty() || a.legal_size() > 0 ||
           !a.fault_detail().empty()) &&
          problem->empty()) {
        *problem = absl::StrCat("an action's index or words: ", a.ShortDebugString());
      }
    }
    for (const auto& e : step.events()) {
      std::vector<int> cards;
      CardValues(e.event(), &cards);
      for (const auto& s : e.seats()) CardValues(s.event(), &cards);
      for (int c : cards) {
        if (!known.count(c)) return c;
      }
    }
  }
  return -1;
}

class LiveNoLeak : public ::testing::TestWithParam<GridPoint> {};

TEST_P(LiveNoLeak, TheLiveStreamShowsNoHiddenCardBeforeTheEnd) {
  const GridPoint& p = GetParam();
  auto game = CreateGame(p.game, p.options, p.seats);
  ASSERT_TRUE(game.ok()) << game.status();
  int64_t checked = 0, hidden_events = 0, hidden_cards = 0, omniscient_caught = 0;
  for (int i = 0; i < kMatchesPerPoint; ++i) {
    MatchSpec spec;
    spec.match_id = absl::StrCat(conformance::ParamName(p), "-", i);
    spec.game_name = p.game;
    spec.options = p.options;
    spec.seed = DeriveSeed(0x11fe + i, p.seats * 131 + static_cast<int>(p.label.size()));
    spec.seed_salt = std::string(64, 'a' + i);
    spec.tournament_id = "t1";
    spec.auto_moves = i % 2 ? v1::AUTO_MOVES_NONE : v1::AUTO_MOVES_SINGLE;
    spec.decision_cap = std::min<int64_t>((*game)->info().default_decision_cap, kMatchCap);
    testing::LocalMatch m =
        testing::PlayLocal(**game, spec, testing::RandomPolicy(spec.seed ^ 5));
    const auto lines = testing::ParseOrFail(m.record_lines);
    ASSERT_GT(lines.size(), 2u);
    const std::vector<LoggedEvent> logged = conformance::ReplayEvents(**game, lines);
    const std::set<int> shown = PublicCards(logged, logged.size());
    for (const auto& e : logged) {
      if (e.is_public) continue;
      ++hidden_events;
      std::vector<int> cards;
      CardValues(e.event, &cards);
      for (int c : cards) hidden_cards += !shown.count(c);
    }
    // Every length the record has while the match runs (the result line,
    // which ends it, not included).
    size_t events = 0;
    for (size_t n = 1; n < lines.size(); ++n) {
      events += lines[n - 1].has_event();
      if (lines[n - 1].has_result()) break;
      const std::vector<v1::RecordLine> prefix(lines.begin(), lines.begin() + n);
      // The spectator's projection, as the server makes it; what it sends is
      // that as JSON (SpectatorJson), checked to be the same message at
      // every kJsonEvery-th length (a JSON round trip at every length was
      // most of this test's time).
      ReplayOptions projection;
      projection.spectator = true;
      projection.source = spec.match_id;
      projection.step = int64_t{1} << 60;
      auto built = BuildReplay(prefix, projection);
      ASSERT_TRUE(built.ok()) << spec.match_id << " at line " << n << ": " << built.status();
      v1::Replay r = *std::move(built);
      r.clear_cards();  // (SpectatorJson leaves out the catalogue)
      if (n % kJsonEvery == 0) {
        auto json = SpectatorJson(prefix, spec.match_id);
        ASSERT_TRUE(json.ok()) << spec.match_id << " at line " << n << ": " << json.status();
        v1::Replay sent;
        ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(*json, &sent).ok());
        // (Its newest kLiveSpectatorSteps steps.)
        v1::Replay newest = r;
        if (newest.steps_size() > kLiveSpectatorSteps) {
          newest.mutable_steps()->DeleteSubrange(
              0, newest.steps_size() - static_cast<int>(kLiveSpectatorSteps));
        }
        ASSERT_TRUE(google::protobuf::util::MessageDifferencer::Equals(sent, newest))
            << spec.match_id << " at line " << n << ": the JSON sent is not the projection";
      }
      EXPECT_EQ(r.header().seed(), 0u) << spec.match_id << ": the seed reached a spectator";
      EXPECT_EQ(r.seat(), kSpectatorSeat);
      const std::set<int> known = PublicCards(logged, events);
      std::string problem;
      const int card = FirstHiddenCard(r, known, &problem);
      ASSERT_EQ(card, -1) << spec.match_id << " at line " << n << ": card " << card
                          << " was never shown to everyone";
      ASSERT_EQ(problem, "") << spec.match_id << " at line " << n;
      ++checked;
      // The same check on what the omniscient replay holds then.
      if (n % kOmniscientEvery != 0) continue;
      ReplayOptions all;
      all.step = int64_t{1} << 60;
      auto omniscient = BuildReplay(prefix, all);
      ASSERT_TRUE(omniscient.ok()) << omniscient.status();
      std::string ignored;
      omniscient_caught += FirstHiddenCard(*omniscient, known, &ignored) != -1;
    }
  }
  std::printf("%s: %lld record lengths checked, %lld private events; the omniscient replay, "
              "checked at every %zu-th length, shows hidden cards at %lld\n",
              conformance::ParamName(p).c_str(), static_cast<long long>(checked),
              static_cast<long long>(hidden_events), kOmniscientEvery,
              static_cast<long long>(omniscient_caught));
  EXPECT_GT(checked, 0);
  // Where the game keeps cards hidden to the end, the check finds them in
  // what a spectator must not see.
  if (hidden_cards > 0) EXPECT_GT(omniscient_caught, 0);
}

INSTANTIATE_TEST_SUITE_P(Grid, LiveNoLeak, ::testing::ValuesIn(conformance::MakeGrid()),
                         [](const ::testing::TestParamInfo<GridPoint>& i) {
                           return conformance::ParamName(i.param);
                         });

}  // namespace
}  // namespace arena
