#include "arena/standings.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace arena {
namespace {

using ::testing::HasSubstr;

MatchSummary Match(const std::string& id, const std::string& group,
                   std::vector<std::string> bots, std::vector<int> placements,
                   std::vector<double> scores) {
  MatchSummary m;
  m.match_id = id;
  m.deal_group = group;
  m.seat_bots = std::move(bots);
  m.placements = std::move(placements);
  m.scores = std::move(scores);
  return m;
}

StandingsContext Context() {
  StandingsContext c;
  c.game = "g";
  c.seats = 3;
  c.bots = {"a", "b"};
  c.bootstrap = 100;
  return c;
}

TEST(Standings, MatchesCountOnceSeatsEachAndFaultsByKind) {
  // b fills two seats of m1: one match, two seats.
  MatchSummary m1 = Match("m1", "g1", {"a", "b", "b"}, {1, 2, 3}, {9, 5, 1});
  m1.faults = {{1, v1::FAULT_KIND_TIMEOUT}, {2, v1::FAULT_KIND_TIMEOUT},
               {0, v1::FAULT_KIND_ILLEGAL}};
  MatchSummary m2 = Match("m2", "g1", {"b", "a", "b"}, {1, 3, 2}, {8, 0, 4});
  m2.forfeit_seat = 1;
  m2.faults = {{1, v1::FAULT_KIND_DISCONNECTED}};
  auto st = BuildStandings(Context(), {m1, m2});
  ASSERT_TRUE(st.ok()) << st.status();
  EXPECT_EQ(st->matches_played(), 2);
  EXPECT_EQ(st->matches_planned(), 2);
  EXPECT_EQ(st->matches_unrecorded(), 0);
  EXPECT_EQ(st->deal_groups(), 1);
  ASSERT_EQ(st->rows_size(), 2);
  for (const auto& r : st->rows()) {
    EXPECT_EQ(r.matches(), 2) << r.bot();
    if (r.bot() == "a") {
      EXPECT_EQ(r.seats_played(), 2);
      EXPECT_EQ(r.wins(), 1);
      EXPECT_EQ(r.forfeits(), 1);
      EXPECT_EQ(r.fault_kinds().illegal(), 1);
      EXPECT_EQ(r.fault_kinds().disconnected(), 1);
      EXPECT_EQ(r.faults(), 2);
      EXPECT_DOUBLE_EQ(r.mean_score(), 4.5);      // (9 + 0) / 2
      EXPECT_DOUBLE_EQ(r.mean_placement(), 2.0);  // (1 + 3) / 2
    } else {
      EXPECT_EQ(r.seats_played(), 4);
      EXPECT_EQ(r.fault_kinds().timeout(), 2);
      EXPECT_EQ(r.faults(), 2);
      EXPECT_DOUBLE_EQ(r.mean_score(), 4.5);      // (5 + 1 + 8 + 4) / 4
      EXPECT_DOUBLE_EQ(r.mean_placement(), 2.0);  // (2 + 3 + 1 + 2) / 4
    }
  }
  // Head to head: in m1 a (1) is before b (mean 2.5); in m2 b (mean 1.5)
  // before a (3).
  ASSERT_EQ(st->head_to_head_size(), 2);
  for (const auto& h : st->head_to_head()) {
    EXPECT_EQ(h.matches(), 2);
    EXPECT_EQ(h.ahead(), 1);
    EXPECT_EQ(h.behind(), 1);
  }
}

TEST(Standings, OrderOfMatchesDoesNotChangeAByte) {
  std::vector<MatchSummary> ms;
  for (int g = 0; g < 12; ++g) {
    const std::string gr = absl::StrCat("g", g);
    ms.push_back(Match(absl::StrCat("m", g, "a"), gr, {"a", "b", "c"},
                       {1 + g % 3, 1 + (g + 1) % 3, 1 + (g + 2) % 3}, {0.1 * g, 1.0 / 3, 2}));
    ms.push_back(Match(absl::StrCat("m", g, "b"), gr, {"b", "c", "a"}, {1, 2, 3},
                       {0.7, 0.2, 1.0 / 7}));
  }
  StandingsContext c = Context();
  c.bots = {"a", "b", "c"};
  auto x = BuildStandings(c, ms);
  std::reverse(ms.begin(), ms.end());
  std::swap(ms[3], ms[7]);
  auto y = BuildStandings(c, ms);
  ASSERT_TRUE(x.ok() && y.ok());
  EXPECT_EQ(*StandingsJson(*x), *StandingsJson(*y));
  EXPECT_EQ(StandingsCsv(*x), StandingsCsv(*y));
  EXPECT_EQ(HeadToHeadCsv(*x), HeadToHeadCsv(*y));
}

TEST(Standings, EqualBotsShareTheirRank) {
  std::vector<MatchSummary> ms;
  for (int g = 0; g < 6; ++g) {
    const std::string gr = absl::StrCat("g", g);
    ms.push_back(Match(gr + "x", gr, {"a", "b"}, {1, 2}, {1, 0}));
    ms.push_back(Match(gr + "y", gr, {"b", "a"}, {1, 2}, {1, 0}));
  }
  StandingsContext c = Context();
  c.seats = 2;
  auto st = BuildStandings(c, ms);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->rows(0).rank(), 1);
  EXPECT_EQ(st->rows(1).rank(), 1);
  EXPECT_TRUE(st->balanced());
  EXPECT_THAT(StandingsTable(*st), HasSubstr("1    a"));
  EXPECT_THAT(StandingsTable(*st), HasSubstr("1    b"));
}

