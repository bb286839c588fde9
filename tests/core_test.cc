// The backbone's small parts: the generator, placements, the schedule,
// option and game errors.
#include <map>

#include <filesystem>
#include <fstream>

#include "arena/tournament/config.h"
#include "arena/tournament/launch.h"
#include "arena/tournament/schedule.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/match/match_runner.h"
#include "referee/games/registry.h"
#include "referee/game_api/rng.h"
#include "referee/match/sent_log.h"

namespace arena {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(Rng, SplitMix64MatchesThePublishedSequence) {
  // SplitMix64 from state 0 (Steele, Lea, Flood 2014; reference outputs).
  uint64_t s = 0;
  EXPECT_EQ(SplitMix64(s), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(SplitMix64(s), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(SplitMix64(s), 0x06c45d188009454fULL);
}

TEST(Rng, StreamIsPinnedAcrossMachines) {
  // Pinned once on the reference machine: a change here breaks every record.
  Rng rng(12345);
  std::vector<uint64_t> first;
  for (int i = 0; i < 3; ++i) first.push_back(rng.Next());
  Rng again(12345);
  for (uint64_t v : first) EXPECT_EQ(again.Next(), v);
  std::vector<int> v = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  Rng shuffler(7);
  shuffler.Shuffle(v);
  std::vector<int> w = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  Rng shuffler2(7);
  shuffler2.Shuffle(w);
  EXPECT_EQ(v, w);
}

TEST(Rng, UniformStaysInRangeAndCoversIt) {
  Rng rng(1);
  std::map<uint32_t, int> seen;
  for (int i = 0; i < 6000; ++i) ++seen[rng.Uniform(6)];
  ASSERT_EQ(seen.size(), 6u);
  for (auto [k, n] : seen) {
    EXPECT_LT(k, 6u);
    EXPECT_GT(n, 850);  // 1000 expected each
    EXPECT_LT(n, 1150);
  }
}

TEST(Placements, TiesShareAndLowerIsBetterByDefault) {
  EXPECT_THAT(PlacementsFromScores({3, 0, 3, 5}, false), ElementsAre(2, 1, 2, 4));
  EXPECT_THAT(PlacementsFromScores({3, 0, 3, 5}, true), ElementsAre(2, 4, 2, 1));
  EXPECT_THAT(PlacementsFromScores({1, 1}, false), ElementsAre(1, 1));
}

// Every bot at every position equally often; every ordered pair of bots at
// every ordered pair of positions equally often.
void ExpectBalanced(int bots, int seats, size_t expected_count) {
  auto a = Arrangements(bots, seats);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->size(), expected_count);
  std::map<std::pair<int, int>, int> at;
  std::map<std::tuple<int, int, int, int>, int> pairs;
  for (const auto& t : *a) {
    for (int p = 0; p < seats; ++p) {
      ++at[{t[p], p}];
      for (int q = 0; q < seats; ++q) {
        if (p != q) ++pairs[{t[p], p, t[q], q}];
      }
    }
  }
  std::set<int> counts;
  for (auto& [k, n] : at) counts.insert(n);
  EXPECT_EQ(counts.size(), 1u) << bots << " bots, " << seats << " seats";
  EXPECT_EQ(at.size(), static_cast<size_t>(bots * seats));
  std::set<int> pair_counts;
  for (int x = 0; x < bots; ++x)
    for (int y = 0; y < bots; ++y)
      if (x != y)
        for (int p = 0; p < seats; ++p)
          for (int q = 0; q < seats; ++q)
            if (p != q) pair_counts.insert(pairs[{x, p, y, q}]);
  EXPECT_EQ(pair_counts.size(), 1u);
}

TEST(Schedule, EveryBotMeetsEveryOtherEquallyAtEveryPosition) {
  ExpectBalanced(3, 2, 6);    // 3 * 2
  ExpectBalanced(2, 2, 2);
  ExpectBalanced(4, 3, 24);   // 4 * 3 * 2
  ExpectBalanced(2, 4, 14);   // 2^4 - 2: both bots in every match
  ExpectBalanced(3, 4, 36);   // 3^4 - 3 * 2^4 + 3: all three in every match
  ExpectBalanced(3, 5, 150);
}

TEST(Schedule, AFewBotsFillSeveralSeats) {
  auto a = Arrangements(2, 3);
  ASSERT_TRUE(a.ok());
  for (const auto& t : *a) {
    EXPECT_EQ(std::set<int>(t.begin(), t.end()).size(), 2u);
  }
  auto one = Arrangements(1, 3);
  ASSERT_TRUE(one.ok());
  EXPECT_THAT(*one, ElementsAre(ElementsAre(0, 0, 0)));
}

TEST(Schedule, RotationsOfASeating) {
  EXPECT_THAT(DistinctRotations({0, 1, 2}),
              ElementsAre(ElementsAre(0, 1, 2), ElementsAre(1, 2, 0), ElementsAre(2, 0, 1)));
  // 0101 has only two distinct rotations; 0000 one.
  EXPECT_THAT(DistinctRotations({0, 1, 0, 1}),
              ElementsAre(ElementsAre(0, 1, 0, 1), ElementsAre(1, 0, 1, 0)));
  EXPECT_EQ(DistinctRotations({0, 0, 0}).size(), 1u);
}

TEST(Schedule, DuplicateDealsAreWholeRotationGroups) {
  // 3 bots, 2 seats: 6 arrangements in 3 rotation classes {01,10}, {02,20},
  // {12,21}; 7 matches round up to 4 groups of 2.
  auto a = Arrangements(3, 2);
  ASSERT_TRUE(a.ok());
  Schedule s = PlanSchedule(*a, 7, true);
  ASSERT_EQ(s.matches.size(), 8u);
  EXPECT_EQ(s.deal_groups, 4);
  EXPECT_EQ(s.cycle, 6);
  EXPECT_FALSE(s.balanced);
  std::vector<int> deals;
  for (const auto& m : s.matches) deals.push_back(m.deal);
  EXPECT_THAT(deals, ElementsAre(0, 0, 1, 1, 2, 2, 3, 3));
  EXPECT_THAT(s.matches[0].seating, ElementsAre(0, 1));
  EXPECT_THAT(s.matches[1].seating, ElementsAre(1, 0));
  EXPECT_THAT(s.matches[2].seating, ElementsAre(0, 2));
  EXPECT_THAT(s.matches[6].seating, ElementsAre(0, 1));  // the cycle again
  EXPECT_TRUE(PlanSchedule(*a, 6, true).balanced);
  // Independent deals: a deal per match, arrangement i mod 6.
  Schedule ind = PlanSchedule(*a, 7, false);
  ASSERT_EQ(ind.matches.size(), 7u);
  EXPECT_EQ(ind.matches[6].deal, 6);
  EXPECT_THAT(ind.matches[6].seating, ElementsAre(0, 1));
  // 2 bots, 4 seats: classes of 4, 4, 2 and 4 rotations (0001, 0011, 0101,
  // 0111): one cycle is all 14 arrangements.
  auto b = Arrangements(2, 4);
  ASSERT_TRUE(b.ok());
  Schedule four = PlanSchedule(*b, 14, true);
  EXPECT_EQ(four.matches.size(), 14u);
  EXPECT_EQ(four.deal_groups, 4);
  EXPECT_TRUE(four.balanced);
}

TEST(Schedule, GauntletPairsTheHeroWithEachOther) {
  auto g = GauntletArrangements(3, 2, 1);
  ASSERT_TRUE(g.ok());
  EXPECT_THAT(*g, ElementsAre(ElementsAre(1, 0), ElementsAre(0, 1), ElementsAre(1, 2),
                              ElementsAre(2, 1)));
  auto g3 = GauntletArrangements(3, 3, 0);
  ASSERT_TRUE(g3.ok());
  EXPECT_EQ(g3->size(), 12u);  // 2 opponents x (2^3 - 2)
  for (const auto& t : *g3) {
    EXPECT_EQ(std::count(t.begin(), t.end(), 0) > 0, true);
    EXPECT_FALSE(std::count(t.begin(), t.end(), 1) > 0 && std::count(t.begin(), t.end(), 2) > 0);
  }
  EXPECT_FALSE(GauntletArrangements(3, 2, 5).ok());
  EXPECT_FALSE(GauntletArrangements(1, 2, 0).ok());
}

TEST(Registry, UnknownGameAndBadSeatsAreNamed) {
  EXPECT_THAT(std::string(CreateGame("chess", {}, 2).status().message()),
              HasSubstr("unknown game 'chess' (known: quasenbo"));
  EXPECT_THAT(std::string(CreateGame("quasenbo", {}, 6).status().message()),
              HasSubstr("6 seats is not allowed (2 to 5)"));
  // A name in other case is not taken, but the error names the game meant.
  EXPECT_THAT(std::string(CreateGame("Pesten", {}, 4).status().message()),
              HasSubstr("unknown game 'Pesten' (did you mean 'pesten'? known: quasenbo"));
  EXPECT_THAT(std::string(CreateGame("QUABBLE", {}, 4).status().message()),
              HasSubstr("did you mean 'quabble'?"));
  EXPECT_THAT(std::string(CreateGame("chess", {}, 2).status().message()),
              Not(HasSubstr("did you mean")));
}

TEST(Registry, BadOptionsAreNamed) {
  EXPECT_THAT(std::string(CreateGame("quasenbo", {{"excuse", "maybe"}}, 2).status().message()),
              HasSubstr("excuse=maybe"));
  EXPECT_THAT(std::string(CreateGame("quasenbo", {{"jokers", "2"}}, 2).status().message()),
              HasSubstr("unknown option 'jokers'"));
}

TEST(Config, MistakesAreNamed) {
  v1::TournamentConfig c;
  c.set_game("quasenbo");
  c.set_matches(1);
  c.set_records_dir("/tmp/x");
  EXPECT_THAT(std::string(ValidateConfig(&c).message()), HasSubstr("no bots"));
  auto* b = c.add_bots();
  b->set_name("a");
  EXPECT_THAT(std::string(ValidateConfig(&c).message()), HasSubstr("'a' has no token"));
  b->set_token("t");
  auto* b2 = c.add_bots();
  b2->set_name("a");
  b2->set_token("u");
  EXPECT_THAT(std::string(ValidateConfig(&c).message()), HasSubstr("'a' is given twice"));
  b2->set_name("b");
  b2->set_token("t");
  EXPECT_THAT(std::string(ValidateConfig(&c).message()), HasSubstr("shares its token"));
  b2->set_token("u");
  EXPECT_TRUE(ValidateConfig(&c).ok());
  EXPECT_EQ(c.seats(), 2);  // the game's default
  c.set_matches(0);
  EXPECT_THAT(std::string(ValidateConfig(&c).message()), HasSubstr("matches"));
}

}  // namespace
}  // namespace arena

