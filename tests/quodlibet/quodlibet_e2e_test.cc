// End to end: `arena tournament --game quodlibet` with the real bot processes
// (quodlibet_bot and random_bot over gRPC) plays whole parties under both
// rulesets, and `arena verify` re-simulates every record.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "arena/v1/config.pb.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
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

void RunTournament(const std::string& ruleset, int games) {
  const std::string dir = FreshTempDir(absl::StrCat("quodlibet-", ruleset));
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quodlibet",
                          " --bot smart=", kBin, "/quodlibet_bot",
                          " --bot random=", kBin, "/random_bot",
                          " --games ", games, " --jobs 2 --records ", dir,
                          " --option ruleset=", ruleset));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr(absl::StrCat(games, "/", games, " matches")));
  v1::Standings st = ReadStandings(dir);
  EXPECT_EQ(st.matches_played(), games);
  for (const auto& row : st.rows()) EXPECT_EQ(row.forfeits(), 0) << row.bot();
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir));
  EXPECT_EQ(v.code, 0) << v.output;
  EXPECT_THAT(v.output, HasSubstr(absl::StrCat(games, " of ", games,
                                               " records verified")));
  // Whole parties: 48 deals scored in a record.
  Cmd deals = Sh(absl::StrCat("cat ", dir, "/*.jsonl | grep -o deal_scored | wc -l"));
  EXPECT_EQ(deals.output, absl::StrCat(48 * games, "\n"));
}

TEST(QuodlibetEndToEnd, BadeniaPartiesRunAndVerify) { RunTournament("badenia", 4); }

TEST(QuodlibetEndToEnd, EncyclopediaPartiesRunAndVerify) {
  RunTournament("encyclopedia", 4);
}

}  // namespace
}  // namespace arena