TEST(Standings, JsonHoldsNumbersAsNumbers) {
  auto st = BuildStandings(Context(), {Match("m1", "", {"a", "b", "a"}, {1, 2, 3}, {3, 2, 1})});
  ASSERT_TRUE(st.ok());
  const std::string json = *StandingsJson(*st);
  EXPECT_THAT(json, HasSubstr("\"matches_played\": 1,"));
  EXPECT_THAT(json, HasSubstr("\"seats_played\": 2,"));
  EXPECT_THAT(json, ::testing::Not(HasSubstr("\"1\"")));
  // Without a deal group a match is a group of its own.
  EXPECT_EQ(st->deal_groups(), 1);
  EXPECT_FALSE(st->balanced());  // a sat at seats 0 and 2, never 1
}

TEST(Standings, PlannedButUnrecordedMatchesAreCountedAndWarned) {
  StandingsContext c = Context();
  c.matches_planned = 5;
  auto st = BuildStandings(c, {Match("m1", "", {"a", "b", "a"}, {1, 2, 3}, {3, 2, 1})});
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->matches_unrecorded(), 4);
  EXPECT_THAT(StandingsTable(*st), HasSubstr("4 planned matches have no complete record"));
}

TEST(Standings, RecordSummaryCountsFaultsAndForfeit) {
  std::vector<v1::RecordLine> lines(4);
  auto* h = lines[0].mutable_header();
  h->set_match_id("x-1");
  h->set_deal_group("x-g1");
  h->add_seat_bots("a");
  h->add_seat_bots("b");
  auto* a = lines[1].mutable_decision()->add_actions();
  a->set_seat(1);
  a->set_source(v1::SeatAction::SOURCE_REFEREE_FAULT);
  a->set_fault(v1::FAULT_KIND_TIMEOUT);
  lines[2].mutable_forfeit()->set_seat(1);
  lines[2].mutable_forfeit()->set_fault(v1::FAULT_KIND_ILLEGAL);
  auto* r = lines[3].mutable_result();
  r->add_scores(1);
  r->add_scores(0);
  r->add_placements(1);
  r->add_placements(2);
  r->set_end_reason(v1::END_REASON_FORFEIT);
  r->set_forfeit_seat(1);
  auto m = SummarizeRecord(lines, "x.jsonl");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->deal_group, "x-g1");
  EXPECT_EQ(m->forfeit_seat, 1);
  ASSERT_EQ(m->faults.size(), 2u);
  EXPECT_EQ(m->faults[0].kind, v1::FAULT_KIND_TIMEOUT);
  EXPECT_EQ(m->faults[1].kind, v1::FAULT_KIND_ILLEGAL);
  // Hostile records: no result, placements for the wrong number of seats.
  std::vector<v1::RecordLine> unfinished(lines.begin(), lines.begin() + 2);
  auto u = SummarizeRecord(unfinished, "u.jsonl");
  ASSERT_FALSE(u.ok());
  EXPECT_THAT(std::string(u.status().message()), HasSubstr("u.jsonl"));
  lines[3].mutable_result()->add_placements(3);
  EXPECT_FALSE(SummarizeRecord(lines, "y.jsonl").ok());
  lines[3].mutable_result()->mutable_placements()->RemoveLast();
  lines[1].mutable_decision()->mutable_actions(0)->set_seat(7);
  EXPECT_FALSE(SummarizeRecord(lines, "z.jsonl").ok());
}

TEST(Standings, FilesAreReplacedWhole) {
  const std::string dir = absl::StrCat(::testing::TempDir(), "/standings-", ::getpid());
  std::filesystem::create_directories(dir);
  auto st = BuildStandings(Context(), {Match("m1", "", {"a", "b", "a"}, {1, 2, 3}, {3, 2, 1})});
  ASSERT_TRUE(st.ok());
  ASSERT_TRUE(WriteStandings(*st, dir).ok());
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"head_to_head.csv", "standings.csv",
                                             "standings.json"}));  // no temporaries left
  std::ifstream in(dir + "/standings.csv");
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), StandingsCsv(*st));
  EXPECT_FALSE(WriteStandings(*st, dir + "/missing/folder").ok());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace arena
