// The ladder's live site (`arena ladder run DIR --serve`), end to end: a
// real ladder of sandboxed bots, its pages fetched over HTTP while it runs.
// The leaderboard on the page is leaderboard.json's, row by row; each
// version's plot has a point per rated match (or per bucket, once
// downsampled); refused submissions show their reasons; a hostile entrant
// name and command are text, never markup; a match in progress has its
// live page. Then `arena serve DIR` of the same folder shows the page too.
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "arena/common/json_file.h"
#include "arena/live/ladder_site.h"
#include "arena/v1/ladder.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "arena/live/http_server.h"
#include "arena/views/html.h"
#include "referee/games/registry.h"
#include "tests/e2e_util.h"
#include "tests/test_util.h"

namespace arena {
namespace {

using testing::kBin;
using testing::Sh;
using testing::WaitFor;

template <typename M>
M ReadJson(const std::string& path) {
  M m;
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    (void)google::protobuf::util::JsonStringToMessage(testing::ReadFile(path), &m);
  }
  return m;
}

// The port a process printed "... http://127.0.0.1:PORT/ ..." with, or 0.
int PortIn(const std::string& log) {
  const size_t at = log.find("http://127.0.0.1:");
  if (at == std::string::npos) return 0;
  const size_t from = at + 17, slash = log.find('/', from);
  int port = 0;
  if (slash == std::string::npos || !absl::SimpleAtoi(log.substr(from, slash - from), &port)) {
    return 0;
  }
  return port;
}

// The body of a 200 answer, or "" (with a failure).
std::string Body(int port, const std::string& target) {
  const std::string r = testing::Get(port, target);
  EXPECT_TRUE(absl::StartsWith(r, "HTTP/1.1 200")) << target << ": " << r.substr(0, 200);
  const size_t body = r.find("\r\n\r\n");
  return body == std::string::npos ? "" : r.substr(body + 4);
}

// The number of points of `bot`'s plot on the page, and its bucket.
int PlotPoints(const std::string& page, const std::string& bot, int* bucket) {
  const std::string svg = absl::StrCat("data-bot=\"", bot, "\" data-bucket=\"");
  const size_t at = page.find(svg);
  if (at == std::string::npos) return -1;
  const size_t b = at + svg.size();
  if (!absl::SimpleAtoi(page.substr(b, page.find('"', b) - b), bucket)) return -1;
  const std::string line = "<polyline points=\"";
  const size_t p = page.find(line, at);
  if (p == std::string::npos) return -1;
  const size_t from = p + line.size();
  const std::vector<std::string> points =
      absl::StrSplit(page.substr(from, page.find('"', from) - from), ' ', absl::SkipEmpty());
  return static_cast<int>(points.size());
}

TEST(LadderSite, ServesTheLeaderboardHistorySubmissionsAndLiveMatches) {
  testing::Workdir w("ladder-site");
  const std::string bin = kBin, dir = w.path() + "/l", log = w.path() + "/run.log";
  std::filesystem::create_directories(w.path() + "/tmp");
  std::filesystem::permissions(w.path() + "/tmp", std::filesystem::perms(0755));
  auto submit = [&](const std::string& entrant, const std::string& command) {
    auto r = Sh(absl::StrCat(bin, "/arena ladder submit ", dir, " --entrant '", entrant,
                             "' --command '", command, "'"));
    EXPECT_EQ(r.code, 0) << r.output;
  };
  submit("alice", bin + "/random_bot");
  submit("bob", bin + "/quasenbo_bot");
  submit("carol", bin + "/quasenbo_bot --epsilon 0.5");
  // Hostile: markup in an entrant's name and in a command (both refused).
  // `ladder submit` refuses such a name itself, writing nothing (a '/' in
  // it would name a file elsewhere); a front end may still drop the file.
  auto refused = Sh(absl::StrCat(bin, "/arena ladder submit ", dir,
                                 " --entrant '../<b>x' --command ", bin, "/random_bot"));
  EXPECT_NE(refused.code, 0) << refused.output;
  EXPECT_TRUE(absl::StrContains(refused.output, "invalid entrant name '../<b>x'"))
      << refused.output;
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir + "/submissions"),
                          std::filesystem::directory_iterator()),
            3);
  {
    std::ofstream dropped(dir + "/submissions/zz-hostile.json");
    dropped << R"({"entrant": "<b>x", "action": "LADDER_ACTION_SUBMIT", "command": ")" << bin
            << R"(/random_bot"})";
  }
  submit("dave", "/nope/<script>alert(1)</script>");
  // Three seats: every match is the whole field's, until one leaves.
  auto r = Sh(absl::StrCat("TMPDIR=", w.path(), "/tmp ", bin, "/arena ladder run ", dir,
                           " --game quasenbo --seats 3 --jobs 1 --seed 7 --serve 127.0.0.1:0 >",
                           log, " 2>&1 & echo $!"));
  int pid = 0;
  ASSERT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(r.output), &pid)) << r.output;
  int port = 0;
  ASSERT_TRUE(WaitFor([&] { return (port = PortIn(testing::ReadFile(log))) > 0; },
                      absl::Seconds(10)))
      << testing::ReadFile(log);

  // A match in progress is listed with its seats' versions, and its live
  // page answers (or, if it ended meanwhile, sends to its replay).
  std::string live_id, live_item;
  WaitFor(
      [&] {
        const std::string page = testing::Get(port, "/");
        const size_t at = page.find("<a href=\"live/");
        if (at == std::string::npos) return false;
        const std::string item = page.substr(at, page.find("</li>", at) - at);
        if (!absl::StrContains(item, "<span class=\"seat\">")) return false;
        const size_t from = at + 14;
        live_id = page.substr(from, page.find(".html", from) - from);
        live_item = item;
        return true;
      },
      absl::Seconds(15));
  ASSERT_FALSE(live_id.empty()) << testing::ReadFile(log);
  {
    // Three seats, each a version of the three entrants that play.
    std::vector<std::string> seats;
    for (absl::string_view rest = live_item;;) {
      const size_t at = rest.find("<span class=\"seat\">");
      if (at == absl::string_view::npos) break;
      rest.remove_prefix(at + 19);
      seats.emplace_back(rest.substr(0, rest.find("</span>")));
    }
    ASSERT_EQ(seats.size(), 3u) << live_item;
    for (const std::string& seat : seats) {
      EXPECT_TRUE(seat == "alice.v1" || seat == "bob.v1" || seat == "carol.v1") << live_item;
    }
  }
  const std::string live = testing::Get(port, absl::StrCat("/live/", live_id, ".html"));
  EXPECT_TRUE(absl::StartsWith(live, "HTTP/1.1 200") || absl::StartsWith(live, "HTTP/1.1 302"))
      << live.substr(0, 300);

  // Enough matches; then carol leaves and two versions cannot fill three
  // seats: the ladder waits, its leaderboard still.
  ASSERT_TRUE(WaitFor([&] { return ReadJson<v1::LadderLeaderboard>(dir + "/leaderboard.json")
                                       .matches() >= 20; },
                      absl::Seconds(20)));
  Sh(absl::StrCat(bin, "/arena ladder withdraw ", dir, " --entrant carol"));
  v1::LadderLeaderboard board;
  std::string page;
  ASSERT_TRUE(WaitFor(
      [&] {
        board = ReadJson<v1::LadderLeaderboard>(dir + "/leaderboard.json");
        if (board.rows_size() != 2) return false;
        page = Body(port, "/");
        // The page of this leaderboard (carol's withdrawal moved no
        // rating: the count alone does not tell), and its file unchanged.
        return absl::StrContains(page, absl::StrCat("<p id=\"summary\">", board.matches(),
                                                     " rated matches")) &&
               !absl::StrContains(page, "<tr data-bot=\"carol.v1\">") &&
               ReadJson<v1::LadderLeaderboard>(dir + "/leaderboard.json").matches() ==
                   board.matches();
      },
      absl::Seconds(20)))
      << page;

  // Row by row, as in leaderboard.json, and nothing else ranked.
  EXPECT_TRUE(absl::StrContains(page, "Ranked by the conservative bound"));
  for (const v1::LadderRow& row : board.rows()) {
    const std::string cells = absl::StrFormat(
        "<tr data-bot=\"%s\"><td class=\"n\">%d</td><td>%s</td><td class=\"n\">%d</td>"
        "<td class=\"n\">%.3f</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td>"
        "<td class=\"n\">%d</td>",
        row.bot(), row.rank(), row.entrant(), row.version(), row.mu(), row.sigma(),
        row.conservative(), row.matches());
    EXPECT_TRUE(absl::StrContains(page, cells)) << cells << "\n" << page;
    // A point per rated match (per bucket of `bucket` matches, and the
    // newest, once downsampled).
    int bucket = 0;
    const int points = PlotPoints(page, row.bot(), &bucket);
    ASSERT_GE(bucket, 1) << row.bot();
    EXPECT_EQ(points, row.matches() / bucket + (row.matches() % bucket != 0 ? 1 : 0))
        << row.bot() << " " << row.matches();
    const std::string svg = Body(port, absl::StrCat("/history/", row.bot(), ".svg"));
    EXPECT_TRUE(absl::StrContains(svg, "<polyline points=")) << svg;
  }
  const std::vector<absl::string_view> rows = absl::StrSplit(page, "<tr data-bot=");
  EXPECT_EQ(rows.size(), 3u);
  // The retired version's plot is still there; an unknown one is not.
  EXPECT_TRUE(absl::StrContains(Body(port, "/history/carol.v1.svg"), "<polyline"));
  EXPECT_TRUE(absl::StartsWith(testing::Get(port, "/history/..%2fleaderboard.json.svg"),
                               "HTTP/1.1 404"));

  // Submissions: the refused ones with their reasons, as text.
  EXPECT_TRUE(absl::StrContains(page, "accepted as bob.v1")) << page;
  EXPECT_TRUE(absl::StrContains(page, "placed (")) << page;
  EXPECT_TRUE(absl::StrContains(
      page, "refused: the program /nope/&lt;script&gt;alert(1)&lt;/script&gt; does not exist"))
      << page;
  EXPECT_TRUE(absl::StrContains(page, "<td>&lt;b&gt;x</td>")) << page;
  EXPECT_TRUE(absl::StrContains(page, "refused: invalid entrant name")) << page;
  EXPECT_FALSE(absl::StrContains(page, "<script")) << page;
  EXPECT_FALSE(absl::StrContains(page, "<b>x")) << page;
  // No command line on the page (only a refused one's missing program).
  EXPECT_FALSE(absl::StrContains(page, "--epsilon")) << page;

  ::kill(pid, SIGTERM);
  ASSERT_TRUE(WaitFor([&] { return ::kill(pid, 0) != 0; }, absl::Seconds(10)));

  // A restart rates the records again, in match order: the same
  // leaderboard, and each plot rebuilt with it (the ladder then waits: two
  // versions for three seats).
  r = Sh(absl::StrCat("TMPDIR=", w.path(), "/tmp ", bin, "/arena ladder run ", dir,
                      " --game quasenbo --seats 3 --jobs 1 --seed 7 --serve 127.0.0.1:0 >",
                      log, ".again 2>&1 & echo $!"));
  ASSERT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(r.output), &pid)) << r.output;
  ASSERT_TRUE(WaitFor([&] { return (port = PortIn(testing::ReadFile(log + ".again"))) > 0; },
                      absl::Seconds(10)));
  ASSERT_TRUE(WaitFor(
      [&] {
        page = Body(port, "/");
        return absl::StrContains(page, absl::StrCat("<p id=\"summary\">", board.matches(),
                                                     " rated matches")) &&
               !absl::StrContains(page, "history-behind");
      },
      absl::Seconds(10)))
      << page;
  for (const v1::LadderRow& row : board.rows()) {
    int bucket = 0;
    const int points = PlotPoints(page, row.bot(), &bucket);
    ASSERT_GE(bucket, 1) << row.bot();
    EXPECT_EQ(points, row.matches() / bucket + (row.matches() % bucket != 0 ? 1 : 0))
        << row.bot() << " after the restart";
    EXPECT_TRUE(absl::StrContains(page, absl::StrFormat("<td class=\"n\">%.3f</td>", row.mu())))
        << row.bot();
  }
  ::kill(pid, SIGTERM);
  ASSERT_TRUE(WaitFor([&] { return ::kill(pid, 0) != 0; }, absl::Seconds(10)));

  // `arena serve` of the ladder's folder: the same leaderboard.
  r = Sh(absl::StrCat(bin, "/arena serve ", dir, " --serve 127.0.0.1:0 >", log,
                      ".serve 2>&1 & echo $!"));
  ASSERT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(r.output), &pid)) << r.output;
  ASSERT_TRUE(WaitFor([&] { return (port = PortIn(testing::ReadFile(log + ".serve"))) > 0; },
                      absl::Seconds(10)));
  board = ReadJson<v1::LadderLeaderboard>(dir + "/leaderboard.json");
  ASSERT_TRUE(WaitFor([&] {
    page = Body(port, "/");
    return absl::StrContains(page, absl::StrCat("<p id=\"summary\">", board.matches()));
  }, absl::Seconds(10))) << page;
  EXPECT_TRUE(absl::StrContains(page, "<tr data-bot=\"bob.v1\">")) << page;
  EXPECT_TRUE(absl::StrContains(page, "refused: the program /nope/&lt;script&gt;")) << page;
  ::kill(pid, SIGTERM);
  ASSERT_TRUE(WaitFor([&] { return ::kill(pid, 0) != 0; }, absl::Seconds(10)));
}

