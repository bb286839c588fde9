// Pesten end to end: `arena tournament --game pesten` with the real binaries
// (arena, random_bot, pesten_bot as separate processes over gRPC) at 2, 4 and
// 6 seats; every record verifies with `arena verify`.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

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

void RunTournament(int seats, int games) {
  const std::string dir = FreshTempDir(absl::StrCat("pesten-", seats));
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game pesten --seats ",
                          seats, " --bot random=", kBin, "/random_bot",
                          " --bot smart=", kBin, "/pesten_bot",
                          " --games ", games, " --jobs 2 --records ", dir));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr(absl::StrCat(games, "/", games, " matches")));
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir));
  EXPECT_EQ(v.code, 0) << v.output;
  EXPECT_THAT(v.output, HasSubstr(absl::StrCat(games, " of ", games,
                                               " records verified")));
  Sh("rm -rf " + dir);
}

TEST(PestenEndToEnd, TournamentWithTwoSeatsVerifies) { RunTournament(2, 8); }
TEST(PestenEndToEnd, TournamentWithFourSeatsVerifies) { RunTournament(4, 8); }
TEST(PestenEndToEnd, TournamentWithSixSeatsVerifies) { RunTournament(6, 6); }

}  // namespace
}  // namespace arena