namespace arena {
namespace {

TEST(Config, TheDocumentedExampleConfigIsValid) {
  auto c = ReadConfigFile(std::string(ARENA_SOURCE_DIR) +
                          "/docs/example_tournament.textproto");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(ValidateConfig(&*c).ok());
  EXPECT_EQ(c->bots_size(), 3);
  EXPECT_EQ(c->matches() % 6, 0);
}

TEST(Config, BrokenTextNamesLineAndColumn) {
  const std::string path = ::testing::TempDir() + "/broken.textproto";
  {
    std::ofstream f(path);
    f << "game: \"quasenbo\"\nseats: three\n";
  }
  auto c = ReadConfigFile(path);
  std::filesystem::remove(path);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("line 2, column 8"));
}

}  // namespace
}  // namespace arena

namespace arena {
namespace {

// A state that only answers Result(), for the forfeit ranking.
class RankedState : public State {
 public:
  RankedState(std::vector<double> scores, std::vector<int> placements) {
    for (double s : scores) result_.add_scores(s);
    for (int p : placements) result_.add_placements(p);
  }
  bool IsTerminal() const override { return false; }
  const std::vector<int>& ActingSeats() const override { return acting_; }
  int NumLegalActions(int) const override { return 1; }
  void FillLegalActions(int, google::protobuf::RepeatedPtrField<v1::Action>*) const override {}
  std::string ActionLabel(int, int) const override { return ""; }
  void FillView(int, v1::View*) const override {}
  void Apply(absl::Span<const int>) override {}
  v1::MatchResult Result() const override { return result_; }
  void FillRules(v1::Rules*) const override {}

