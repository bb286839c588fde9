// The live site's replay of a long match comes in parts: the page holds no
// step and names the chunks' address; LiveSite::ReplayStepsChunk gives each
// chunk, and the chunks together hold every step once, in order; a short
// match's page holds its steps (and has no chunk to fetch); a long match in
// progress shows its newest steps.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "arena/live/http_server.h"
#include "arena/live/live_site.h"
#include "arena/views/html.h"
#include "arena/views/replay.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "referee/games/registry.h"
#include "referee/records/record.h"
#include "tests/test_util.h"

namespace arena {
namespace {

// A 4-seat Pesten match of random players of at least `min` decisions, as
// a record in `dir` named <id>.jsonl.
std::vector<v1::RecordLine> PlayLong(const std::string& dir, const std::string& id,
                                     int64_t min) {
  auto game = CreateGame("pesten", {}, 4);
  EXPECT_TRUE(game.ok());
  for (uint64_t seed = 1; seed < 500; ++seed) {
    MatchSpec spec;
    spec.game_name = "pesten";
    spec.match_id = id;
    spec.seed = seed;
    spec.seat_bots = {"a", "b", "c", "d"};
    auto m = testing::PlayLocal(**game, spec, testing::RandomPolicy(seed));
    auto lines = ParseRecordLines(m.record_lines, id);
    EXPECT_TRUE(lines.ok());
    if (lines->back().result().decisions() < min) continue;
    std::ofstream f(absl::StrCat(dir, "/", id, ".jsonl"));
    for (const auto& l : m.record_lines) f << l << "\n";
    return *lines;
  }
  ADD_FAILURE() << "no match of " << min << " decisions";
  return {};
}

TEST(LiveReplayParts, ALongMatchsPageFetchesItsStepsInChunksThatHoldEveryStep) {
  const testing::TestDir tmp = testing::FreshTempDir("live-replay-parts");
  const std::string dir = tmp.path();
  const auto lines = PlayLong(dir, "long", 2 * kReplayChunkSteps + 10);
  ASSERT_FALSE(lines.empty());
  auto replay = BuildReplay(lines, {});
  ASSERT_TRUE(replay.ok()) << replay.status();
  const int positions = replay->steps_size();
  const int chunks = (positions + kReplayChunkSteps - 1) / kReplayChunkSteps;
  ASSERT_GE(chunks, 3);

  LiveSite site(dir, LiveOptions{});
  site.Poll(true);
  auto page = site.ReplayPage("long");
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_TRUE(absl::StrContains(
      *page, absl::StrCat("{\"positions\":", positions, ",\"chunk_steps\":", kReplayChunkSteps,
                          ",\"chunks\":", chunks, ",\"inline\":false,\"script\":\"\","
                          "\"url\":\"long.steps.json?chunk={k}\"}")))
      << "replay-parts";
  EXPECT_FALSE(absl::StrContains(*page, "id=\"replay-chunk-0\"")) << "steps in the page";
  EXPECT_LT(page->size(), 200u << 10) << "the page of a long match holds no step";

  int next = 0;
  for (int k = 0; k < chunks; ++k) {
    auto chunk = site.ReplayStepsChunk("long", k);
    ASSERT_TRUE(chunk.ok()) << "chunk " << k << ": " << chunk.status();
    const std::string head = absl::StrCat("{\"chunk\":", k, ",\"steps\":\"");
    ASSERT_TRUE(absl::StartsWith(*chunk, head)) << chunk->substr(0, 40);
    ASSERT_TRUE(absl::EndsWith(*chunk, "\"}"));
    const std::vector<int> steps =
        testing::ChunkStepNumbers(testing::GunzipBase64(chunk->substr(head.size(), chunk->size() - head.size() - 2)));
    EXPECT_EQ(static_cast<int>(steps.size()),
              k + 1 < chunks ? kReplayChunkSteps : positions - k * kReplayChunkSteps);
    for (int s : steps) {
      ASSERT_LT(next, positions);
      EXPECT_EQ(s, replay->steps(next++).step()) << "chunk " << k;
    }
  }
  EXPECT_EQ(next, positions);
  EXPECT_TRUE(absl::IsNotFound(site.ReplayStepsChunk("long", chunks).status()));
  EXPECT_TRUE(absl::IsNotFound(site.ReplayStepsChunk("long", -1).status()));
  EXPECT_TRUE(absl::IsNotFound(site.ReplayStepsChunk("nosuch", 0).status()));
}

// Over HTTP (arena serve, --serve): the page's chunk address answers each
// chunk as LiveSite gives it, as JSON; a chunk past the last, a negative or
// missing one, and a name that is not a page's are 404.
TEST(LiveReplayParts, TheServerAnswersEachChunkAtThePagesAddress) {
  const testing::TestDir tmp = testing::FreshTempDir("live-replay-served");
  const std::string dir = tmp.path();
  const auto lines = PlayLong(dir, "long", 2 * kReplayChunkSteps + 10);
  ASSERT_FALSE(lines.empty());
  LiveSite site(dir, LiveOptions{});
  ServeOptions so;
  so.address = "127.0.0.1:0";
  auto server = LiveServer::Start(&site, so);
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string address = (*server)->address();
  const int port = std::atoi(address.substr(address.rfind(':') + 1).c_str());
  auto body = [](const std::string& answer) { return answer.substr(answer.find("\r\n\r\n") + 4); };
  auto status = [](const std::string& answer) { return answer.substr(0, answer.find("\r\n")); };
  const std::string page = testing::Get(port, "/replays/long.html");
  ASSERT_EQ(status(page), "HTTP/1.1 200 OK");
  EXPECT_TRUE(absl::StrContains(page, "\"url\":\"long.steps.json?chunk={k}\""));
  for (int k : {0, 1}) {
    const std::string got = testing::Get(port, absl::StrCat("/replays/long.steps.json?chunk=", k));
    EXPECT_EQ(status(got), "HTTP/1.1 200 OK") << k;
    EXPECT_TRUE(absl::StrContains(got, "Content-Type: application/json")) << k;
    auto want = site.ReplayStepsChunk("long", k);
    ASSERT_TRUE(want.ok());
    EXPECT_EQ(body(got), *want) << k;
  }
  for (const char* bad : {"/replays/long.steps.json?chunk=999", "/replays/long.steps.json?chunk=-1",
                          "/replays/long.steps.json", "/replays/nosuch.steps.json?chunk=0",
                          "/replays/..%2flong.steps.json?chunk=0"}) {
    EXPECT_EQ(status(testing::Get(port, bad)), "HTTP/1.1 404 Not Found") << bad;
  }
  (*server)->Stop();
}

TEST(LiveReplayParts, AShortMatchsPageHoldsItsSteps) {
  const testing::TestDir tmp = testing::FreshTempDir("live-replay-short");
  const std::string dir = tmp.path();
  auto game = CreateGame("quasenbo", {}, 2);
  ASSERT_TRUE(game.ok());
  MatchSpec spec;
  spec.game_name = "quasenbo";
  spec.match_id = "short";
  spec.seed = 3;
  spec.seat_bots = {"a", "b"};
  auto m = testing::PlayLocal(**game, spec, testing::RandomPolicy(3));
  {
    std::ofstream f(absl::StrCat(dir, "/short.jsonl"));
    for (const auto& l : m.record_lines) f << l << "\n";
  }
  LiveSite site(dir, LiveOptions{});
  site.Poll(true);
  auto page = site.ReplayPage("short");
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_TRUE(absl::StrContains(*page, "id=\"replay-chunk-0\""));
  EXPECT_TRUE(absl::StrContains(*page, "\"chunks\":1,\"inline\":true"));
  EXPECT_TRUE(absl::IsNotFound(site.ReplayStepsChunk("short", 0).status()));
}

// A long match in progress: its live page (and what its stream sends)
// holds the spectator's newest kLiveSpectatorSteps steps, each with its
// number, not every step so far; the page says how many came before.
TEST(LiveReplayParts, ALongLiveMatchsPageHoldsItsNewestSteps) {
  const testing::TestDir tmp = testing::FreshTempDir("live-long-match");
  const std::string dir = tmp.path();
  auto lines = PlayLong(dir, "long", 3 * kLiveSpectatorSteps);
  ASSERT_FALSE(lines.empty());
  ASSERT_EQ(std::remove(absl::StrCat(dir, "/long.jsonl").c_str()), 0);
  // Played to nine tenths, as its .part.
  lines.resize(lines.size() * 9 / 10);
  std::filesystem::create_directories(dir + "/.inprogress");
  {
    std::ofstream part(dir + "/.inprogress/long.jsonl.part");
    for (const auto& l : lines) {
      std::string json;
      ASSERT_TRUE(google::protobuf::util::MessageToJsonString(l, &json).ok());
      part << json << "\n";
    }
  }
  ReplayOptions o;
  o.spectator = true;
  o.step = int64_t{1} << 60;
  o.source = "long";
  auto all = BuildReplay(lines, o);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_GT(all->steps_size(), 2 * kLiveSpectatorSteps);

  LiveSite site(dir, LiveOptions{});
  site.Poll(true);
  auto page = site.LiveMatchPage("long");
  ASSERT_TRUE(page.ok()) << page.status();
  const std::string head = "id=\"live-data\">";
  const size_t at = page->find(head);
  ASSERT_NE(at, std::string::npos);
  const std::string json =
      page->substr(at + head.size(), page->find("</script>", at) - at - head.size());
  v1::Replay shown;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json, &shown).ok()) << json.substr(0, 80);
  ASSERT_EQ(shown.steps_size(), kLiveSpectatorSteps);
  const int first = all->steps_size() - static_cast<int>(kLiveSpectatorSteps);
  for (int i = 0; i < shown.steps_size(); ++i) {
    ASSERT_TRUE(google::protobuf::util::MessageDifferencer::Equals(shown.steps(i),
                                                                   all->steps(first + i)))
        << "step " << i << " of those shown";
  }
  EXPECT_GT(shown.steps(0).step(), 0);
  EXPECT_EQ(shown.header().match_id(), "long");
  bool ended = true;
  auto sent = site.LiveMatchJson("long", &ended);
  ASSERT_TRUE(sent.ok()) << sent.status();
  EXPECT_FALSE(ended);
  EXPECT_EQ(*sent, json) << "the page and the stream carry the same steps";
}

}  // namespace
}  // namespace arena
