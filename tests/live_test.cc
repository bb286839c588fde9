// The live site (arena/live/): a records folder followed as it grows and
// served over HTTP, against a real tournament's records, and hostile
// clients: path traversal (plain, percent-encoded, a symbolic link out of
// the folder, .inprogress/), an oversized header, 10,000 idle connections,
// a client that reads nothing, a body; the server keeps serving others, and
// a tournament served with --serve keeps going and records every match.
//
// Requests are written by hand on raw sockets (a hostile client is one) and
// only answers' status lines and bodies are looked at.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "arena/live/http_server.h"
#include "arena/live/live_site.h"
#include "arena/v1/replay.pb.h"
#include "arena/views/html.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "referee/records/record.h"
#include "tests/test_util.h"

namespace arena {
namespace {

namespace fs = std::filesystem;
const std::string kBin = ARENA_BIN_DIR;

std::string TempDir() {
  const char* t = std::getenv("TMPDIR");
  std::string tmpl = absl::StrCat(t && *t ? t : "/tmp", "/live_test_XXXXXX");
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  const char* d = ::mkdtemp(buf.data());
  return d ? d : "";
}

struct TempFolder {
  std::string path = TempDir();
  ~TempFolder() {
    if (!std::getenv("ARENA_KEEP_TEST_DIRS")) {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  }
};

int Port(const std::string& address) {
  int port = 0;
  EXPECT_TRUE(absl::SimpleAtoi(address.substr(address.rfind(':') + 1), &port)) << address;
  return port;
}

int Connect(int port) { return testing::ConnectLoopback(port); }

// A connection whose receive buffer is the smallest the kernel allows.
int ConnectWithSmallBuffer(int port) { return testing::ConnectLoopback(port, 1024); }

using testing::Get;
using testing::ReadFor;

std::string Status(const std::string& answer) { return answer.substr(0, answer.find("\r\n")); }

// A tournament's records, played once for the suite: random bots, no
// sandbox (trusted), --live_records off.
const std::string& PlayedRecords() {
  static const std::string* dir = [] {
    const std::string top = TempDir();
    testing::RemoveAtExit(top);  // the suite's records go with the test process
    auto* d = new std::string(top + "/played");
    const std::string cmd = absl::StrCat(
        kBin, "/arena tournament --game quasenbo --games 24 --jobs 2 --seed 5 --sandbox none ",
        "--progress=false --records ", *d, " --bot a=", kBin, "/random_bot --bot b=", kBin,
        "/random_bot > ", *d, ".out 2>&1");
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return d;
  }();
  return *dir;
}

std::vector<std::string> RecordNames(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (absl::EndsWith(e.path().string(), ".rec")) out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A folder with the played tournament's manifest and `n` of its records
// (copied in the way a tournament lands them: written aside, renamed).
void Land(const std::string& from, const std::string& to, const std::vector<std::string>& names,
          size_t begin, size_t end) {
  fs::create_directories(to);
  if (!fs::exists(to + "/manifest.json")) fs::copy_file(from + "/manifest.json", to + "/manifest.json");
  for (size_t i = begin; i < end && i < names.size(); ++i) {
    fs::copy_file(from + "/" + names[i], to + "/.tmp-" + names[i]);
    fs::rename(to + "/.tmp-" + names[i], to + "/" + names[i]);
  }
}

// A folder of a test's own (removed with it) holding the suite's
// tournament's manifest and its first `n` records; More lands the next.
struct Landed {
  explicit Landed(size_t n) { More(0, n); }
  void More(size_t begin, size_t end) const { Land(played, dir, names, begin, end); }
  const std::string& played = PlayedRecords();
  const std::vector<std::string> names = RecordNames(played);
  TempFolder t;
  const std::string dir = t.path + "/records";
};

struct Served {
  explicit Served(const std::string& dir, ServeOptions so = {}, LiveOptions lo = {}) {
    lo.poll = absl::Milliseconds(50);
    lo.rebuild = absl::Milliseconds(100);
    lo.push_every = absl::Milliseconds(100);
    site = std::make_unique<LiveSite>(dir, lo);
    so.address = "127.0.0.1:0";
    auto s = LiveServer::Start(site.get(), so);
    EXPECT_TRUE(s.ok()) << s.status();
    server = *std::move(s);
    port = Port(server->address());
  }
  std::unique_ptr<LiveSite> site;
  std::unique_ptr<LiveServer> server;
  int port = 0;
};

TEST(LiveSite, IndexAndStreamFollowTheFolderAsRecordsLand) {
  const std::string& played = PlayedRecords();
  const auto names = RecordNames(played);
  ASSERT_EQ(names.size(), 24u);
  TempFolder t;
  const std::string dir = t.path + "/records";
  Land(played, dir, names, 0, 4);
  Served s(dir);
  // The page opened now holds the 4 matches.
  std::string index = Get(s.port, "/");
  EXPECT_EQ(Status(index), "HTTP/1.1 200 OK");
  EXPECT_NE(index.find("window.arenaRenderIndex"), std::string::npos);
  EXPECT_EQ(s.site->total_matches(), 4);
  // A stream opened with the 4: each record that lands is pushed within 1 s.
  const int fd = Connect(s.port);
  const std::string req = "GET /events?have=4 HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_EQ(::write(fd, req.data(), req.size()), static_cast<ssize_t>(req.size()));
  std::string got = ReadFor(fd, absl::Seconds(5), "\"total\":4");
  EXPECT_TRUE(absl::StrContains(got, "text/event-stream")) << got;
  for (size_t k = 4; k < names.size();) {
    const size_t next = std::min(k + 5, names.size());
    const absl::Time landed = absl::Now();
    Land(played, dir, names, k, next);
    k = next;
    const std::string want = absl::StrCat("\"total\":", k, ",");
    got = ReadFor(fd, absl::Seconds(5), want);
    EXPECT_TRUE(absl::StrContains(got, want)) << "after landing " << k << ": " << got;
    EXPECT_LT(absl::Now() - landed, absl::Seconds(1)) << k;
  }
  ::close(fd);
  // The final standings equal the tournament's own, row by row.
  s.site->Poll(/*last=*/true);
  std::ifstream f(played + "/standings.json");
  const std::string own((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  v1::Standings a, b;
  google::protobuf::util::JsonParseOptions po;
  po.ignore_unknown_fields = true;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(own, &a, po).ok());
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(s.site->standings_json(), &b, po).ok());
  EXPECT_EQ(b.matches_played(), 24);
  ASSERT_EQ(a.rows_size(), b.rows_size());
  for (int i = 0; i < a.rows_size(); ++i) {
    EXPECT_EQ(a.rows(i).bot(), b.rows(i).bot());
    EXPECT_EQ(a.rows(i).matches(), b.rows(i).matches());
    EXPECT_EQ(a.rows(i).wins(), b.rows(i).wins());
    EXPECT_DOUBLE_EQ(a.rows(i).elo(), b.rows(i).elo());
  }
  // Every finished match has its replay page; an unknown one is 404.
  const std::string page = absl::StrCat("/replays/", names[0].substr(0, names[0].find('.')), ".html");
  EXPECT_EQ(Status(Get(s.port, page)), "HTTP/1.1 200 OK");
  EXPECT_EQ(Status(Get(s.port, "/replays/nosuchmatch.html")), "HTTP/1.1 404 Not Found");
  const std::string list = Get(s.port, "/matches.json?from=20&to=30");
  EXPECT_EQ(Status(list), "HTTP/1.1 200 OK");
}

// A poll reads the records the kernel says arrived (inotify), and the
// folder whole when it must: with notifications off (listed whole every
// poll that it changed), after the kernel's queue overflowed (more than
// its 16,384 events between two polls: here 17,000 files not records), and
// for a shard's folder that got its manifest after it was made (looked at
// again on every poll, though DIR does not change). The whole listing's
// timer is an hour, so none of these is found by it.
TEST(LiveSite, FindsEveryRecordWhetherTheKernelToldOfItOrNot) {
  const std::string& played = PlayedRecords();
  const auto names = RecordNames(played);
  for (const bool notify : {true, false}) {
    SCOPED_TRACE(notify ? "inotify" : "listing");
    TempFolder t;
    const std::string dir = t.path + "/records";
    Land(played, dir, names, 0, 2);
    LiveOptions lo;
    lo.notify = notify;
    lo.full_listing = absl::Hours(1);
    LiveSite site(dir, lo);
    site.Poll();
    EXPECT_EQ(site.total_matches(), 2);
    Land(played, dir, names, 2, 5);
    site.Poll();
    EXPECT_EQ(site.total_matches(), 5);
    site.Poll();  // nothing new: nothing counted twice
    EXPECT_EQ(site.total_matches(), 5);
    if (notify) {
      for (int i = 0; i < 17000; ++i) {
        std::ofstream(absl::StrCat(dir, "/junk-", i, ".txt")) << "x";
      }
    }
    Land(played, dir, names, 5, 8);
    site.Poll();
    EXPECT_EQ(site.total_matches(), 8);
    // A shard folder made empty, its manifest and records written later.
    const std::string shard = dir + "/shard-1";
    fs::create_directories(shard);
    site.Poll();
    absl::SleepFor(absl::Milliseconds(50));
    Land(played, shard, names, 8, 10);
    site.Poll();
    site.Poll();  // the folder found, then its records read
    EXPECT_EQ(site.total_matches(), 10);
  }
}

// The live index holds the newest entries only, and a summary of every
// record (what the page draws from all matches): its counts equal those
// worked out here from the records themselves; a broken record counts as an
// error; the page embeds the newest LiveOptions::index_entries entries.
TEST(LiveSite, SummarisesEveryRecordAndListsOnlyTheNewest) {
  const std::string& played = PlayedRecords();
  const auto names = RecordNames(played);
  TempFolder t;
  const std::string dir = t.path + "/records";
  Land(played, dir, names, 0, names.size());
  std::ofstream(dir + "/broken-000001.rec") << "not a record";
  // The expected tallies, from the records.
  std::map<std::string, int64_t> bot_matches, bot_wins, score_count;
  std::vector<int64_t> seat_matches(2), seat_wins(2);
  for (const auto& n : names) {
    auto lines = ReadRecordFile(played + "/" + n);
    ASSERT_TRUE(lines.ok());
    const auto& h = lines->front().header();
    const auto& r = lines->back().result();
    for (int seat = 0; seat < h.seat_bots_size(); ++seat) {
      ++bot_matches[h.seat_bots(seat)];
      ++seat_matches[seat];
      if (r.placements(seat) == 1) ++bot_wins[h.seat_bots(seat)], ++seat_wins[seat];
      ++score_count[h.seat_bots(seat)];
    }
  }
  LiveOptions lo;
  lo.index_entries = 10;
  LiveSite site(dir, lo);
  site.Poll(/*last=*/true);
  google::protobuf::Struct u;
  LiveSite::PageState fresh;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(site.UpdateJson(&fresh), &u).ok());
  v1::MatchListSummary sum;
  std::string sum_json;
  ASSERT_TRUE(google::protobuf::util::MessageToJsonString(u.fields().at("summary"), &sum_json).ok());
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(sum_json, &sum).ok()) << sum_json;
  EXPECT_EQ(sum.records(), static_cast<int64_t>(names.size()) + 1);
  EXPECT_EQ(sum.errors(), 1);
  ASSERT_EQ(sum.by_seat_size(), 2);
  for (int seat = 0; seat < 2; ++seat) {
    EXPECT_EQ(sum.by_seat(seat).matches(), seat_matches[seat]);
    EXPECT_EQ(sum.by_seat(seat).wins(), seat_wins[seat]);
  }
  ASSERT_EQ(sum.bots_size(), static_cast<int>(bot_matches.size()));
  for (const auto& [bot, n] : bot_matches) {
    const auto& b = sum.bots().at(bot);
    int64_t matches = 0, wins = 0, scores = 0;
    for (const auto& x : b.seats()) matches += x.matches(), wins += x.wins();
    for (const auto& x : b.scores()) scores += x.count();
    EXPECT_EQ(matches, n) << bot;
    EXPECT_EQ(wins, bot_wins[bot]) << bot;
    EXPECT_EQ(scores, score_count[bot]) << bot;
  }
  // The page: the 10 newest entries (the last 10 names), and the count of
  // all for the script.
  const std::string page = site.IndexPage();
  EXPECT_TRUE(absl::StrContains(page, "window.arenaLiveInit = {\"total\":25,"));
  int listed = 0;
  for (size_t at = page.find("{\"file\":"); at != std::string::npos;
       at = page.find("{\"file\":", at + 1)) {
    ++listed;
  }
  EXPECT_EQ(listed, 10);
  EXPECT_TRUE(absl::StrContains(page, names.back()));
  EXPECT_FALSE(absl::StrContains(page, names[names.size() - 11]));
}

// Shards of one tournament writing into folders of a shared one, the
// second starting later: the standings combine them as they land.
// A page is sent the standings and the summary only when they changed
// since it was last sent them (the standings of a big field are tens of KB,
// and a stream's update goes to every open page); a fresh page gets both.
TEST(LiveSite, SendsAPageTheStandingsAndSummaryOnlyWhenTheyChanged) {
  const Landed l(4);
  LiveSite site(l.dir, LiveOptions{});
  site.Poll(/*last=*/true);
  auto parse = [](const std::string& json) {
    google::protobuf::Struct u;
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &u).ok()) << json;
    return u;
  };
  auto is_null = [](const google::protobuf::Struct& u, const std::string& key) {
    return u.fields().at(key).kind_case() == google::protobuf::Value::kNullValue;
  };
  LiveSite::PageState page;
  auto u = parse(site.UpdateJson(&page));
  EXPECT_FALSE(is_null(u, "standings"));
  EXPECT_FALSE(is_null(u, "summary"));
  EXPECT_EQ(u.fields().at("standings").struct_value().fields().at("matches_played").number_value(), 4);
  EXPECT_EQ(page.have, 4);
  // Nothing new: neither is sent again, nor any match.
  u = parse(site.UpdateJson(&page));
  EXPECT_TRUE(is_null(u, "standings"));
  EXPECT_TRUE(is_null(u, "summary"));
  EXPECT_EQ(u.fields().at("matches").list_value().values_size(), 0);
  // Two records land: the summary is sent at once; the standings once
  // rebuilt (Poll(true) rebuilds them now).
  l.More(4, 6);
  site.Poll(/*last=*/true);
  LiveSite::PageState other;  // a page opened now
  other.have = 6;
  u = parse(site.UpdateJson(&page));
  EXPECT_FALSE(is_null(u, "summary"));
  EXPECT_EQ(u.fields().at("standings").struct_value().fields().at("matches_played").number_value(), 6);
  EXPECT_EQ(u.fields().at("matches").list_value().values_size(), 2);
  u = parse(site.UpdateJson(&other));
  EXPECT_FALSE(is_null(u, "standings"));
  EXPECT_FALSE(is_null(u, "summary"));
  EXPECT_EQ(u.fields().at("matches").list_value().values_size(), 0);
  u = parse(site.UpdateJson(&page));
  EXPECT_TRUE(is_null(u, "standings"));
  EXPECT_TRUE(is_null(u, "summary"));
}

