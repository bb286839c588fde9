// ResumeConfig (resume.h): the config a resume runs, and which of its fields
// the command line may change.
#include <string>

#include "absl/strings/str_cat.h"
#include "arena/tournament/plan.h"
#include "arena/tournament/resume.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace arena {
namespace {

using ::testing::HasSubstr;

// The config of a 2-bot Quäsenbö tournament kept in `dir` (its secret in
// t.secret), as the flags of its first run would make it.
v1::TournamentConfig FirstRun(const std::string& dir) {
  v1::TournamentConfig c;
  c.set_game("quasenbo");
  c.set_matches(4);
  c.set_jobs(2);
  c.set_records_dir(dir);
  c.set_secret_file("t.secret");
  c.set_fault_policy(v1::FAULT_POLICY_FORFEIT);
  c.set_auto_moves(v1::AUTO_MOVES_SINGLE);
  for (const char* name : {"a", "b"}) {
    v1::BotConfig* b = c.add_bots();
    b->set_name(name);
    b->set_command(absl::StrCat("bin/", name));
    b->set_token(absl::StrCat("token-", name));
  }
  return c;
}

// A records folder holding the manifest of `config` (records_dir set to it).
testing::TestDir FolderWith(v1::TournamentConfig config,
                            const std::string& name) {
  testing::TestDir tmp = testing::FreshTempDir(name);
  config.set_records_dir(tmp.path());
  // WriteManifest wants a new folder: the test made it empty.
  EXPECT_TRUE(WriteManifest(config, 4, 2, "t-id").ok());
  return tmp;
}

TEST(ResumeConfigTest, TakesTheManifestsConfigWithFreshTokens) {
  const testing::TestDir tmp = FolderWith(FirstRun("x"), "resume-plain");
  auto c = ResumeConfig(tmp.path(), ResumeFlags());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->records_dir(), tmp.path());
  EXPECT_EQ(c->matches(), 4);
  ASSERT_EQ(c->bots_size(), 2);
  // The manifest keeps no token; each bot gets a new one, each its own.
  EXPECT_FALSE(c->bots(0).token().empty());
  EXPECT_FALSE(c->bots(1).token().empty());
  EXPECT_NE(c->bots(0).token(), c->bots(1).token());
  EXPECT_NE(c->bots(0).token(), "token-a");
}

TEST(ResumeConfigTest, RefusesAFolderWithoutManifest) {
  const testing::TestDir tmp = testing::FreshTempDir("resume-empty");
  auto c = ResumeConfig(tmp.path(), ResumeFlags());
  EXPECT_FALSE(c.ok());
}

TEST(ResumeConfigTest, RefusesASecretKeptInMemoryOnly) {
  v1::TournamentConfig first = FirstRun("x");
  first.clear_secret_file();
  const testing::TestDir tmp = FolderWith(first, "resume-memory");
  bool asked = false;
  ResumeFlags flags;
  flags.config = [&]() -> absl::StatusOr<v1::TournamentConfig> {
    asked = true;
    return FirstRun(tmp.path());
  };
  auto c = ResumeConfig(tmp.path(), flags);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(c.status().message(), HasSubstr("kept in memory only"));
  EXPECT_THAT(c.status().message(), HasSubstr(tmp.path()));
  // The folder says why it cannot be resumed before the flags are looked at.
  EXPECT_FALSE(asked);
  // A public seed makes the deals again: that one resumes.
  first.set_seed(7);
  const testing::TestDir seeded = FolderWith(first, "resume-seeded");
  EXPECT_TRUE(ResumeConfig(seeded.path(), ResumeFlags()).ok());
}

