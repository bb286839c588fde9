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

namespace arena {
namespace {

using ::testing::HasSubstr;

const std::string kBin = ARENA_BIN_DIR;

struct Cmd {
  int code;
  std::string output;
};

Cmd Sh(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::string TempDir(const std::string& name) {
  const std::string d = absl::StrCat(::testing::TempDir(), "/e2e-quodlibet-",
                                     name, "-", ::getpid());
  Sh("rm -rf " + d + " && mkdir -p " + d);
  return d;
}

v1::Standings ReadStandings(const std::string& dir) {
  std::ifstream in(dir + "/standings.json");
  std::stringstream ss;
  ss << in.rdbuf();
  v1::Standings st;
  auto s = google::protobuf::util::JsonStringToMessage(ss.str(), &st);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return st;
}

void RunTournament(const std::string& ruleset, int games) {
  const std::string dir = TempDir(ruleset);
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
