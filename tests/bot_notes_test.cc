// Bots' notes (Decision.note) over every registered game's grid
// (tests/conformance_util.h), in many random matches where every seat
// writes a note on every decision, hostile ones among them
// (tests/note_bot.h):
//  - no message sent to any bot (its own seat's included) holds a note;
//  - the record holds each note, as the referee keeps it (BoundNote), at
//    its own seat's action of the step it was written for, and verifies;
//  - the full replay shows each at that action; a seat's replay shows its
//    own notes and no other seat's; a replay made without notes (the
//    public site's default) and the live spectator stream at every length
//    the record has while the match runs hold none;
//  - notes change nothing else: the record without them is the one the
//    same match gives with no notes at all.
// And `arena verify` refuses a record whose notes were edited into what the
// referee never keeps, saying what is wrong.
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "arena/live/live_site.h"
#include "arena/records/record_tools.h"
#include "arena/views/replay.h"
#include "gtest/gtest.h"
#include "referee/records/bot_note.h"
#include "tests/conformance_util.h"
#include "tests/note_bot.h"

namespace arena {
namespace {

using conformance::GridPoint;

constexpr int kMatchesPerPoint = 3;
constexpr int64_t kMatchCap = 150;
// The spectator's stream is checked at every length of a point's first
// match, and at every this many lengths of the others.
constexpr size_t kSpectatorEvery = 4;
constexpr char kMarker[] = "NOTE s";

// A note of every kind, the longest 4 KiB (the megabyte is the e2e test's).
std::string Noter(int seat, const v1::DecisionRequest& r) {
  return testing::NoteFor(seat, r.decision_id(), -1, 4096);
}

MatchSpec Spec(const GridPoint& p, const Game& game, int i) {
  MatchSpec spec;
  spec.match_id = absl::StrCat(conformance::ParamName(p), "-", i);
  spec.game_name = p.game;
  spec.options = p.options;
  spec.seed = DeriveSeed(0x50 + i, p.seats * 977 + static_cast<int>(p.label.size()));
  spec.seed_salt = std::string(64, 'b' + i);
  spec.tournament_id = "t50";
  spec.auto_moves = i % 2 ? v1::AUTO_MOVES_NONE : v1::AUTO_MOVES_SINGLE;
  spec.decision_cap = std::min<int64_t>(game.info().default_decision_cap, kMatchCap);
  return spec;
}

// What the seats' notes are, by step and seat, in the record.
using NotesByStep = std::map<std::pair<int, int>, const v1::SeatAction*>;

class BotNotes : public ::testing::TestWithParam<GridPoint> {};

TEST_P(BotNotes, ShownAtTheirDecisionsAndNeverToABotOrASpectator) {
  const GridPoint& p = GetParam();
  auto game = CreateGame(p.game, p.options, p.seats);
  ASSERT_TRUE(game.ok()) << game.status();
  int64_t notes = 0, cut = 0, messages = 0, spectator_lengths = 0;
  for (int i = 0; i < kMatchesPerPoint; ++i) {
    const MatchSpec spec = Spec(p, **game, i);
    const uint64_t policy_seed = spec.seed ^ 5;
    testing::LocalMatch m = testing::PlayLocal(
        **game, spec, testing::RandomPolicy(policy_seed),
        [&](int seat, const google::protobuf::Message& sent) {
          ++messages;
          ASSERT_FALSE(absl::StrContains(sent.SerializeAsString(), kMarker))
              << spec.match_id << ": a note reached seat " << seat << " in "
              << sent.GetTypeName();
        },
        nullptr, Noter);
    const std::vector<v1::RecordLine> lines = testing::ParseOrFail(m.record_lines);
    ASSERT_GT(lines.size(), 2u);
    ASSERT_TRUE(VerifyRecord(lines, spec.match_id).ok()) << VerifyRecord(lines, spec.match_id);

    // The record: each bot's action carries the note written for it.
    NotesByStep by_step;
    for (const auto& l : lines) {
      if (!l.has_decision()) continue;
      for (const auto& a : l.decision().actions()) {
        if (a.source() != v1::SeatAction::SOURCE_BOT) {
          EXPECT_EQ(a.note(), "") << spec.match_id;
          continue;
        }
        v1::DecisionRequest asked;
        asked.set_decision_id(a.decision_id());
        const BoundedNote expected = BoundNote(Noter(a.seat(), asked));
        ASSERT_EQ(a.note(), expected.text) << spec.match_id << " step " << l.decision().step();
        ASSERT_EQ(a.note_cut_bytes(), expected.cut_bytes) << spec.match_id;
        ASSERT_TRUE(absl::StartsWith(
            a.note(), absl::StrCat(testing::NoteHead(a.seat(), a.decision_id(), -1))));
        by_step[{l.decision().step(), a.seat()}] = &a;
        ++notes;
        cut += a.note_cut_bytes() > 0;
      }
    }

    // The full replay, with notes: every one at its step and seat.
    ReplayOptions all;
    all.notes = true;
    auto full = BuildReplay(lines, all);
    ASSERT_TRUE(full.ok()) << full.status();
    size_t shown = 0;
    for (const auto& step : full->steps()) {
      for (const auto& a : step.actions()) {
        auto it = by_step.find({step.step(), a.seat()});
        if (it == by_step.end()) {
          EXPECT_EQ(a.note(), "");
          continue;
        }
        EXPECT_EQ(a.note(), it->second->note()) << spec.match_id << " step " << step.step();
        EXPECT_EQ(a.note_cut_bytes(), it->second->note_cut_bytes());
        ++shown;
      }
    }
    EXPECT_EQ(shown, by_step.size()) << spec.match_id;

    // Without notes (the public site's default): none.
    auto plain = BuildReplay(lines, ReplayOptions());
    ASSERT_TRUE(plain.ok()) << plain.status();
    EXPECT_FALSE(absl::StrContains(ReplayToJson(*plain), kMarker)) << spec.match_id;

    // Each seat's replay: its own notes, all of them, and no other seat's.
    for (int s = 0; s < p.seats; ++s) {
      ReplayOptions mine;
      mine.seat = s;
      mine.notes = true;
      auto r = BuildReplay(lines, mine);
      ASSERT_TRUE(r.ok()) << r.status();
      const std::string json = ReplayToJson(*r);
      const std::string own = absl::StrCat(kMarker, s, " ");
      size_t own_count = 0;
      for (size_t at = json.find(kMarker); at != std::string::npos;
           at = json.find(kMarker, at + 1)) {
        ASSERT_EQ(json.compare(at, own.size(), own), 0)
            << spec.match_id << ": seat " << s << "'s replay holds " << json.substr(at, 20);
        ++own_count;
      }
      size_t expected = 0;
      for (const auto& [key, a] : by_step) expected += key.second == s;
      EXPECT_EQ(own_count, expected) << spec.match_id << " seat " << s;
    }

    // The live stream at every length the record has while the match runs.
    for (size_t n = 1; n < lines.size(); ++n) {
      if (lines[n - 1].has_result()) break;
      if (i > 0 && n % kSpectatorEvery != 0) continue;
      const std::vector<v1::RecordLine> prefix(lines.begin(), lines.begin() + n);
      auto json = SpectatorJson(prefix, spec.match_id);
      ASSERT_TRUE(json.ok()) << json.status();
      ASSERT_FALSE(absl::StrContains(*json, kMarker)) << spec.match_id << " at line " << n;
      ++spectator_lengths;
    }

    // The same match without notes: the same record once notes are taken
    // out (the wall clock aside).
    testing::LocalMatch bare =
        testing::PlayLocal(**game, spec, testing::RandomPolicy(policy_seed));
    std::vector<v1::RecordLine> a = lines, b = testing::ParseOrFail(bare.record_lines);
    ASSERT_EQ(a.size(), b.size()) << spec.match_id;
    for (size_t k = 0; k < a.size(); ++k) {
      for (auto* l : {&a[k], &b[k]}) {
        if (l->has_header()) l->mutable_header()->clear_started_at();
        if (l->has_result()) l->mutable_result()->clear_header_digest();
        if (!l->has_decision()) continue;
        for (auto& act : *l->mutable_decision()->mutable_actions()) {
          act.clear_note();
          act.clear_note_cut_bytes();
        }
      }
      ASSERT_EQ(a[k].SerializeAsString(), b[k].SerializeAsString())
          << spec.match_id << " line " << k + 1;
    }
  }
  std::printf("%s: %lld notes (%lld cut), %lld messages to bots, %lld spectator lengths\n",
              conformance::ParamName(p).c_str(), static_cast<long long>(notes),
              static_cast<long long>(cut), static_cast<long long>(messages),
              static_cast<long long>(spectator_lengths));
  EXPECT_GT(notes, 0);
  EXPECT_GT(spectator_lengths, 0);
}

INSTANTIATE_TEST_SUITE_P(Grid, BotNotes, ::testing::ValuesIn(conformance::MakeGrid()),
                         [](const ::testing::TestParamInfo<GridPoint>& i) {
                           return conformance::ParamName(i.param);
                         });

// A record with notes, and where in it the first bot's action with a note
// under 253 bytes and the first referee move are (line, action).
struct Noted {
  std::vector<v1::RecordLine> lines;
  std::pair<size_t, int> bot{0, -1}, referee{0, -1};
};

Noted NotedPesten() {
  auto game = CreateGame("pesten", {}, 2);
  EXPECT_TRUE(game.ok());
  Noted out;
  for (int i = 0; i < 20 && out.referee.second < 0; ++i) {
    MatchSpec spec;
    spec.match_id = absl::StrCat("edit-", i);
    spec.game_name = "pesten";
    spec.seed = 900 + i;
    spec.seed_salt = std::string(64, 'c');
    spec.tournament_id = "t50";
    spec.auto_moves = v1::AUTO_MOVES_SINGLE;
    testing::LocalMatch m = testing::PlayLocal(**game, spec, testing::RandomPolicy(i), nullptr,
                                               nullptr, Noter);
    out = Noted();
    out.lines = testing::ParseOrFail(m.record_lines);
    for (size_t k = 0; k < out.lines.size(); ++k) {
      if (!out.lines[k].has_decision()) continue;
      const auto& acts = out.lines[k].decision().actions();
      for (int j = 0; j < acts.size(); ++j) {
        const bool bot = acts[j].source() == v1::SeatAction::SOURCE_BOT;
        auto& where = bot ? out.bot : out.referee;
        if (where.second < 0 && !(bot && acts[j].note().size() >= 253)) where = {k, j};
      }
    }
  }
  EXPECT_GE(out.bot.second, 0);
  EXPECT_GE(out.referee.second, 0) << "no referee move in 20 Pesten matches";
  return out;
}

v1::SeatAction* At(Noted& n, std::pair<size_t, int> where) {
  return n.lines[where.first].mutable_decision()->mutable_actions(where.second);
}

std::string VerifyError(const Noted& n) {
  return std::string(VerifyRecord(n.lines, "edited").message());
}

TEST(BotNotesVerify, AnEditedNoteOrCountIsRefusedWithWhatIsWrong) {
  Noted n = NotedPesten();
  ASSERT_TRUE(VerifyRecord(n.lines, "as written").ok());
  const Noted clean = n;
  ASSERT_LT(At(n, n.bot)->note().size(), 253u);  // a note that was not cut

  At(n, n.bot)->set_note_cut_bytes(40);
  EXPECT_TRUE(absl::StrContains(VerifyError(n), "'s action: note_cut_bytes says 40 bytes were cut"))
      << VerifyError(n);

  n = clean;
  At(n, n.bot)->set_note(std::string(300, 'a'));
  EXPECT_TRUE(absl::StrContains(VerifyError(n), "note of 300 bytes, over the 256 a record keeps"))
      << VerifyError(n);

  n = clean;
  At(n, n.bot)->set_note("\x1B[2J cleared your terminal");
  EXPECT_TRUE(absl::StrContains(VerifyError(n), "note holds U+001B at byte 0")) << VerifyError(n);

  n = clean;
  At(n, n.bot)->set_note_cut_bytes(-3);
  EXPECT_TRUE(absl::StrContains(VerifyError(n), "note_cut_bytes is -3")) << VerifyError(n);

  n = clean;
  At(n, n.referee)->set_note("the referee never writes one");
  EXPECT_TRUE(absl::StrContains(VerifyError(n), "carries a note, but is not the bot's own"))
      << VerifyError(n);

  // The error names the match, line and step, as every verify error does.
  EXPECT_TRUE(absl::StartsWith(VerifyError(n), "match edit-")) << VerifyError(n);
}

// `arena serve`'s replay page of a finished match: notes only with
// show_notes, in its steps' data (never in the page's own text).
TEST(BotNotesLive, TheServersReplayPageShowsNotesOnlyWithShowNotes) {
  const testing::TestDir tmp = testing::FreshTempDir("bot-notes-live");
  auto game = CreateGame("quasenbo", {}, 2);
  ASSERT_TRUE(game.ok());
  MatchSpec spec;
  spec.game_name = "quasenbo";
  spec.match_id = "noted";
  spec.seed = 4;
  spec.seat_bots = {"a", "b"};
  testing::LocalMatch m =
      testing::PlayLocal(**game, spec, testing::RandomPolicy(4), nullptr, nullptr, Noter);
  int notes = 0;
  for (const auto& l : testing::ParseOrFail(m.record_lines)) {
    for (const auto& a : l.decision().actions()) notes += !a.note().empty();
  }
  ASSERT_GT(notes, 0);
  {
    std::ofstream f(absl::StrCat(tmp.path(), "/noted.jsonl"));
    for (const auto& l : m.record_lines) f << l << "\n";
  }
  for (const bool show : {false, true}) {
    LiveOptions lo;
    lo.show_notes = show;
    LiveSite site(tmp.path(), lo);
    site.Poll(true);
    auto page = site.ReplayPage("noted");
    ASSERT_TRUE(page.ok()) << page.status();
    const std::string open = "id=\"replay-chunk-0\" data-encoding=\"gzip+base64\">";
    const size_t at = page->find(open);
    ASSERT_NE(at, std::string::npos);
    const size_t end = page->find("</script>", at);
    const std::string steps =
        testing::GunzipBase64(page->substr(at + open.size(), end - at - open.size()));
    EXPECT_FALSE(absl::StrContains(*page, kMarker));
    EXPECT_EQ(std::vector<std::string>(absl::StrSplit(steps, kMarker)).size() - 1,
              show ? static_cast<size_t>(notes) : 0u)
        << "show_notes " << show;
  }
}

}  // namespace
}  // namespace arena