// While records land, the standings are rebuilt at most every
// rebuild_spacing times their last rebuild's duration: with a spacing no
// rebuild can meet they stay as first built until the writer is done; with
// none they follow every poll.
TEST(LiveSite, StandingsRebuildsAreSpacedByTheirCost) {
  const std::string& played = PlayedRecords();
  const auto names = RecordNames(played);
  auto played_in = [](const LiveSite& site) {
    google::protobuf::Struct st;
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(site.standings_json(), &st).ok());
    return st.fields().at("matches_played").number_value();
  };
  for (const int spacing : {1000000000, 0}) {
    SCOPED_TRACE(spacing);
    TempFolder t;
    const std::string dir = t.path + "/records";
    Land(played, dir, names, 0, 4);
    LiveOptions lo;
    lo.rebuild = absl::ZeroDuration();
    lo.rebuild_spacing = spacing;
    lo.quiet = absl::Hours(1);  // records keep landing, as far as it knows
    LiveSite site(dir, lo);
    site.Poll();
    EXPECT_EQ(played_in(site), 4);
    for (size_t k = 4; k < 10; k += 2) {
      Land(played, dir, names, k, k + 2);
      site.Poll();
      EXPECT_EQ(site.total_matches(), static_cast<int64_t>(k + 2));
      EXPECT_EQ(played_in(site), spacing > 0 ? 4 : k + 2);
    }
    site.Poll(/*last=*/true);
    EXPECT_EQ(played_in(site), 10);
  }
}

