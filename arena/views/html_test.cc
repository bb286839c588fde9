// arena html: the site from a records folder; bad records and hostile names.
#include "arena/views/html.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "arena/common/json_file.h"
#include "arena/v1/replay.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "referee/records/record.h"
#include "arena/views/replay.h"
#include "zlib.h"
#include "tests/test_util.h"

namespace arena {
namespace {

using testing::ReadFile;

class HtmlSite : public ::testing::Test {
 protected:
  // A folder of the test's own in the system temp folder, removed with the
  // fixture (ARENA_KEEP_TEST_DIRS keeps it): see tests/test_util.h.
  HtmlSite()
      : tmp_(testing::FreshTempDir(absl::StrCat(
            "html-", ::testing::UnitTest::GetInstance()->current_test_info()->name()))),
        dir_(tmp_.path()) {}

  // Plays a quasenbo match between bots with these names into dir_.
  void Play(const std::string& id, std::vector<std::string> names, bool tamper = false) {
    auto game = CreateGame("quasenbo", {}, 2);
    ASSERT_TRUE(game.ok());
    MatchSpec spec;
    spec.game_name = "quasenbo";
    spec.match_id = id;
    spec.seed = 5;
    spec.seat_bots = std::move(names);
    auto m = testing::PlayLocal(**game, spec, testing::RandomPolicy(5));
    std::ofstream f(absl::StrCat(dir_, "/", id, ".jsonl"));
    for (size_t i = 0; i < m.record_lines.size(); ++i) {
      std::string line = m.record_lines[i];
      if (tamper && i + 1 == m.record_lines.size()) line = "{\"result\": {\"scores\": [9, 9]}}";
      f << line << "\n";
    }
  }
  const testing::TestDir tmp_;
  const std::string dir_;
};

TEST_F(HtmlSite, WritesAnIndexAndOneReplayPagePerRecord) {
  Play("m1", {"alice", "bob"});
  Play("m2", {"bob", "alice"});
  auto site = WriteHtmlSite(dir_, {});
  ASSERT_TRUE(site.ok()) << site.status();
  EXPECT_EQ(site->records, 2);
  EXPECT_EQ(site->replay_pages, 2);
  EXPECT_TRUE(site->failures.empty()) << absl::StrJoin(site->failures, "\n");
  const std::string index = ReadFile(absl::StrCat(dir_, "/html/index.html"));
  EXPECT_TRUE(absl::StrContains(index, "replays/m1.html"));
  EXPECT_TRUE(absl::StrContains(index, "replays/m2.html"));
  const std::string page = ReadFile(absl::StrCat(dir_, "/html/replays/m1.html"));
  EXPECT_TRUE(absl::StrContains(page, "data-encoding=\"gzip+base64\""));
  // Self-contained: nothing is fetched from elsewhere. (The replay page's
  // script can fetch its chunks of steps from the live server, which names
  // their address; a static page names none and holds its one chunk.)
  EXPECT_TRUE(absl::StrContains(page, "\"url\":\"\"}")) << "a chunk address to fetch";
  EXPECT_TRUE(absl::StrContains(page, "id=\"replay-chunk-0\"")) << "a short match's steps";
  for (const bool is_page : {false, true}) {
    const std::string& p = is_page ? page : index;
    for (const char* ref : {"src=\"http", "href=\"http", "url(http", "@import", "fetch(",
                            "XMLHttpRequest", "//cdn"}) {
      if (is_page && std::string(ref) == "fetch(") continue;
      EXPECT_FALSE(absl::StrContains(p, ref)) << "a network reference: " << ref;
    }
    if (is_page) continue;
    EXPECT_FALSE(absl::StrContains(p, "<script src")) << "an external script";
    EXPECT_FALSE(absl::StrContains(p, "<link")) << "an external stylesheet";
  }
  // The replay pages share their script and style, files beside them.
  EXPECT_EQ(std::vector<std::string>(absl::StrSplit(page, "<script src=")).size(), 2u);
  EXPECT_TRUE(absl::StrContains(page, "<script src=\"replay-page.js\"></script>"));
  EXPECT_EQ(std::vector<std::string>(absl::StrSplit(page, "<link")).size(), 2u);
  EXPECT_TRUE(absl::StrContains(page, "<link rel=\"stylesheet\" href=\"replay-page.css\">"));
  // (No standings.json here: the script's standings are null.)
  EXPECT_EQ(ReadFile(absl::StrCat(dir_, "/html/replays/replay-page.js")), ReplayPageScript("null"));
  EXPECT_EQ(ReadFile(absl::StrCat(dir_, "/html/replays/replay-page.css")), ReplayPageStyle());
  for (const char* ref : {"src=\"http", "href=\"http", "url(http", "@import", "XMLHttpRequest",
                          "//cdn", "import("}) {
    EXPECT_FALSE(absl::StrContains(ReplayPageScript(), ref)) << "a network reference: " << ref;
  }
}

// The JSON of the columns of chunk file `path` (arenaReplayChunk(k,"<gzip,
// base64>");).
std::string ChunkJson(const std::string& path, int k) {
  const std::string text = ReadFile(path);
  const std::string head = absl::StrCat("arenaReplayChunk(", k, ",\"");
  EXPECT_TRUE(absl::StartsWith(text, head)) << path;
  EXPECT_TRUE(absl::EndsWith(text, "\");\n")) << path;
  return testing::GunzipBase64(text.substr(head.size(), text.size() - head.size() - 4));
}

// A long match's page is in parts: the page holds no step, and its chunk
// files beside it hold every step once, in order, chunk_steps each but the
// last, the first of each with whole views (read alone) and the others with
// views as deltas; a viewer loads only the chunks it reaches (replay.js,
// tests/browser/site_test.js, which checks the steps it rebuilds).
TEST_F(HtmlSite, ALongMatchsStepsAreInChunksThatHoldEveryStep) {
  Play("long", {"alice", "bob"});
  HtmlOptions o;
  o.chunk_steps = 7;
  auto site = WriteHtmlSite(dir_, o);
  ASSERT_TRUE(site.ok()) << site.status();
  ASSERT_EQ(site->replay_pages, 1);
  auto lines = ReadRecordFile(absl::StrCat(dir_, "/long.jsonl"));
  ASSERT_TRUE(lines.ok()) << lines.status();
  auto replay = BuildReplay(*lines, {});
  ASSERT_TRUE(replay.ok()) << replay.status();
  const int positions = replay->steps_size();
  ASSERT_GT(positions, 3 * 7) << "a match too short to test chunks";
  const int chunks = (positions + 6) / 7;
  const std::string page = ReadFile(absl::StrCat(dir_, "/html/replays/long.html"));
  EXPECT_TRUE(absl::StrContains(
      page, absl::StrCat("{\"positions\":", positions, ",\"chunk_steps\":7,\"chunks\":", chunks,
                         ",\"inline\":false,\"script\":\"long.steps/{k}.js\",\"url\":\"\"}")))
      << "replay-parts";
  EXPECT_FALSE(absl::StrContains(page, "id=\"replay-chunk-0\"")) << "steps in the page";
  int step = 0;
  for (int k = 0; k < chunks; ++k) {
    const std::string json =
        ChunkJson(absl::StrCat(dir_, "/html/replays/long.steps/", k, ".js"), k);
    const std::vector<int> numbers = testing::ChunkStepNumbers(json);
    const int n = static_cast<int>(numbers.size());
    EXPECT_EQ(n, k + 1 < chunks ? 7 : positions - 7 * k) << "chunk " << k;
    // Every step's number, in order; the views of the first whole, the
    // others' deltas.
    for (int i = 0; i < n; ++i, ++step) {
      ASSERT_EQ(numbers[i], replay->steps(step).step()) << "chunk " << k;
    }
    EXPECT_TRUE(absl::EndsWith(json, absl::StrCat("\"delta\":[0", n > 1 ? "," : "",
                                                  absl::StrJoin(std::vector<int>(n - 1, 1), ","),
                                                  "]}")))
        << json.substr(json.size() - std::min<size_t>(json.size(), 60));
  }
  EXPECT_EQ(step, positions);
  EXPECT_FALSE(std::filesystem::exists(
      absl::StrCat(dir_, "/html/replays/long.steps/", chunks, ".js")));
}

TEST_F(HtmlSite, ABadRecordIsListedWithItsErrorAndGetsNoPage) {
  Play("good", {"a", "b"});
  Play("bad", {"a", "b"}, /*tamper=*/true);
  auto site = WriteHtmlSite(dir_, {});
  ASSERT_TRUE(site.ok()) << site.status();
  EXPECT_EQ(site->replay_pages, 1);
  ASSERT_EQ(site->failures.size(), 1u);
  EXPECT_TRUE(absl::StrContains(site->failures[0], "bad.jsonl")) << site->failures[0];
  const std::string index = ReadFile(absl::StrCat(dir_, "/html/index.html"));
  EXPECT_TRUE(absl::StrContains(index, "\"file\":\"bad.jsonl\",\"error\":")) << "not listed";
  struct stat st;
  EXPECT_NE(::stat(absl::StrCat(dir_, "/html/replays/bad.html").c_str(), &st), 0);
}

TEST_F(HtmlSite, AHostileBotNameCannotEndTheScriptElement) {
  const std::string evil = "</script><script>alert(1)</script>";
  Play("m1", {evil, "b"});
  auto site = WriteHtmlSite(dir_, {});
  ASSERT_TRUE(site.ok()) << site.status();
  const std::string index = ReadFile(absl::StrCat(dir_, "/html/index.html"));
  EXPECT_FALSE(absl::StrContains(index, evil));
  // The name is there, escaped (protobuf's JSON writes < as \u003c).
  EXPECT_TRUE(absl::StrContains(index, "script>alert(1)") ||
              absl::StrContains(index, "script\\u003ealert(1)"));
}

// A list entry carries what the list shows and nothing of the record's
// secrets, with the zeros that mean something (a forfeit by seat 0 at step
// 0, a match of 0 decisions) present, and reads back as the same entry.
TEST(MatchEntry, ShowsTheListsFieldsWithMeaningfulZerosAndNoSecrets) {
  v1::Replay r;
  v1::RecordHeader* h = r.mutable_header();
  h->set_match_id("m-1");
  h->set_game("quasenbo");
  h->set_num_seats(2);
  h->add_seat_bots("a\"</script>");
  h->add_seat_bots("b");
  h->set_deal_group("g-1");
  h->set_seed(123456789);
  h->set_seed_commitment("c0ffee");
  v1::MatchResult* res = r.mutable_result();
  res->add_scores(0);
  res->add_scores(2.5);
  res->add_placements(2);
  res->add_placements(1);
  res->set_end_reason(v1::END_REASON_FORFEIT);
  res->set_forfeit_seat(0);
  res->set_decisions(0);
  res->set_higher_score_wins(false);
  res->mutable_reveal()->set_salt("5a17");
  res->set_header_digest("d19e57");
  r.mutable_forfeit()->set_seat(0);
  r.mutable_forfeit()->set_step(0);
  r.mutable_forfeit()->set_fault(v1::FAULT_KIND_TIMEOUT);
  const std::string json = MatchEntryJson("m-1.rec", "replays/m-1.html", r);
  for (const char* want : {"\"forfeit_seat\":0", "\"decisions\":\"0\"",
                           "\"higher_score_wins\":false", "\"seat\":0", "\"step\":0",
                           "\"fault\":\"FAULT_KIND_TIMEOUT\"", "\"scores\":[0,2.5]"}) {
    EXPECT_TRUE(absl::StrContains(json, want)) << want << " in " << json;
  }
  for (const char* secret : {"123456789", "c0ffee", "5a17", "d19e57"}) {
    EXPECT_FALSE(absl::StrContains(json, secret)) << secret << " in " << json;
  }
  v1::MatchListEntry back;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json, &back).ok()) << json;
  EXPECT_EQ(back.header().seat_bots(0), "a\"</script>");
  EXPECT_EQ(back.page(), "replays/m-1.html");
  EXPECT_TRUE(back.forfeit().has_seat());
  EXPECT_EQ(back.result().placements(1), 1);
  EXPECT_EQ(back.result().end_reason(), v1::END_REASON_FORFEIT);
}

