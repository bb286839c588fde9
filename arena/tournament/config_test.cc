// ValidateConfig (config.h) and ReadConfigFile (launch.h): mistakes named,
// the documented example valid, broken text located by line and column.
#include <filesystem>
#include <fstream>
#include <string>

#include "arena/tournament/config.h"
#include "arena/tournament/launch.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace arena {
namespace {

using ::testing::HasSubstr;

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

// The default bound on live bot processes: a field of at most 64 entrants
// gets room for a process per seat of each (seats * field: with duplicate
// deals, one per rotation of a deal); a larger one 4 * jobs * seats; never
// below 32, nor below 4 * jobs * seats.
TEST(Config, TheDefaultBoundOnLiveBotsKeepsASmallFieldWholeAndSizesALargeOneByTheJobs) {
  // Small fields: seats * field where that is above the jobs' room.
  EXPECT_EQ(DefaultMaxLiveBots(2, 4, 48), 192);   // the 48-entrant contest
  EXPECT_EQ(DefaultMaxLiveBots(4, 4, 48), 192);
  EXPECT_EQ(DefaultMaxLiveBots(2, 4, 64), 256);   // the largest kept whole
  EXPECT_EQ(DefaultMaxLiveBots(2, 2, 30), 60);
  EXPECT_EQ(DefaultMaxLiveBots(2, 2, 8), 32);     // 16, raised to 32
  EXPECT_EQ(DefaultMaxLiveBots(16, 4, 48), 256);  // 4 * 16 * 4 is above 192
  // Larger fields: 4 * jobs * seats, at least 32.
  EXPECT_EQ(DefaultMaxLiveBots(2, 4, 65), 32);
  EXPECT_EQ(DefaultMaxLiveBots(1, 2, 256), 32);  // 8, raised to 32
  EXPECT_EQ(DefaultMaxLiveBots(4, 4, 256), 64);
  EXPECT_EQ(DefaultMaxLiveBots(3, 4, 500), 48);
  EXPECT_EQ(DefaultMaxLiveBots(8, 4, 500), 128);
  EXPECT_EQ(DefaultMaxLiveBots(0, 4, 500), 32);  // --jobs 0 counts as 1
}

}  // namespace
}  // namespace arena