// The records a tournament hands its own live site (Offer, from the record
// writer's finished-hook) show as if read from the folder: the same list,
// summary and standings; a record offered after it was read, or read after
// it was offered, counts once (a record is not read back once offered:
// spoilt after its offer, it still shows whole); an offer for a folder the
// site does not follow is dropped.
TEST(LiveSite, RecordsHandedOverShowAsIfReadAndCountOnce) {
  const std::string& played = PlayedRecords();
  const auto names = RecordNames(played);
  TempFolder t;
  const std::string read_dir = t.path + "/read", offered_dir = t.path + "/offered";
  Land(played, read_dir, names, 0, names.size());
  fs::create_directories(offered_dir);
  fs::copy_file(played + "/manifest.json", offered_dir + "/manifest.json");
  LiveSite read(read_dir, LiveOptions{}), offered(offered_dir, LiveOptions{});
  offered.Poll();
  // Each record written again through a writer whose hook offers its lines.
  for (size_t i = 0; i < names.size(); ++i) {
    auto lines = ReadRecordFile(played + "/" + names[i]);
    ASSERT_TRUE(lines.ok()) << lines.status();
    auto w = RecordWriter::Open(offered_dir, lines->front().header().match_id());
    ASSERT_TRUE(w.ok());
    (*w)->set_on_finished([&](const std::string& path, std::vector<v1::RecordLine> kept) {
      offered.Offer(path, std::move(kept));
    });
    ASSERT_TRUE((*w)->AppendAll(*lines).ok());
    ASSERT_TRUE((*w)->Finish().ok());
    if (i == 10) offered.Poll();  // some read from the folder first, some offered first
    // The last one's file spoilt after it was offered: only the offer can
    // show it whole (a site that read it back would list an error).
    if (i + 1 == names.size()) std::ofstream((*w)->final_path(), std::ios::trunc) << "spoilt";
    if (i == 5) {  // and one offered again once read
      offered.Poll();
      auto again = ReadRecordFile((*w)->final_path());
      ASSERT_TRUE(again.ok());
      offered.Offer((*w)->final_path(), *again);
    }
  }
  offered.Offer(t.path + "/elsewhere/x.rec", {});  // a folder not followed
  read.Poll(/*last=*/true);
  offered.Poll(/*last=*/true);
  EXPECT_EQ(offered.total_matches(), static_cast<int64_t>(names.size()));
  EXPECT_EQ(read.total_matches(), offered.total_matches());
  EXPECT_EQ(read.standings_json(), offered.standings_json());
  LiveSite::PageState a, b;
  a.have = b.have = 0;
  auto ua = read.UpdateJson(&a), ub = offered.UpdateJson(&b);
  // The same list entries and summary (the order may differ: arrival).
  google::protobuf::Struct sa, sb;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(ua, &sa).ok());
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(ub, &sb).ok());
  EXPECT_EQ(sa.fields().at("summary").DebugString(), sb.fields().at("summary").DebugString());
  std::vector<std::string> la, lb;
  for (const std::string& j : {read.MatchesJson(0, 100), offered.MatchesJson(0, 100)}) {
    google::protobuf::ListValue l;
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(j, &l).ok()) << j;
    auto& out = la.empty() ? la : lb;
    for (const auto& v : l.values()) out.push_back(v.DebugString());
    std::sort(out.begin(), out.end());
  }
  EXPECT_EQ(la, lb);
}