TEST(ResumeConfigTest, RefusesAnotherShard) {
  v1::TournamentConfig first = FirstRun("x");
  first.set_shard_index(1);
  first.set_shard_count(4);
  const testing::TestDir tmp = FolderWith(first, "resume-shard");
  ResumeFlags flags;
  flags.shard = "2/4";
  flags.shard_index = 2;
  flags.shard_count = 4;
  auto c = ResumeConfig(tmp.path(), flags);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(),
              HasSubstr("--shard 2/4: that folder holds shard 1/4"));
  flags.shard = "1/4";
  flags.shard_index = 1;
  EXPECT_TRUE(ResumeConfig(tmp.path(), flags).ok());
  // No --shard: the folder's shard, whichever it is.
  EXPECT_TRUE(ResumeConfig(tmp.path(), ResumeFlags()).ok());
}

TEST(ResumeConfigTest, FlagsMayChangeOnlyHowTheRunRuns) {
  const testing::TestDir tmp = FolderWith(FirstRun("x"), "resume-flags");
  // What may change between runs: each alone, and all at once.
  v1::TournamentConfig all = FirstRun("elsewhere");
  all.set_jobs(7);
  all.set_connect_timeout_ms(1234);
  all.set_max_restarts(9);
  all.set_on_bot_failure(v1::BOT_FAILURE_POLICY_ABORT);
  all.set_standings_every(3);
  all.mutable_bots(0)->set_token("another");
  // Unset compares as the default.
  all.clear_fault_policy();
  all.clear_auto_moves();
  all.set_seats(2);  // Quäsenbö's default, which the manifest leaves unset
  ResumeFlags flags;
  flags.config = [&] { return absl::StatusOr<v1::TournamentConfig>(all); };
  auto c = ResumeConfig(tmp.path(), flags);
  ASSERT_TRUE(c.ok()) << c.status();
  // The manifest's config runs (its jobs), not the flags'.
  EXPECT_EQ(c->jobs(), 2);
  EXPECT_EQ(c->records_dir(), tmp.path());
}

TEST(ResumeConfigTest, FlagsOfAnotherTournamentAreRefusedNamingTheField) {
  const testing::TestDir tmp = FolderWith(FirstRun("x"), "resume-other");
  struct Case {
    const char* what;
    void (*change)(v1::TournamentConfig*);
    const char* says;
  };
  for (const Case& k : {
           Case{"matches", [](v1::TournamentConfig* c) { c->set_matches(6); },
                "matches: 4 -> 6"},
           Case{"game", [](v1::TournamentConfig* c) { c->set_game("pesten"); },
                "game"},
           Case{"seats", [](v1::TournamentConfig* c) { c->set_seats(3); },
                "seats"},
           Case{"a bot's command",
                [](v1::TournamentConfig* c) {
                  c->mutable_bots(1)->set_command("bin/z");
                },
                "command"},
           Case{
               "secret file",
               [](v1::TournamentConfig* c) { c->set_secret_file("t2.secret"); },
               "secret_file"},
           Case{"fault policy",
                [](v1::TournamentConfig* c) {
                  c->set_fault_policy(v1::FAULT_POLICY_RANDOM_MOVE);
                },
                "fault_policy"},
       }) {
    v1::TournamentConfig other = FirstRun(tmp.path());
    k.change(&other);
    ResumeFlags flags;
    flags.config = [&] { return absl::StatusOr<v1::TournamentConfig>(other); };
    auto c = ResumeConfig(tmp.path(), flags);
    ASSERT_FALSE(c.ok()) << k.what;
    EXPECT_EQ(c.status().code(), absl::StatusCode::kFailedPrecondition)
        << k.what;
    EXPECT_THAT(c.status().message(), HasSubstr("another tournament"))
        << k.what;
    EXPECT_THAT(c.status().message(), HasSubstr(k.says)) << k.what;
  }
}

TEST(ResumeConfigTest, AnErrorOfTheFlagsIsPassedOn) {
  const testing::TestDir tmp = FolderWith(FirstRun("x"), "resume-bad-flags");
  ResumeFlags flags;
  flags.config = []() -> absl::StatusOr<v1::TournamentConfig> {
    return absl::InvalidArgumentError(
        "--fault_policy=sometimes: use forfeit or random");
  };
  auto c = ResumeConfig(tmp.path(), flags);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(c.status().message(), HasSubstr("--fault_policy=sometimes"));
}

}  // namespace
}  // namespace arena
