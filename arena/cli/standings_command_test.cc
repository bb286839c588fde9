// `arena standings` (standings_command.h): the files it writes from records
// folders are the same, byte for byte, whatever order the records were made
// in and the folders are given in.
#include "arena/cli/standings_command.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "arena/stats/standings_test_util.h"
#include "gtest/gtest.h"
#include "referee/game_api/rng.h"
#include "referee/records/record.h"
#include "tests/test_util.h"

namespace arena {
namespace {

using testing::RandomMatches;
using testing::ReadFile;

// `arena standings` over two copies of one records folder, their files
// created in different orders (and with several folders given in either
// order, --out): the same files, byte for byte.
TEST(StandingsCommand, ShuffledCopiesOfAFolderGiveByteIdenticalFiles) {
  const std::string root = absl::StrCat(::testing::TempDir(), "/standings-copies-", ::getpid());
  std::filesystem::remove_all(root);
  // 240 records: 3 seats, bots a to e (a bot may fill several seats), deal
  // groups, fractional scores, forfeits and faults.
  std::vector<MatchSummary> ms = RandomMatches(240, 3, 17);
  std::vector<std::string> lines;  // one record's text each
  for (const MatchSummary& m : ms) {
    v1::RecordLine header, result;
    auto* h = header.mutable_header();
    h->set_format_version(1);
    h->set_match_id(m.match_id);
    h->set_game("g");
    h->set_num_seats(3);
    h->set_deal_group(m.deal_group.empty() ? m.match_id : m.deal_group);
    for (const auto& b : m.seat_bots) h->add_seat_bots(b);
    auto* r = result.mutable_result();
    for (int p : m.placements) r->add_placements(p);
    for (double x : m.scores) r->add_scores(x);
    r->set_higher_score_wins(true);
    lines.push_back(RecordLineToJson(header) + "\n" + RecordLineToJson(result) + "\n");
  }
  // Creates the records from..to-1 in `dir`, in a shuffled order (seed 0:
  // in reverse).
  auto write = [&](const std::string& dir, uint64_t seed, size_t from, size_t to) {
    std::filesystem::create_directories(dir);
    std::vector<size_t> order;
    for (size_t i = from; i < to; ++i) order.push_back(i);
    std::reverse(order.begin(), order.end());
    Rng rng(seed);
    for (size_t i = order.size() - 1; seed != 0 && i > 0; --i) {
      std::swap(order[i], order[rng.Uniform(static_cast<uint32_t>(i + 1))]);
    }
    for (size_t i : order) {
      std::ofstream(absl::StrCat(dir, "/", ms[i].match_id, ".jsonl")) << lines[i];
    }
  };
  write(root + "/one", 1, 0, ms.size());
  write(root + "/two", 2, 0, ms.size());
  write(root + "/three", 0, 0, ms.size());
  for (const char* d : {"one", "two", "three"}) {
    ASSERT_EQ(RunStandings({{root + "/" + d}, ""}), 0) << d;
  }
  for (const char* f : {"standings.json", "standings.csv", "head_to_head.csv"}) {
    const std::string want = ReadFile(root + "/one/" + f);
    EXPECT_FALSE(want.empty()) << f;
    EXPECT_EQ(ReadFile(root + "/two/" + f), want) << f;
    EXPECT_EQ(ReadFile(root + "/three/" + f), want) << f;
  }
  // Split in two folders, combined in either order.
  write(root + "/p", 4, 0, 100);
  write(root + "/q", 5, 100, ms.size());
  ASSERT_EQ(RunStandings({{root + "/p", root + "/q"}, root + "/pq"}), 0);
  ASSERT_EQ(RunStandings({{root + "/q", root + "/p"}, root + "/qp"}), 0);
  for (const char* f : {"standings.json", "standings.csv", "head_to_head.csv"}) {
    EXPECT_EQ(ReadFile(root + "/qp/" + f), ReadFile(root + "/pq/" + f)) << f;
    EXPECT_EQ(ReadFile(root + "/pq/" + f), ReadFile(root + "/one/" + f)) << f;
  }
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace arena