TEST_F(HtmlSite, MaxReplaysLimitsThePages) {
  Play("m1", {"a", "b"});
  Play("m2", {"a", "b"});
  HtmlOptions o;
  o.max_replays = 1;
  o.out_dir = absl::StrCat(dir_, "/site");
  auto site = WriteHtmlSite(dir_, o);
  ASSERT_TRUE(site.ok()) << site.status();
  EXPECT_EQ(site->replay_pages, 1);
  EXPECT_EQ(site->records, 2);
  EXPECT_EQ(site->out_dir, o.out_dir);
}

int ModeOf(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return -1;
  return static_cast<int>(st.st_mode & 07777);
}

// arena runs with umask 077 (records, logs and secrets are the
// organiser's only), and the site and standings, meant to be published, get
// the modes the umask it was started with allows (ctest's, here).
TEST_F(HtmlSite, TheSiteFollowsTheUmaskArenaStartedWith) {
  Play("m1", {"a", "b"});
  const mode_t old = ::umask(077);  // as arena's main() does
  HtmlOptions o;
  o.out_dir = absl::StrCat(dir_, "/pub/site");
  auto site = WriteHtmlSite(dir_, o);
  ASSERT_TRUE(WriteJsonFile(absl::StrCat(dir_, "/standings.json"), v1::Standings()).ok());
  ASSERT_TRUE(WriteFileAtomically(absl::StrCat(dir_, "/standings.csv"), "rank,bot\n").ok());
  ::umask(old);
  ASSERT_TRUE(site.ok()) << site.status();
  const int file_mode = 0666 & ~static_cast<int>(StartingUmask());
  const int dir_mode = 0777 & ~static_cast<int>(StartingUmask());
  EXPECT_EQ(file_mode, static_cast<int>(PublicFileMode()));
  EXPECT_EQ(dir_mode, static_cast<int>(PublicDirMode()));
  for (const std::string f : {"/pub/site/index.html", "/pub/site/replays/m1.html", "/standings.json",
                              "/standings.csv"}) {
    EXPECT_EQ(ModeOf(dir_ + f), file_mode) << f;
  }
  for (const std::string d : {"/pub", "/pub/site", "/pub/site/replays"}) {
    EXPECT_EQ(ModeOf(dir_ + d), dir_mode) << d;
  }
  // A folder that exists keeps its mode.
  ASSERT_EQ(::chmod(absl::StrCat(dir_, "/pub").c_str(), 0750), 0);
  ASSERT_TRUE(MakePublicDirs(absl::StrCat(dir_, "/pub/site/more")).ok());
  EXPECT_EQ(ModeOf(dir_ + "/pub"), 0750);
  EXPECT_EQ(ModeOf(dir_ + "/pub/site/more"), dir_mode);
  // No temporary file is left behind.
  for (const auto& e : std::filesystem::directory_iterator(dir_)) {
    EXPECT_FALSE(absl::StrContains(e.path().filename().string(), "tmp-")) << e.path();
  }
}