// A match in progress, its page opened mid-match by the first viewer (no
// one watched it before, so the poll had not read it): the page holds the
// spectator's view of the match as far as it is recorded, not "null" until
// the next poll; and the page's stream starts from the same view. The
// update lists it with its seats' bots.
TEST(LiveSite, ALiveMatchPageOpenedMidMatchHoldsItsStateThen) {
  const Landed l(2);
  // The third match, half played: its first lines, as JSON lines, in its .part.
  auto lines = ReadRecordFile(l.played + "/" + l.names[2]);
  ASSERT_TRUE(lines.ok()) << lines.status();
  ASSERT_GT(lines->size(), 6u);
  const std::vector<v1::RecordLine> half(lines->begin(), lines->begin() + lines->size() / 2);
  const std::string id = half.front().header().match_id();
  fs::create_directories(l.dir + "/.inprogress");
  {
    std::ofstream part(l.dir + "/.inprogress/" + id + ".jsonl.part");
    for (const auto& l : half) {
      std::string json;
      ASSERT_TRUE(google::protobuf::util::MessageToJsonString(l, &json).ok());
      part << json << "\n";
    }
  }
  auto want = SpectatorJson(half, id);
  ASSERT_TRUE(want.ok()) << want.status();
  ASSERT_TRUE(absl::StrContains(*want, "\"steps\":[{")) << *want;
  LiveSite site(l.dir, LiveOptions{});
  site.Poll();
  LiveSite::PageState fresh;
  const std::string update = site.UpdateJson(&fresh);
  ASSERT_TRUE(absl::StrContains(update, absl::StrCat("\"live\":[\"", id)));
  // Listed with its seats' bots, read from its header.
  const auto& bots = half.front().header().seat_bots();
  ASSERT_GE(bots.size(), 2);
  const std::vector<std::string> seats(bots.begin(), bots.end());
  const std::vector<LiveSite::LiveMatchInfo> playing = site.LiveMatches(10);
  ASSERT_EQ(playing.size(), 1u);
  EXPECT_EQ(playing[0].id, id);
  EXPECT_EQ(playing[0].seats, seats);
  EXPECT_TRUE(absl::StrContains(update, absl::StrCat("\"live_seats\":{", JsonString(id), ":[",
                                                     JsonString(seats[0]), ",")))
      << update;
  auto page = site.LiveMatchPage(id);
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_FALSE(absl::StrContains(*page, "id=\"live-data\">null<"));
  EXPECT_TRUE(absl::StrContains(*page, absl::StrCat("id=\"live-data\">", ScriptSafe(*want),
                                                    "</script>")));
  bool ended = true;
  auto json = site.LiveMatchJson(id, &ended);
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_FALSE(ended);
  EXPECT_EQ(*json, *want);
}