 private:
  v1::MatchResult result_;
  std::vector<int> acting_{0};
};

TEST(Forfeit, TheForfeiterIsLastAndTheOthersKeepTheGamesOwnOrder) {
  // Scores tie for seats 1 and 2, but the game's tie-break (say, fewer
  // cards) ranked seat 2 above seat 1: that order must survive the forfeit.
  RankedState s({1, 1, 1, 0}, {1, 3, 2, 4});
  v1::MatchResult r = ForfeitResult(s, 0, "seat 0 timed out");
  EXPECT_THAT(r.placements(), ElementsAre(4, 2, 1, 3));
  EXPECT_EQ(r.end_reason(), v1::END_REASON_FORFEIT);
  EXPECT_EQ(r.forfeit_seat(), 0);
  EXPECT_EQ(r.detail(), "seat 0 timed out");
  // Ties among the others stay ties.
  RankedState t({0, 2, 2, 5}, {1, 2, 2, 4});
  EXPECT_THAT(ForfeitResult(t, 3, "x").placements(), ElementsAre(1, 2, 2, 4));
  EXPECT_THAT(ForfeitResult(t, 1, "x").placements(), ElementsAre(1, 4, 2, 3));
}

}  // namespace
// The sent log: each seat reads back exactly its own bytes, in order, from
// the file (past several flushes) or from memory; the file goes with the log.
TEST(SentLog, EachSeatReadsBackItsOwnBytesInOrder) {
  const std::string path =
      absl::StrCat(::testing::TempDir(), "/sent-log-test-", ::getpid());
  for (const std::string& where : {path, std::string()}) {
    auto log = SentLog::Open(where, 3);
    ASSERT_TRUE(log.ok()) << log.status();
    std::vector<std::string> want(3);
    Rng rng(11);
    for (int i = 0; i < 2000; ++i) {
      const int seat = static_cast<int>(rng.Uniform(3));
      std::string bytes(1 + rng.Uniform(40), static_cast<char>('a' + i % 26));
      bytes[0] = static_cast<char>(i & 0xff);  // any byte, not only text
      ASSERT_TRUE((*log)->Append(seat, bytes).ok());
      want[seat] += bytes;
      if (!where.empty()) {
        EXPECT_LE((*log)->buffered_bytes(), 2 * SentLog::kFlushBytes + 64);
      }
      if (i % 500 == 499) {
        for (int s = 0; s < 3; ++s) {
          auto got = (*log)->Read(s);
          ASSERT_TRUE(got.ok()) << got.status();
          EXPECT_EQ(*got, want[s]) << "seat " << s << " after " << i;
        }
      }
    }
    EXPECT_FALSE((*log)->Read(3).ok());
    EXPECT_FALSE((*log)->Append(-1, "x").ok());
    if (!where.empty()) {
      EXPECT_TRUE(std::filesystem::exists(where));
    }
    log->reset();
    EXPECT_FALSE(std::filesystem::exists(path));
  }
}

// A short match makes no file: the log's file is created by its first
// write. A path where no file can be made fails that write, naming it.
TEST(SentLog, MakesItsFileOnlyWhenItFirstWrites) {
  const std::string path =
      absl::StrCat(::testing::TempDir(), "/sent-log-lazy-", ::getpid());
  auto log = SentLog::Open(path, 2);
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_TRUE((*log)->Append(1, "abc").ok());
  EXPECT_FALSE(std::filesystem::exists(path));
  std::string big(SentLog::kFlushBytes, 'z');
  ASSERT_TRUE((*log)->Append(0, big).ok());  // the buffer is full: written
  EXPECT_TRUE(std::filesystem::exists(path));
  auto got = (*log)->Read(1);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, "abc");
  log->reset();
  EXPECT_FALSE(std::filesystem::exists(path));