// A replay page carries the bots' ratings and withdrawals from the
// standings, in the pages' shared script (which names a withdrawn bot and
// draws the intervals).
TEST_F(HtmlSite, AReplayPageCarriesRatingsAndWithdrawals) {
  Play("m1", {"alice", "bob"});
  v1::Standings st;
  st.set_game("quasenbo");
  v1::StandingRow* r = st.add_rows();
  r->set_bot("alice");
  r->set_rank(1);
  r->set_rank_low(1);
  r->set_rank_high(2);
  r->set_elo(50);
  r->set_elo_low(-20);
  r->set_elo_high(120);
  r = st.add_rows();
  r->set_bot("bob");
  r->set_rank(2);
  r->set_elo(-50);
  r->set_withdrawn(true);
  r->set_withdrawn_reason("its process exited with code 3");
  ASSERT_TRUE(WriteJsonFile(absl::StrCat(dir_, "/standings.json"), st).ok());
  auto site = WriteHtmlSite(dir_, {});
  ASSERT_TRUE(site.ok()) << site.status();
  const std::string page = ReadFile(absl::StrCat(dir_, "/html/replays/m1.html"));
  const std::string script = ReadFile(absl::StrCat(dir_, "/html/replays/replay-page.js"));
  // The standings are the same for every page: once, in their shared script,
  // not in each page.
  EXPECT_FALSE(absl::StrContains(page, "id=\"standings-data\""));
  EXPECT_FALSE(absl::StrContains(page, "withdrawn_reason"));
  EXPECT_TRUE(absl::StrContains(script, "window.arenaReplayStandings = {"));
  EXPECT_TRUE(absl::StrContains(script, "\"withdrawn_reason\":\"its process exited with code 3\""));
  EXPECT_TRUE(absl::StrContains(script, "\"elo_low\":-20"));
  EXPECT_TRUE(absl::StrContains(script, "\"rank_high\":2"));
  // The table is drawn as cards by the pages' shared script (board.js).
  EXPECT_TRUE(absl::StrContains(page, "<script src=\"replay-page.js\">"));
  EXPECT_TRUE(absl::StrContains(script, "function drawBoard("));
  // Without standings the script says null.
  ASSERT_EQ(std::remove(absl::StrCat(dir_, "/standings.json").c_str()), 0);
  ASSERT_TRUE(WriteHtmlSite(dir_, {}).ok());
  EXPECT_TRUE(absl::StrContains(ReadFile(absl::StrCat(dir_, "/html/replays/replay-page.js")),
                                "window.arenaReplayStandings = null;"));
}