// An adaptive contest's schedule.json is in the live index and goes out
// with the standings: to a fresh page, and again to every page when a round
// rewrites it (the page names the comparisons still undecided).
TEST(LiveSite, TheScheduleGoesOutWithTheStandings) {
  const Landed l(4);
  auto plan = [&](int rounds, bool separated) {
    std::ofstream(l.dir + "/.schedule.tmp") << absl::StrCat(
        "{\"kind\": \"SCHEDULE_KIND_ADAPTIVE\", \"rounds\": ", rounds,
        ", \"budget\": 100, \"top_k\": 1, \"comparisons\": [{\"ahead\": \"a\", "
        "\"behind\": \"b\", \"elo_diff\": 12, \"sd\": 30, \"p\": 0.3, \"separated\": ",
        separated ? "true" : "false", "}]}");
    fs::rename(l.dir + "/.schedule.tmp", l.dir + "/schedule.json");
  };
  plan(2, false);
  LiveSite site(l.dir, LiveOptions{});
  site.Poll(/*last=*/true);
  EXPECT_TRUE(absl::StrContains(site.IndexPage(), "id=\"schedule-data\">{\"kind\":"
                                                  "\"SCHEDULE_KIND_ADAPTIVE\",\"bots\":0,"));
  auto schedule = [](const std::string& update) {
    google::protobuf::Struct u;
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(update, &u).ok()) << update;
    const auto& v = u.fields().at("schedule");
    return v.kind_case() == google::protobuf::Value::kNullValue
               ? std::string("null")
               : absl::StrCat(v.struct_value().fields().at("rounds").number_value(), " ",
                              v.struct_value().fields().at("comparisons").list_value()
                                  .values(0).struct_value().fields().at("separated")
                                  .bool_value());
  };
  LiveSite::PageState page;
  EXPECT_EQ(schedule(site.UpdateJson(&page)), "2 0");
  EXPECT_EQ(schedule(site.UpdateJson(&page)), "null");  // the page has it
  absl::SleepFor(absl::Milliseconds(20));  // a new modification time
  plan(3, true);
  site.Poll();
  EXPECT_EQ(schedule(site.UpdateJson(&page)), "3 1");
}

// The live index's counts are the records': while the standings, rebuilt
// less often (here: not until the writer is done), are of fewer records,
// each update says how many records there are (the summary's) beside the
// standings' own count, and the page says how far behind they are.
TEST(LiveSite, TheIndexCountsTheRecordsAndSaysWhenTheStandingsLag) {
  const Landed l(1);
  LiveOptions lo;
  lo.rebuild_spacing = 1000000000;
  lo.quiet = absl::Hours(1);
  LiveSite site(l.dir, lo);
  site.Poll();
  l.More(1, 22);
  site.Poll();
  LiveSite::PageState page;
  google::protobuf::Struct u;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(site.UpdateJson(&page), &u).ok());
  const auto& f = u.fields();
  EXPECT_EQ(f.at("total").number_value(), 22);
  const auto& records = f.at("summary").struct_value().fields().at("records");  // an int64
  EXPECT_TRUE(records.string_value() == "22" || records.number_value() == 22)
      << records.DebugString();
  EXPECT_EQ(f.at("standings").struct_value().fields().at("matches_played").number_value(), 1);
  // The page draws the summary line from the records and the lag note from
  // both counts (arena/views/html/standings.js; tests/browser/site_test.js
  // draws it).
  const std::string index = site.IndexPage();
  EXPECT_TRUE(absl::StrContains(index, "Standings of ${fmt(ST.matches_played || 0)} of "
                                       "${fmt(played)} records; rebuilding."));
  EXPECT_TRUE(absl::StrContains(index, "\"records\":\"22\"") ||
              absl::StrContains(index, "\"records\":22"))
      << index.substr(0, 3000);
}

TEST(LiveSite, CombinesShardFoldersAsTheyAppear) {
  const std::string& played = PlayedRecords();
  const auto names = RecordNames(played);
  TempFolder t;
  const std::string dir = t.path + "/shared";
  fs::create_directories(dir);
  Served s(dir);
  Land(played, dir + "/shard-0", names, 0, 6);
  const std::string want6 = "\"matches_played\":6,";
  for (int i = 0; i < 50 && !absl::StrContains(s.site->standings_json(), want6); ++i) {
    absl::SleepFor(absl::Milliseconds(100));
  }
  EXPECT_TRUE(absl::StrContains(s.site->standings_json(), want6)) << s.site->standings_json();
  Land(played, dir + "/shard-1", names, 6, 24);
  Land(played, dir + "/shard-0", names, 0, 0);
  const std::string want24 = "\"matches_played\":24,";
  for (int i = 0; i < 50 && !absl::StrContains(s.site->standings_json(), want24); ++i) {
    absl::SleepFor(absl::Milliseconds(100));
  }
  EXPECT_TRUE(absl::StrContains(s.site->standings_json(), want24)) << s.site->standings_json();
  EXPECT_EQ(s.site->total_matches(), 24);
}

TEST(LiveServer, RefusesTraversalEncodedPathsLinksOutAndInProgressFiles) {
  const Landed l(2);
  // Outside the folder: a secret, and a real record the folder links to.
  std::ofstream(l.t.path + "/secret.txt") << "SECRET-OUTSIDE";
  fs::copy_file(l.played + "/" + l.names[5], l.t.path + "/outside.rec");
  fs::create_symlink(l.t.path + "/outside.rec", l.dir + "/linked.rec");
  fs::create_symlink(l.t.path + "/secret.txt", l.dir + "/secret.rec");
  fs::create_directories(l.dir + "/.inprogress");
  std::ofstream(l.dir + "/.inprogress/x.rec.part") << "PART-CONTENT";
  Served s(l.dir);
  for (const std::string target :
       {"/../secret.txt", "/..%2fsecret.txt", "/%2e%2e/secret.txt", "/replays/../../secret.txt",
        "/replays/..%2F..%2Fsecret.html", "/replays/%2e%2e%2fsecret.html", "/replays/linked.html",
        "/replays/secret.html", "/live/linked.html", "/.inprogress/x.rec.part",
        "/live/x/../../.inprogress/x.rec.part", "/manifest.json", "/standings.json",
        "//etc/passwd", "/replays/....//secret.html", "/live/%00.html"}) {
    const std::string answer = Get(s.port, target);
    EXPECT_EQ(Status(answer), "HTTP/1.1 404 Not Found") << target;
    EXPECT_FALSE(absl::StrContains(answer, "SECRET-OUTSIDE")) << target;
    EXPECT_FALSE(absl::StrContains(answer, "PART-CONTENT")) << target;
  }
  // The links are not listed: the index has the 2 records only.
  EXPECT_EQ(s.site->total_matches(), 2);
  EXPECT_FALSE(absl::StrContains(Get(s.port, "/"), "SECRET-OUTSIDE"));
  // Not GET, or a body: refused.
  const int fd = Connect(s.port);
  const std::string post = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello";
  (void)!::write(fd, post.data(), post.size());
  const std::string answer = ReadFor(fd, absl::Seconds(5));
  ::close(fd);
  EXPECT_TRUE(absl::StartsWith(answer, "HTTP/1.1 413") || absl::StartsWith(answer, "HTTP/1.1 405"))
      << answer;
}