// A long season: a version keeps at most history_points points, evenly
// spaced buckets, and the newest rating.
TEST(LadderSite, AVersionsHistoryIsBoundedAndEndsAtItsNewestRating) {
  LadderSiteOptions o;
  o.history_points = 16;
  LadderSite site("/nonexistent-ladder", o);
  for (int m = 1; m <= 1000; ++m) {
    site.Rated(m, {LadderRatedSeat{"a.v1", 25.0 + m / 1000.0, 8.0 - m / 500.0}});
  }
  int bucket = 0;
  const std::vector<LadderSite::Point> points = site.History("a.v1", &bucket);
  EXPECT_EQ(bucket, 64);
  ASSERT_EQ(points.size(), 1000u / 64 + 1);
  for (size_t i = 0; i + 1 < points.size(); ++i) EXPECT_EQ(points[i].match, (i + 1) * 64);
  EXPECT_EQ(points.back().match, 1000);
  EXPECT_FLOAT_EQ(points.back().mu, 26.0f);
  EXPECT_FLOAT_EQ(points.back().sigma, 6.0f);
  EXPECT_TRUE(site.History("nobody", &bucket).empty());
}

// A viewer of a match that ended as its segment did still gets its replay:
// the sites of the segments followed before the current one stay served
// (earlier_segments of them), by the match's id and by its replay's name;
// a segment older than that is not served any more, and the current one
// serves its own. Over HTTP, as `--serve` runs it.
TEST(LadderSite, TheMatchesOfEarlierSegmentsStayServed) {
  const testing::TestDir tmp = testing::FreshTempDir("ladder-segments");
  const std::string dir = tmp.path();
  auto game = CreateGame("quasenbo", {}, 2);
  ASSERT_TRUE(game.ok());
  // A finished 2-seat match `id` in segment `segment`'s folder.
  auto write = [&](int segment, const std::string& id) {
    const std::string folder = absl::StrFormat("%s/records/segment-%06d", dir, segment);
    std::filesystem::create_directories(folder);
    MatchSpec spec;
    spec.game_name = "quasenbo";
    spec.match_id = id;
    spec.seed = static_cast<uint64_t>(segment);
    spec.seat_bots = {"a.v1", "b.v1"};
    auto m = testing::PlayLocal(**game, spec, testing::RandomPolicy(segment));
    std::ofstream f(absl::StrCat(folder, "/", id, ".jsonl"));
    for (const auto& l : m.record_lines) f << l << "\n";
  };
  LadderSiteOptions o;
  o.segment_scan = absl::ZeroDuration();
  o.earlier_segments = 1;
  o.history = false;
  o.live.poll = absl::Milliseconds(20);
  LadderSite site(dir, o);
  write(1, "seg1-m");
  ServeOptions so;
  so.address = "127.0.0.1:0";
  auto server = LiveServer::Start(&site, so);
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string address = (*server)->address();
  const int port = std::atoi(address.substr(address.rfind(':') + 1).c_str());
  auto status = [&](const std::string& path) {
    const std::string answer = testing::Get(port, path);
    return answer.substr(0, answer.find("\r\n"));
  };
  const std::string found = "HTTP/1.1 302 Found", gone = "HTTP/1.1 404 Not Found";
  // A finished match's live page sends to its replay.
  auto ended = [&](const std::string& id) { return status("/live/" + id + ".html") == found; };
  ASSERT_TRUE(WaitFor([&] { return ended("seg1-m"); }, absl::Seconds(10)));

  write(2, "seg2-m");
  ASSERT_TRUE(WaitFor([&] { return ended("seg2-m"); }, absl::Seconds(10)));
  EXPECT_TRUE(ended("seg1-m")) << "a match of the segment before";
  EXPECT_EQ(status(absl::StrCat("/replays/", PageName("seg1-m"), ".html")), "HTTP/1.1 200 OK");

  write(3, "seg3-m");
  ASSERT_TRUE(WaitFor([&] { return ended("seg3-m"); }, absl::Seconds(10)));
  EXPECT_TRUE(ended("seg2-m")) << "a match of the segment before";
  EXPECT_EQ(status(absl::StrCat("/replays/", PageName("seg2-m"), ".html")), "HTTP/1.1 200 OK");
  EXPECT_EQ(status("/live/seg1-m.html"), gone) << "two segments back, past earlier_segments";
  EXPECT_EQ(status("/live/nosuch.html"), gone);
  (*server)->Stop();
}