// An adaptive contest's schedule.json (its target's comparisons, some
// undecided) is in the index for the page to name the undecided ones; one
// that is a link or not a plan is not (the page then has none).
TEST_F(HtmlSite, TheIndexCarriesTheScheduleWithItsUndecidedComparisons) {
  Play("m1", {"alice", "bob"});
  std::ofstream(absl::StrCat(dir_, "/schedule.json")) << R"({
    "kind": "SCHEDULE_KIND_ADAPTIVE", "bots": 3, "seats": 2, "rounds": 4,
    "matches_planned": 40, "budget": 40, "finished": true, "stop": "budget spent",
    "top_k": 1, "confidence": 0.95, "some_future_field": 1,
    "comparisons": [
      {"ahead": "alice", "behind": "bob", "elo_diff": 35.5, "sd": 20, "p": 0.04},
      {"ahead": "alice", "behind": "carol", "elo_diff": 300, "sd": 40, "p": 1e-9,
       "separated": true}]})";
  auto site = WriteHtmlSite(dir_, {});
  ASSERT_TRUE(site.ok()) << site.status();
  const std::string index = ReadFile(absl::StrCat(dir_, "/html/index.html"));
  const size_t at = index.find("<script type=\"application/json\" id=\"schedule-data\">{");
  ASSERT_NE(at, std::string::npos) << index.substr(0, 2000);
  const std::string data = index.substr(at, index.find("</script>", at) - at);
  // Every field printed, "separated" false included: the page tells the
  // undecided ones by it.
  EXPECT_TRUE(absl::StrContains(data, "\"ahead\":\"alice\",\"behind\":\"bob\",\"elo_diff\":35.5,"
                                      "\"sd\":20,\"p\":0.04,\"separated\":false"))
      << data;
  EXPECT_TRUE(absl::StrContains(data, "\"stop\":\"budget spent\""));
  EXPECT_TRUE(absl::StrContains(index, "function scheduleWords()"));
  // A link named schedule.json is not followed; no plan, no schedule.
  std::filesystem::remove(absl::StrCat(dir_, "/schedule.json"));
  std::filesystem::create_symlink("/etc/passwd", absl::StrCat(dir_, "/schedule.json"));
  ASSERT_TRUE(WriteHtmlSite(dir_, {}).ok());
  EXPECT_TRUE(absl::StrContains(ReadFile(absl::StrCat(dir_, "/html/index.html")),
                                "id=\"schedule-data\">null</script>"));
}

TEST_F(HtmlSite, NoFolderOrNoRecordsIsAnError) {
  auto none = WriteHtmlSite(absl::StrCat(dir_, "/absent"), {});
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(absl::StrContains(none.status().message(), "no such folder"));
  auto empty = WriteHtmlSite(dir_, {});
  ASSERT_FALSE(empty.ok());
  EXPECT_TRUE(absl::StrContains(empty.status().message(), "no records"));
}

}  // namespace
}  // namespace arena