// The pages' updates a second are bounded (ServeOptions::
// max_updates_per_second): up to that many pages get one every push_every,
// more pages get them less often, in proportion.
TEST(LiveServer, ManyPagesAreUpdatedLessOftenWithinTheBound) {
  const absl::Duration every = absl::Milliseconds(750);
  EXPECT_EQ(PushInterval(every, 0, 500), every);
  EXPECT_EQ(PushInterval(every, 375, 500), every);  // 375 / 500 s = 0.75 s
  EXPECT_EQ(PushInterval(every, 376, 500), absl::Milliseconds(752));
  EXPECT_EQ(PushInterval(every, 1000, 500), absl::Seconds(2));
  EXPECT_EQ(PushInterval(every, 10000, 500), absl::Seconds(20));
  EXPECT_EQ(PushInterval(every, 1000, 0), every);  // no bound
}

// --serve_updates_per_s below 1 is refused, naming the flag, by `arena
// serve` and by `arena tournament --serve` (before any match).
TEST(LiveServer, AnUpdateBoundBelowOneIsRefused) {
  TempFolder t;
  for (const std::string& cmd :
       {absl::StrCat(kBin, "/arena serve ", t.path, " --serve 127.0.0.1:0 --serve_updates_per_s 0"),
        absl::StrCat(kBin, "/arena tournament --game quasenbo --games 2 --sandbox none --records ",
                     t.path, "/r --bot a=", kBin, "/random_bot --bot b=", kBin,
                     "/random_bot --serve 127.0.0.1:0 --serve_updates_per_s -3")}) {
    FILE* f = ::popen(absl::StrCat(cmd, " 2>&1").c_str(), "r");
    ASSERT_NE(f, nullptr);
    std::string out;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
    const int rc = ::pclose(f);
    EXPECT_NE(rc, 0) << cmd;
    EXPECT_TRUE(absl::StrContains(out, "--serve_updates_per_s: 1 or more")) << out;
  }
  EXPECT_FALSE(fs::exists(t.path + "/r")) << "a refused tournament made its folder";
}

TEST(LiveServer, OversizedHeaderIs431AndTheServerGoesOn) {
  TempFolder t;
  Land(PlayedRecords(), t.path, RecordNames(PlayedRecords()), 0, 1);
  Served s(t.path);
  const std::string big = absl::StrCat("X-Big: ", std::string(100000, 'a'), "\r\n");
  EXPECT_EQ(Status(Get(s.port, "/", big)), "HTTP/1.1 431 Request Header Fields Too Large");
  std::string many;
  for (int i = 0; i < 2000; ++i) absl::StrAppend(&many, "X-H", i, ": v\r\n");
  EXPECT_EQ(Status(Get(s.port, "/", many)), "HTTP/1.1 431 Request Header Fields Too Large");
  EXPECT_EQ(Status(Get(s.port, "/")), "HTTP/1.1 200 OK");
}

TEST(LiveServer, TenThousandIdleConnectionsAreBoundedAndTimedOut) {
  // Raise this process's descriptor limit (the server shares it).
  rlimit rl;
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &rl), 0);
  rl.rlim_cur = rl.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &rl);
  const int want = 10000;
  // The server's own descriptors (at most max_connections) come out of the
  // same limit.
  const int idle_count = std::min<int>(want, static_cast<int>(rl.rlim_cur) - 1000 - 500);
  if (idle_count < want) {
    std::printf("descriptor limit %d: %d idle connections instead of %d\n",
                static_cast<int>(rl.rlim_cur), idle_count, want);
  }
  TempFolder t;
  Land(PlayedRecords(), t.path, RecordNames(PlayedRecords()), 0, 1);
  ServeOptions so;
  so.max_connections = 1000;
  so.header_timeout = absl::Seconds(2);
  Served s(t.path, so);
  std::vector<int> idle;
  for (int i = 0; i < idle_count; ++i) {
    const int fd = Connect(s.port);
    if (fd >= 0) idle.push_back(fd);
    if (i % 500 == 0 && i > 0) {
      (void)!::write(idle.back(), "G", 1);  // a slow starter too
    }
  }
  std::printf("%zu idle connections open; server holds %d, refused %lld\n", idle.size(),
              s.server->connections(), static_cast<long long>(s.server->refused()));
  EXPECT_LE(s.server->connections(), 1000);
  // The server's own slots free within the header time: a request then gets in.
  absl::SleepFor(absl::Seconds(3));
  EXPECT_LT(s.server->connections(), 1000);
  const absl::Time t0 = absl::Now();
  EXPECT_EQ(Status(Get(s.port, "/")), "HTTP/1.1 200 OK");
  std::printf("a request with %zu idle connections open: %lld ms\n", idle.size(),
              static_cast<long long>(absl::ToInt64Milliseconds(absl::Now() - t0)));
  for (int fd : idle) ::close(fd);
}

