// Quabble end to end, what is Quabble's own: an asset file through `arena
// match`, `arena replay` and `arena verify`, and a bad one refused. Tournaments
// of the game's bot that verify are in tests/conformance_test.cc
// (ConformanceEndToEnd), as for every game.
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e_util.h"

namespace arena {
namespace {

using ::testing::HasSubstr;
using testing::Cmd;
using testing::FreshTempDir;
using testing::kBin;
using testing::ReadStandings;
using testing::Sh;

TEST(QuabbleEndToEnd, ReplayExplainsTheScoresAndAssetFileMatchesVerify) {
  const std::string dir = FreshTempDir("quabble-match");
  const std::string assets = dir + "/assets.textproto";
  std::ofstream(assets)
      << "assets { name: \"Pigs\" count: 20 value: 1 power: "
         "QUABBLE_POWER_SET_SQUARE }\n"
         "assets { name: \"Debts\" count: 10 value: -2 power: "
         "QUABBLE_POWER_NONE }\n";
  Cmd r = Sh(absl::StrCat(kBin, "/arena match --game quabble --seed 7",
                          " --bot a=", kBin, "/random_bot --bot b=", kBin,
                          "/quabble_bot --bot c=", kBin, "/quabble_bot",
                          " --option assets=", assets, " --records ", dir));
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string rec = testing::OnlyRecord(dir);
  Cmd all = Sh(absl::StrCat(kBin, "/arena replay ", rec));
  ASSERT_EQ(all.code, 0) << all.output;
  EXPECT_THAT(all.output, HasSubstr("Pigs x"));
  EXPECT_THAT(all.output, HasSubstr("result:"));
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir));
  EXPECT_EQ(v.code, 0) << v.output;

  // A bad asset file is refused before any match starts.
  std::ofstream(assets) << "assets { name: \"Pigs\" count: 0 }\n";
  Cmd bad = Sh(absl::StrCat(kBin, "/arena tournament --game quabble",
                            " --bot a=", kBin, "/random_bot --games 2",
                            " --option assets=", assets, " --records ",
                            dir, "/bad"));
  EXPECT_NE(bad.code, 0);
  EXPECT_THAT(bad.output, HasSubstr("line 1, column 23: asset 'Pigs': count 0"));
  Sh("rm -rf " + dir);
}

}  // namespace
}  // namespace arena
