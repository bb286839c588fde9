// The registry (registry.h): an unknown game, seats out of range and bad
// options are refused, naming what was wrong.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/games/registry.h"

namespace arena {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

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

}  // namespace
}  // namespace arena