TEST(LiveServer, ClientThatReadsNothingIsDroppedOthersGoOn) {
  const Landed l(1);
  ServeOptions so;
  so.max_queued_bytes = 4 * 1024;
  so.stream_send_buffer = 4 * 1024;
  so.write_timeout = absl::Seconds(2);
  Served s(l.dir, so);
  // A stream whose client never reads, with the smallest receive buffer.
  const int dead = ConnectWithSmallBuffer(s.port);
  ASSERT_GE(dead, 0);
  const std::string req = "GET /events HTTP/1.1\r\nHost: x\r\n\r\n";
  (void)!::write(dead, req.data(), req.size());
  // And one that reads.
  const int live = Connect(s.port);
  (void)!::write(live, req.data(), req.size());
  // Many updates, each pushed to both streams.
  std::string got;
  for (size_t n = 1; n < l.names.size(); ++n) {
    l.More(n, n + 1);
    got += ReadFor(live, absl::Milliseconds(150));  // the reader reads as it goes
    (void)Get(s.port, "/matches.json");
  }
  got += ReadFor(live, absl::Seconds(5), absl::StrCat("\"total\":", l.names.size()));
  EXPECT_TRUE(absl::StrContains(got, absl::StrCat("\"total\":", l.names.size())));
  // The non-reader was closed (its queue bound or write time), the reader not.
  absl::SleepFor(absl::Seconds(3));
  // Drain what the kernel holds for it: then the end of the stream.
  (void)ReadFor(dead, absl::Seconds(5));
  char c;
  EXPECT_EQ(::recv(dead, &c, 1, MSG_DONTWAIT), 0) << "the non-reading stream is still open";
  EXPECT_EQ(Status(Get(s.port, "/")), "HTTP/1.1 200 OK");
  ::close(dead);
  ::close(live);
}

// Stop writes each stream's last events out before it closes the
// connections: readers that fall behind (small buffers, so that what they
// have not read cannot all wait in the kernel) and read only once Stop has
// begun still get the final state, whole, and then the end of the stream.
// (last_flush is long here, so that a loaded machine, where the server's
// idle-priority thread gets little time, cannot make it give up.)
TEST(LiveServer, StopWritesTheLastEventsOutBeforeClosing) {
  const Landed l(1);
  ServeOptions so;
  so.stream_send_buffer = 4 * 1024;
  so.last_flush = absl::Seconds(20);
  Served s(l.dir, so);
  const std::string req = "GET /events HTTP/1.1\r\nHost: x\r\n\r\n";
  std::vector<int> readers;
  for (int i = 0; i < 8; ++i) {
    const int fd = ConnectWithSmallBuffer(s.port);
    ASSERT_GE(fd, 0);
    (void)!::write(fd, req.data(), req.size());
    EXPECT_TRUE(absl::StrContains(ReadFor(fd, absl::Seconds(10), "\"total\":1"), "\"total\":1"));
    readers.push_back(fd);
  }
  // The rest land one by one, each pushed (with new standings) to streams
  // that are not read meanwhile.
  for (size_t n = 1; n < l.names.size(); ++n) {
    l.More(n, n + 1);
    absl::SleepFor(absl::Milliseconds(120));
  }
  std::thread stop([&] { s.server->Stop(); });
  absl::SleepFor(absl::Milliseconds(100));
  std::vector<std::string> got(readers.size());
  std::vector<std::thread> reading;
  for (size_t i = 0; i < readers.size(); ++i) {
    reading.emplace_back([&, i] { got[i] = ReadFor(readers[i], absl::Seconds(30)); });
  }
  for (auto& r : reading) r.join();  // each to the end of its stream
  stop.join();
  for (size_t i = 0; i < readers.size(); ++i) {
    const size_t at = got[i].rfind("data: ");
    ASSERT_NE(at, std::string::npos) << "reader " << i << " got no event after Stop began";
    const std::string last = got[i].substr(at + 6);
    EXPECT_TRUE(absl::StartsWith(last, "{")) << last.substr(0, 200);
    EXPECT_TRUE(absl::EndsWith(last, "}\n\n")) << "reader " << i << ": the last event is cut short";
    EXPECT_TRUE(absl::StrContains(got[i], absl::StrCat("\"total\":", l.names.size())))
        << "reader " << i << ": " << got[i].size() << " bytes read after Stop began";
    ::close(readers[i]);
  }
}

// A real tournament with --serve, hostile clients all along: it records
// every match, and the server answers to the end.
TEST(LiveServer, TournamentWithServeKeepsGoingUnderHostileClients) {
  TempFolder t;
  const std::string dir = t.path + "/records";
  const std::string out = t.path + "/out.txt";
  const std::string cmd = absl::StrCat(
      kBin, "/arena tournament --game quasenbo --games 60 --jobs 2 --seed 9 --sandbox none ",
      "--progress=false --decision_ms 2000 --records ", dir, " --serve 127.0.0.1:0 --bot a=", kBin,
      "/random_bot --bot b=", kBin, "/random_bot > ", out, " 2>&1");
  std::thread run([&] { EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd; });
  int port = 0;
  for (int i = 0; i < 200 && port == 0; ++i) {
    absl::SleepFor(absl::Milliseconds(50));
    std::ifstream f(out);
    std::string line;
    while (std::getline(f, line)) {
      if (absl::StartsWith(line, "live site: http://")) {
        port = Port(line.substr(0, line.find("/ (")));
      }
    }
  }
  ASSERT_NE(port, 0) << "no address printed";
  std::vector<int> idle;
  for (int i = 0; i < 1500; ++i) {
    const int fd = Connect(port);
    if (fd >= 0) idle.push_back(fd);
  }
  const int dead = Connect(port);
  const std::string req = "GET /events HTTP/1.1\r\nHost: x\r\n\r\n";
  if (dead >= 0) (void)!::write(dead, req.data(), req.size());
  int answered = 0;
  for (int i = 0; i < 5; ++i) {
    answered += Status(Get(port, "/../standings.json")) == "HTTP/1.1 404 Not Found";
    answered += absl::StartsWith(
        Get(port, "/", absl::StrCat("X-Big: ", std::string(20000, 'x'), "\r\n")), "HTTP/1.1 431");
  }
  run.join();
  for (int fd : idle) ::close(fd);
  if (dead >= 0) ::close(dead);
  EXPECT_GT(answered, 0);
  EXPECT_EQ(RecordNames(dir).size(), 60u);
  std::ifstream f(out);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(absl::StrContains(text, "live site: http://127.0.0.1:")) << text;
}