// A new version's placement progress, from the two files alone.
TEST(LadderSite, ANewVersionShowsItsPlacementProgress) {
  const testing::TestDir tmp = testing::FreshTempDir("ladder-site-placement");
  v1::LadderLeaderboard board;
  board.set_matches(3);
  v1::LadderRow* row = board.add_rows();
  row->set_rank(1);
  row->set_entrant("alice");
  row->set_version(2);
  row->set_bot("alice.v2");
  row->set_matches(3);
  v1::LadderEntrants entrants;
  v1::LadderSubmissionReport* s = entrants.add_submissions();
  s->set_file("1-alice.json");
  s->set_entrant("alice");
  s->set_action(v1::LADDER_ACTION_SUBMIT);
  s->set_state(v1::SUBMISSION_STATE_ACCEPTED);
  s->set_version(2);
  s->set_bot("alice.v2");
  ASSERT_TRUE(WriteJsonFile(tmp.path() + "/leaderboard.json", board).ok());
  ASSERT_TRUE(WriteJsonFile(tmp.path() + "/entrants.json", entrants).ok());
  LadderSiteOptions o;
  o.history = false;  // as `arena serve` of the folder
  LadderSite site(tmp.path(), o);
  ASSERT_TRUE(site.Poll(false));
  const std::string page = site.Page();
  EXPECT_TRUE(absl::StrContains(page, "accepted as alice.v2</td><td>3 of 10 placement matches"))
      << page;
  EXPECT_TRUE(absl::StrContains(page, "shown by arena ladder run --serve")) << page;
}

