// The contest engine (engine.h) runs a planner of this test's own, added
// without touching the engine: a fixed list of tables in two batches. A
// real small contest (the bundled random bot, started by arena, no
// sandbox) plays exactly those tables, and the planner learns each result.
#include "arena/tournament/engine.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "arena/tournament/launch.h"
#include "arena/tournament/plan.h"
#include "arena/tournament/planner.h"
#include "gtest/gtest.h"
#include "referee/records/record.h"

namespace arena {
namespace {

// Plays `tables` (seatings, bot indices by seat), one deal each: the first
// `first` in one batch, the rest in another.
class FixedTablesPlanner : public Planner {
 public:
  FixedTablesPlanner(const v1::TournamentConfig& config,
                     const std::vector<std::vector<int>>& tables, size_t first)
      : names_(BotNames(config)),
        schedule_(ScheduleOfTables(tables, /*duplicate=*/false, 0, 0)),
        first_(first) {}

  Outline outline() const override {
    return {static_cast<int>(schedule_.matches.size()), schedule_.deal_groups};
  }
  const Schedule& schedule() const override { return schedule_; }
  const std::vector<std::string>& entrants() const override { return names_; }
  std::optional<std::vector<int>> NextBatch(const std::function<bool()>& stopping) override {
    const size_t from = next_;
    next_ = next_ == 0 ? first_ : schedule_.matches.size();
    if (from == next_ || stopping()) return std::nullopt;
    std::vector<int> batch;
    for (size_t i = from; i < next_; ++i) batch.push_back(static_cast<int>(i));
    ++batches;
    return batch;
  }
  void Learn(const MatchSummary& match) override { learnt.push_back(match.seat_bots); }
  void Finish(bool stopped) override {
    finished = true;
    finished_stopped = stopped;
  }

  int batches = 0;
  std::vector<std::vector<std::string>> learnt;  // seat bots, as booked
  bool finished = false, finished_stopped = true;

 private:
  const std::vector<std::string> names_;
  const Schedule schedule_;
  const size_t first_;
  size_t next_ = 0;
};

TEST(ContestEngine, AFixedTablesPlannerPlaysExactlyItsTables) {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string pattern = absl::StrCat(tmpdir != nullptr && *tmpdir ? tmpdir : "/tmp",
                                     "/engine_test_XXXXXX");
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  ASSERT_NE(::mkdtemp(buf.data()), nullptr);
  const std::string dir = buf.data();
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      if (std::getenv("ARENA_KEEP_TEST_DIRS") == nullptr) std::filesystem::remove_all(dir, ec);
    }
  } cleanup{dir};

  v1::TournamentConfig config;
  config.set_game("quasenbo");
  config.set_seats(2);
  for (const char* name : {"a", "b", "c"}) {
    v1::BotConfig* bot = config.add_bots();
    bot->set_name(name);
    bot->set_command(absl::StrCat(ARENA_BIN_DIR, "/random_bot"));
    auto token = NewToken();
    ASSERT_TRUE(token.ok()) << token.status();
    bot->set_token(*token);
  }
  // Not the cycle a config of 3 bots at 2 seats would play: a's tables
  // twice, b against c once, in an order of the planner's own.
  const std::vector<std::vector<int>> tables = {{0, 1}, {2, 0}, {0, 1}, {1, 2}, {0, 2}};
  config.set_matches(static_cast<int>(tables.size()));
  config.set_deal_mode(v1::DEAL_MODE_INDEPENDENT);
  config.set_jobs(2);
  config.set_seed(20261125);
  config.set_records_dir(absl::StrCat(dir, "/records"));

  LaunchOptions launch;
  launch.sandbox.enabled = false;
  launch.show_progress = false;
  launch.fresh_bots_per_rotation = false;
  std::optional<FixedTablesPlanner> planner;
  std::string tournament_id;
  launch.run_instead = [&](const v1::TournamentConfig& c, const TournamentSecret& secret,
                           BotHub& hub, const TournamentHooks& hooks) {
    tournament_id = secret.TournamentId();
    planner.emplace(c, tables, /*first=*/2);
    return RunContest(c, secret, hub, hooks, *planner);
  };
  auto standings = RunConfiguredTournament(config, launch);
  ASSERT_TRUE(standings.ok()) << standings.status();
  EXPECT_EQ(standings->matches_played(), static_cast<int>(tables.size()));
  EXPECT_EQ(standings->matches_planned(), static_cast<int>(tables.size()));
  ASSERT_TRUE(planner.has_value());
  EXPECT_EQ(planner->batches, 2);
  EXPECT_TRUE(planner->finished);
  EXPECT_FALSE(planner->finished_stopped);

  // Every record is one of its tables, seated as it said, and there is no other.
  std::vector<std::vector<std::string>> seated;
  for (size_t i = 0; i < tables.size(); ++i) {
    const std::string path =
        FindRecordFile(config.records_dir(), MatchId("quasenbo", tournament_id, i));
    ASSERT_FALSE(path.empty()) << "no record of table " << i;
    auto lines = ReadRecordFile(path);
    ASSERT_TRUE(lines.ok()) << lines.status();
    const v1::RecordHeader& h = lines->front().header();
    std::vector<std::string> want;
    for (int b : tables[i]) want.push_back(config.bots(b).name());
    seated.push_back({h.seat_bots().begin(), h.seat_bots().end()});
    EXPECT_EQ(seated.back(), want) << "table " << i;
  }
  int records = 0;
  for (const auto& e : std::filesystem::directory_iterator(config.records_dir())) {
    records += IsRecordFileName(e.path().filename().string()) ? 1 : 0;
  }
  EXPECT_EQ(records, static_cast<int>(tables.size()));
  // The planner learnt each result once (in the order they ended).
  std::vector<std::vector<std::string>> learnt = planner->learnt;
  std::sort(learnt.begin(), learnt.end());
  std::sort(seated.begin(), seated.end());
  EXPECT_EQ(learnt, seated);
}

}  // namespace
}  // namespace arena