// Sends a request on a new connection and returns it, unread.
int Ask(int port, const std::string& target) {
  const int fd = Connect(port);
  const std::string req = absl::StrCat("GET ", target, " HTTP/1.1\r\nHost: x\r\n\r\n");
  if (fd >= 0) (void)!::write(fd, req.data(), req.size());
  return fd;
}

// A replay that takes seconds to build (the build is held 3 s on its
// worker) does not hold up the site: while it builds, 100 event streams
// each get the update for records that landed within 1.5 s, and the index
// answers within 200 ms; then the replay comes.
TEST(LiveServer, ASlowReplayHoldsUpNoOtherRequestOrStream) {
  const Landed l(4);
  std::atomic<int> replay_builds{0};
  ServeOptions so;
  so.before_page_build = [&](const std::string& path) {
    if (absl::StartsWith(path, "/replays/")) {
      ++replay_builds;
      absl::SleepFor(absl::Seconds(3));
    }
  };
  Served s(l.dir, so);
  std::vector<int> viewers;
  for (int i = 0; i < 100; ++i) {
    viewers.push_back(Ask(s.port, "/events?have=4"));
    ASSERT_GE(viewers.back(), 0) << i;
  }
  for (int fd : viewers) {
    const std::string first = ReadFor(fd, absl::Seconds(10), "\"total\":4");
    ASSERT_TRUE(absl::StrContains(first, "\"total\":4")) << first;
  }
  const std::string page = absl::StrCat("/replays/", l.names[0].substr(0, l.names[0].find('.')),
                                        ".html");
  const int replay = Ask(s.port, page);
  const int again = Ask(s.port, page);  // the same page, asked during its build
  for (int i = 0; i < 200 && replay_builds.load() == 0; ++i) absl::SleepFor(absl::Milliseconds(5));
  ASSERT_EQ(replay_builds.load(), 1);

  const absl::Time landed = absl::Now();
  l.More(4, 9);
  std::map<int, std::string> got;
  std::map<int, absl::Duration> took;
  const std::string want = "\"total\":9,";
  while (took.size() < viewers.size() && absl::Now() - landed < absl::Seconds(5)) {
    std::vector<pollfd> p;
    for (int fd : viewers) {
      if (!took.count(fd)) p.push_back({fd, POLLIN, 0});
    }
    if (::poll(p.data(), p.size(), 50) <= 0) continue;
    for (const pollfd& q : p) {
      if (!(q.revents & POLLIN)) continue;
      char buf[65536];
      const ssize_t n = ::read(q.fd, buf, sizeof buf);
      if (n > 0) got[q.fd].append(buf, n);
      if (absl::StrContains(got[q.fd], want)) took[q.fd] = absl::Now() - landed;
    }
  }
  EXPECT_EQ(took.size(), viewers.size()) << "streams that got no update for the new records";
  absl::Duration slowest;
  for (const auto& [fd, d] : took) slowest = std::max(slowest, d);
  EXPECT_LE(slowest, absl::Milliseconds(1500));

  const absl::Time asked = absl::Now();
  const std::string index = Get(s.port, "/");
  const absl::Duration index_took = absl::Now() - asked;
  EXPECT_EQ(Status(index), "HTTP/1.1 200 OK");
  EXPECT_LE(index_took, absl::Milliseconds(200));
  // All of it while the replay was still being built.
  pollfd r{replay, POLLIN, 0};
  EXPECT_EQ(::poll(&r, 1, 0), 0) << "the replay came before the rest was checked";

  const std::string answer = ReadFor(replay, absl::Seconds(20), "</html>");
  EXPECT_EQ(Status(answer), "HTTP/1.1 200 OK");
  EXPECT_EQ(Status(ReadFor(again, absl::Seconds(20), "</html>")), "HTTP/1.1 200 OK");
  // One build for both askers, and the next one is answered from the cache.
  EXPECT_EQ(Status(Get(s.port, page)), "HTTP/1.1 200 OK");
  EXPECT_EQ(replay_builds.load(), 1);
  for (int fd : viewers) ::close(fd);
  ::close(replay);
  ::close(again);
}

// The builds are bounded: with one worker and one place in its queue, a
// third replay asked at once is refused with 503 and Retry-After, and the
// server goes on (the first two are answered, the third later too).
TEST(LiveServer, ReplayBuildsBeyondTheQueueAre503) {
  const Landed l(4);
  ServeOptions so;
  so.page_threads = 1;
  so.max_waiting_pages = 1;
  std::atomic<int> started{0};
  so.before_page_build = [&](const std::string& path) {
    if (absl::StartsWith(path, "/replays/")) {
      ++started;
      absl::SleepFor(absl::Milliseconds(800));
    }
  };
  Served s(l.dir, so);
  auto page = [&](int i) {
    return absl::StrCat("/replays/", l.names[i].substr(0, l.names[i].find('.')), ".html");
  };
  const int first = Ask(s.port, page(0));
  for (int i = 0; i < 200 && started.load() == 0; ++i) absl::SleepFor(absl::Milliseconds(5));
  const int second = Ask(s.port, page(1));  // waits in the queue
  absl::SleepFor(absl::Milliseconds(100));
  const std::string third = Get(s.port, page(2));
  EXPECT_EQ(Status(third), "HTTP/1.1 503 Service Unavailable") << third;
  EXPECT_TRUE(absl::StrContains(third, "Retry-After: 2")) << third;
  EXPECT_EQ(Status(ReadFor(first, absl::Seconds(20), "</html>")), "HTTP/1.1 200 OK");
  EXPECT_EQ(Status(ReadFor(second, absl::Seconds(20), "</html>")), "HTTP/1.1 200 OK");
  EXPECT_EQ(Status(Get(s.port, page(2))), "HTTP/1.1 200 OK");
  EXPECT_EQ(Status(Get(s.port, "/replays/nosuchmatch.html")), "HTTP/1.1 404 Not Found");
  ::close(first);
  ::close(second);
}

}  // namespace
}  // namespace arena