// The final's result on the page once its standings are written: each
// finalist's rank with its interval, rating with its interval, matches and
// how many it is surely ahead of; a name is text, never markup.
TEST(LadderSite, TheFinalsResultShowsHowSureEachRankIs) {
  const testing::TestDir tmp = testing::FreshTempDir("ladder-site-final");
  v1::LadderLeaderboard board;
  board.set_game("quasenbo");
  board.set_frozen(true);
  ASSERT_TRUE(WriteJsonFile(tmp.path() + "/leaderboard.json", board).ok());
  LadderSite site(tmp.path(), LadderSiteOptions{});
  site.Poll(false);
  EXPECT_FALSE(absl::StrContains(site.Page(), "The final")) << "no final yet";
  v1::Standings final;
  final.set_matches_played(120);
  final.set_bootstrap(1000);
  final.set_interval_level(0.95);
  final.set_pairs_compared(3);
  final.set_pairs_ordered(2);
  struct Row {
    const char* bot;
    int rank, low, high;
    double elo, elo_low, elo_high;
    int ahead;
  };
  for (const Row& r : {Row{"alice.v2", 1, 1, 1, 80.4, 40, 121.6, 2},
                       Row{"<b>bob.v1", 2, 2, 3, -12, -50.2, 30, 0},
                       Row{"carol.v3", 3, 2, 3, -68.4, -110, -20, 0}}) {
    v1::StandingRow* row = final.add_rows();
    row->set_bot(r.bot);
    row->set_rank(r.rank);
    row->set_rank_low(r.low);
    row->set_rank_high(r.high);
    row->set_elo(r.elo);
    row->set_elo_low(r.elo_low);
    row->set_elo_high(r.elo_high);
    row->set_matches(120);
    row->set_surely_ahead_count(r.ahead);
  }
  std::filesystem::create_directories(tmp.path() + "/final");
  ASSERT_TRUE(WriteJsonFile(tmp.path() + "/final/standings.json", final).ok());
  ASSERT_TRUE(site.Poll(false));
  const std::string page = site.Page();
  EXPECT_TRUE(absl::StrContains(page, "The top 3 of the leaderboard at the freeze, from fresh "
                                      "ratings: 120 matches played. Each rank and rating with "
                                      "its 95 % interval (1000 resamples of the matches); 2 of 3 "
                                      "pairs are surely ordered."))
      << page;
  EXPECT_TRUE(absl::StrContains(page, "<tr><td>1</td><td>1</td><td>alice.v2</td><td>+80</td>"
                                      "<td>[+40, +122]</td><td>120</td><td>2</td></tr>"))
      << page;
  EXPECT_TRUE(absl::StrContains(page, "<tr><td>2</td><td>2&ndash;3</td><td>&lt;b&gt;bob.v1</td>"
                                      "<td>-12</td><td>[-50, +30]</td><td>120</td><td>0</td></tr>"))
      << page;
  EXPECT_FALSE(absl::StrContains(page, "<b>bob")) << page;
  // Above the season's leaderboard: the season's result.
  EXPECT_LT(page.find("id=\"final\""), page.find("id=\"leaderboard\""));
}