  const std::string nowhere = absl::StrCat(path, "-missing-folder/log");
  auto bad = SentLog::Open(nowhere, 1);
  ASSERT_TRUE(bad.ok()) << bad.status();
  ASSERT_TRUE((*bad)->Append(0, "x").ok());  // buffered
  absl::Status s = (*bad)->Append(0, big);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr(nowhere));
  EXPECT_FALSE((*bad)->Read(0).ok());
}

// Live logs hold no descriptor: with many logs each past several flushes
// (their files made) and read back, the process has as many descriptors
// open as before them, so live matches are not bounded by the open-file limit.
TEST(SentLog, HoldsNoDescriptorBetweenCalls) {
  auto open_fds = [] {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) {
      (void)e;
      ++n;
    }
    return n;
  };
  const std::string dir =
      absl::StrCat(::testing::TempDir(), "/sent-log-fds-", ::getpid());
  std::filesystem::create_directories(dir);
  const size_t before = open_fds();
  constexpr int kLogs = 256;
  std::vector<std::unique_ptr<SentLog>> logs;
  const std::string chunk(SentLog::kFlushBytes / 3, 'q');
  for (int i = 0; i < kLogs; ++i) {
    auto log = SentLog::Open(absl::StrCat(dir, "/", i, ".sent"), 2);
    ASSERT_TRUE(log.ok()) << log.status();
    logs.push_back(*std::move(log));
  }
  for (int round = 0; round < 10; ++round) {  // about 3 flushes a log
    for (int i = 0; i < kLogs; ++i) {
      ASSERT_TRUE(logs[i]->Append(round % 2, chunk).ok());
    }
  }
  for (int i = 0; i < kLogs; ++i) {
    EXPECT_TRUE(std::filesystem::exists(absl::StrCat(dir, "/", i, ".sent"))) << i;
  }
  EXPECT_EQ(open_fds(), before);
  auto got = logs[7]->Read(1);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->size(), 5 * chunk.size());
  EXPECT_EQ(open_fds(), before);
  logs.clear();
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  std::filesystem::remove_all(dir);
}

// A log file cut short (a frame's length beyond the end) is an error, not
// a short read passed on to a bot.
TEST(SentLog, AFrameCutShortIsDataLoss) {
  const std::string path =
      absl::StrCat(::testing::TempDir(), "/sent-log-cut-", ::getpid());
  auto log = SentLog::Open(path, 1);
  ASSERT_TRUE(log.ok());
  ASSERT_TRUE((*log)->Append(0, std::string(100, 'x')).ok());
  ASSERT_TRUE((*log)->Read(0).ok());  // flushed to the file
  std::filesystem::resize_file(path, 50);
  auto got = (*log)->Read(0);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), absl::StatusCode::kDataLoss);
}

}  // namespace arena