// A big field over a long season: the page stays bounded (the top
// plots_inline rows plotted, each of at most history_points points) and is
// built in well under a second. Prints its size and build time.
TEST(LadderSite, ABigFieldsPageStaysBounded) {
  const testing::TestDir tmp = testing::FreshTempDir("ladder-site-big");
  v1::LadderLeaderboard board;
  board.set_game("quasenbo");
  constexpr int kVersions = 500, kMatchesEach = 600;
  for (int v = 0; v < kVersions; ++v) {
    v1::LadderRow* r = board.add_rows();
    r->set_rank(v + 1);
    r->set_entrant(absl::StrCat("e", v));
    r->set_version(1);
    r->set_bot(absl::StrCat("e", v, ".v1"));
    r->set_matches(kMatchesEach);
  }
  LadderSite site(tmp.path(), LadderSiteOptions{});
  int64_t match = 0;
  for (int m = 0; m < kMatchesEach; ++m) {
    for (int v = 0; v < kVersions; v += 2) {
      ++match;
      site.Rated(match, {LadderRatedSeat{board.rows(v).bot(), 25.0 + (m % 7), 8.0 - m / 100.0},
                         LadderRatedSeat{board.rows(v + 1).bot(), 25.0 - (m % 5), 8.0}});
    }
  }
  board.set_matches(match);
  ASSERT_TRUE(WriteJsonFile(tmp.path() + "/leaderboard.json", board).ok());
  ASSERT_TRUE(site.Poll(false));
  const absl::Time start = absl::Now();
  const std::string page = site.Page();
  const absl::Duration took = absl::Now() - start;
  std::cout << "a page of " << kVersions << " versions, " << kMatchesEach
            << " matches each: " << page.size() << " bytes, built in " << took << "\n";
  EXPECT_LT(page.size(), size_t{2} << 20);
  EXPECT_LT(took, absl::Seconds(1));
  int bucket = 0;
  EXPECT_LE(site.History("e0.v1", &bucket).size(), 257u);
  EXPECT_EQ(bucket, 4);
}

}  // namespace
}  // namespace arena
