// End to end: duplicate deals, gauntlets, exit codes, resume after kill -9,
// and `arena gate`, with the real binaries.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "referee/records/record.h"
#include "tests/e2e_util.h"

namespace arena {
namespace {

using ::testing::HasSubstr;
using testing::Cmd;
using testing::FreshTempDir;
using testing::kBin;
using testing::ReadFile;
using testing::ReadStandings;
using testing::RecordFiles;
using testing::Sh;

TEST(Tournament, DuplicateDealsPlayEachDealOncePerRotation) {
  const testing::TestDir tmp = FreshTempDir("dup");
  const std::string& dir = tmp.path();
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --seed 3 --games 12",
                          " --bot a=", kBin, "/random_bot --bot b=", kBin,
                          "/quasenbo_bot --jobs 2 --progress=false --records ", dir));
  ASSERT_EQ(r.code, 0) << r.output;
  // 12 matches of 2 bots in 2 seats: 6 deal groups of 2, seats swapped,
  // one seed per group.
  std::map<std::string, std::vector<v1::RecordHeader>> groups;
  for (const auto& f : RecordFiles(dir)) {
    auto lines = ReadRecordFile(f);
    ASSERT_TRUE(lines.ok()) << lines.status();
    groups[lines->front().header().deal_group()].push_back(lines->front().header());
  }
  ASSERT_EQ(groups.size(), 6u);
  for (const auto& [g, hs] : groups) {
    ASSERT_EQ(hs.size(), 2u) << g;
    EXPECT_EQ(hs[0].seed(), hs[1].seed()) << g;
    EXPECT_EQ(hs[0].seat_bots(0), hs[1].seat_bots(1)) << g;
    EXPECT_EQ(hs[0].seat_bots(1), hs[1].seat_bots(0)) << g;
  }
  v1::Standings st = ReadStandings(dir);
  EXPECT_EQ(st.deal_groups(), 6);
  EXPECT_EQ(st.deal_mode(), v1::DEAL_MODE_DUPLICATE);
  EXPECT_TRUE(st.balanced());
  EXPECT_THAT(r.output, HasSubstr("95% interval"));

  const testing::TestDir ind_tmp = FreshTempDir("independent");
  const std::string& ind = ind_tmp.path();
  r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --seed 3 --games 4",
                      " --duplicate=false --bot a=", kBin, "/random_bot --bot b=", kBin,
                      "/random_bot --progress=false --records ", ind));
  ASSERT_EQ(r.code, 0) << r.output;
  std::set<uint64_t> seeds;
  for (const auto& f : RecordFiles(ind)) seeds.insert(ReadRecordFile(f)->front().header().seed());
  EXPECT_EQ(seeds.size(), 4u);
  EXPECT_EQ(ReadStandings(ind).deal_groups(), 4);
}

TEST(Tournament, GauntletMeetsEveryOtherBotOnly) {
  const testing::TestDir tmp = FreshTempDir("gauntlet");
  const std::string& dir = tmp.path();
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 12",
                          " --gauntlet hero --bot hero=", kBin, "/quasenbo_bot",
                          " --bot x=", kBin, "/random_bot --bot y=", kBin,
                          "/random_bot --progress=false --records ", dir));
  ASSERT_EQ(r.code, 0) << r.output;
  v1::Standings st = ReadStandings(dir);
  std::map<std::pair<std::string, std::string>, int> met;
  for (const auto& h : st.head_to_head()) met[{h.bot(), h.opponent()}] = h.matches();
  EXPECT_EQ((met[{"hero", "x"}]), 6);
  EXPECT_EQ((met[{"hero", "y"}]), 6);
  EXPECT_EQ(met.count({"x", "y"}), 0u);
  Cmd bad = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 2",
                            " --gauntlet nobody --bot a=", kBin, "/random_bot --bot b=",
                            kBin, "/random_bot --records ", dir, "/bad"));
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.output, HasSubstr("gauntlet bot 'nobody' is not one of the bots"));
}

TEST(Tournament, ExitCodesForForfeitsAndBotsThatCannotStart) {
  const testing::TestDir tmp = FreshTempDir("exit");
  const std::string& dir = tmp.path();
  const std::string slow = absl::StrCat(" --bot slow='", kBin, "/crash_hang_flood_bot --mode=hang_after --n=0'",
                                        " --decision_ms 200");
  // Forfeits of a bot that plays badly (timeouts) do not fail a tournament ...
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 2", slow,
                          " --bot ok=", kBin, "/random_bot --records ", dir, "/a"));
  EXPECT_EQ(r.code, 0) << r.output;
  // ... unless asked.
  r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 2", slow,
                      " --bot ok=", kBin, "/random_bot --fail_on_forfeit",
                      " --records ", dir, "/b"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--fail_on_forfeit"));
  // A bot that crashes fails as a program: the tournament completes, 1.
  r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 2",
                      " --bot crashy='", kBin, "/crash_hang_flood_bot --mode=crash_after --n=0'",
                      " --bot ok=", kBin, "/random_bot --max_restarts 1 --records ", dir, "/d"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("failed as programs"));
  // A bot whose command does not exist is withdrawn; the others play: 1.
  r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 2",
                      " --bot ghost=/nonexistent/bot --bot ok=", kBin, "/random_bot",
                      " --connect_timeout_ms 2000 --records ", dir, "/c"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("ghost: 2 no show"));
  // A records folder that holds a tournament is refused, not overwritten: 2.
  r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 2 --bot a=", kBin,
                      "/random_bot --bot b=", kBin, "/random_bot --records ", dir, "/a"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("already holds a tournament"));
}

// The reactor referee: 4,096 matches live at the same time, on
// the arena's fixed threads. The holder bot answers nothing until it holds
// 4,096 open decisions, one per match, so every match is live at once; then
// all of them finish, and every record verifies. If they were not all live
// together, the holder would wait, every match would time out and forfeit.
TEST(Tournament, FourThousandNinetySixMatchesAtOnceCompleteAndVerify) {
  constexpr int kMatches = 4096;
  struct rlimit rl;
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &rl), 0);
  // A live match holds no descriptor: 4,096 fit under any usual limit.
  if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < 512) {
    GTEST_SKIP() << "the open-file hard limit (" << rl.rlim_max << ") is below 512";
  }
  const testing::TestDir tmp = FreshTempDir("4096");
  const std::string& dir = tmp.path();
  Cmd r = Sh(absl::StrCat(
      kBin, "/arena tournament --game quasenbo --games ", kMatches, " --jobs ",
      kMatches, " --duplicate=false --decision_ms 120000 --progress=false",
      // Every decision goes to the bots: with the referee taking forced
      // moves, a match where the holder has only those ends without asking
      // it (about 1 in 20,000), and the holder waits till every match times out.
      " --auto_moves=false",
      " --bot holder='", kBin, "/crash_hang_flood_bot --mode=hold_until --n=", kMatches, "'",
      " --bot steady=", kBin, "/random_bot --records ", dir));
  ASSERT_EQ(r.code, 0) << r.output.substr(0, 4000);
  EXPECT_THAT(r.output, HasSubstr(absl::StrCat(kMatches, " matches played, at most ",
                                               kMatches, " of them at once")));
  EXPECT_EQ(RecordFiles(dir).size(), static_cast<size_t>(kMatches));
  const v1::Standings st = ReadStandings(dir);
  EXPECT_EQ(st.matches_played(), kMatches);
  for (const auto& row : st.rows()) EXPECT_EQ(row.faults(), 0) << row.bot();
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir));
  EXPECT_EQ(v.code, 0) << v.output.substr(0, 4000);
  EXPECT_THAT(v.output, HasSubstr(absl::StrCat(kMatches, " of ", kMatches,
                                               " records verified")));
  Sh("rm -rf " + dir);
}

// Starts `cmd` under /bin/sh as a child of this process.
pid_t Spawn(const std::string& cmd) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

TEST(Tournament, ResumeAfterKillNineLosesAndDoublesNothing) {
  std::mt19937 gen(static_cast<unsigned>(::getpid()));
  std::uniform_int_distribution<int> delay_ms(100, 1500);
  const int games = 240;
  for (int round = 0; round < 3; ++round) {
    const testing::TestDir tmp = FreshTempDir(absl::StrCat("resume", round));
    const std::string& dir = tmp.path();
    const std::string records = dir + "/records";
    const std::string secret = dir + "/secret";
    const std::string flags = absl::StrCat(
        " --game quasenbo --games ", games, " --jobs 2 --progress=false",
        " --standings_every 10 --secret_file ", secret, " --bot a=", kBin,
        "/random_bot --bot b=", kBin, "/quasenbo_bot");
    // TMPDIR: the socket folder a killed arena cannot remove goes with dir.
    const pid_t pid = Spawn(absl::StrCat("exec env TMPDIR=", dir, " ", kBin,
                                         "/arena tournament", flags,
                                         " --records ", records, " > ", dir,
                                         "/first.log 2>&1"));
    // Kill -9 at a random moment once the manifest is there.
    for (int i = 0; i < 400 && !std::filesystem::exists(records + "/manifest.json"); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    const int ms = delay_ms(gen);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    const size_t before = RecordFiles(records).size();
    // What the killed run left: standings of a whole number of refreshes.
    if (std::filesystem::exists(records + "/standings.json")) {
      v1::Standings left = ReadStandings(records);
      EXPECT_EQ(left.matches_played() % 10, 0);
      EXPECT_LE(left.matches_played(), static_cast<int>(before));
      EXPECT_EQ(left.matches_planned(), games);
    } else {
      // The first refresh is written off the matches' path: on a loaded
      // machine (a CI's two cores shared with a build) it has lagged to
      // about 125 matches; never to most of the run.
      EXPECT_LT(before, 200u) << "no standings after " << before << " matches";
    }
    // Resume with the same flags (the manifest must match them).
    Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --resume ", records, flags));
    ASSERT_EQ(r.code, 0) << "killed after " << ms << " ms\n" << r.output;
    const std::vector<std::string> files = RecordFiles(records);
    EXPECT_EQ(files.size(), static_cast<size_t>(games))
        << "killed after " << ms << " ms with " << before << " records";
    std::set<std::string> ids;
    for (const auto& f : files) {
      auto lines = ReadRecordFile(f);
      ASSERT_TRUE(lines.ok()) << lines.status();
      ids.insert(lines->front().header().match_id());
    }
    EXPECT_EQ(ids.size(), static_cast<size_t>(games));
    Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", records));
    EXPECT_EQ(v.code, 0) << v.output;
    EXPECT_THAT(v.output, HasSubstr(absl::StrCat(games, " of ", games, " records verified")));
    EXPECT_THAT(v.output, HasSubstr("the standings agree"));
    v1::Standings st = ReadStandings(records);
    EXPECT_EQ(st.matches_played(), games);
    EXPECT_EQ(st.matches_unrecorded(), 0);
    // And the rebuilt standings are the tournament's.
    const std::string played = ReadFile(records + "/standings.json");
    ASSERT_EQ(Sh(absl::StrCat(kBin, "/arena standings ", records)).code, 0);
    EXPECT_EQ(ReadFile(records + "/standings.json"), played);
  }
}

// What a folder's records say was played: id, seats and seed of each match.
std::vector<std::string> PlayedMatches(const std::string& records) {
  std::vector<std::string> out;
  for (const auto& f : RecordFiles(records)) {
    auto lines = ReadRecordFile(f);
    EXPECT_TRUE(lines.ok()) << lines.status();
    if (!lines.ok()) continue;
    const v1::RecordHeader& h = lines->front().header();
    std::string row = absl::StrCat(h.match_id(), " seed ", h.seed(), ":");
    for (const auto& b : h.seat_bots()) absl::StrAppend(&row, " ", b);
    out.push_back(row);
  }
  return out;
}

TEST(Tournament, AdaptiveResumeAfterKillNinePlaysTheSameSchedule) {
  const testing::TestDir tmp = FreshTempDir("adaptive");
  const std::string& dir = tmp.path();
  // The first run makes the secret file; six instant, deterministic bots
  // (their moves depend on the match and
  // the request only), so the same secret gives the same results and the
  // same rounds.
  std::string flags = absl::StrCat(
      " --game quasenbo --games 160 --jobs 3 --progress=false --sandbox none",
      " --schedule adaptive --top_k 2 --secret_file ", dir, "/secret");
  for (int i = 0; i < 3; ++i) {
    absl::StrAppend(&flags, " --bot q", i, "=", kBin, "/quasenbo_bot --bot r", i, "=", kBin,
                    "/random_bot");
  }
  Cmd whole = Sh(absl::StrCat("env TMPDIR=", dir, " ", kBin, "/arena tournament", flags,
                              " --records ", dir, "/whole"));
  ASSERT_EQ(whole.code, 0) << whole.output;
  const std::vector<std::string> expected = PlayedMatches(dir + "/whole");
  ASSERT_GT(expected.size(), 20u);
  const v1::Standings st = ReadStandings(dir + "/whole");
  EXPECT_EQ(st.matches_played(), static_cast<int>(expected.size()));
  EXPECT_EQ(st.matches_unrecorded(), 0);  // an adaptive budget is not owed
  const std::string plan = ReadFile(dir + "/whole/schedule.json");
  EXPECT_THAT(plan, HasSubstr("\"finished\": true"));

  const std::string records = dir + "/killed";
  const pid_t pid = Spawn(absl::StrCat("exec env TMPDIR=", dir, " ", kBin, "/arena tournament",
                                       flags, " --records ", records, " > ", dir,
                                       "/killed.log 2>&1"));
  // Killed once a third of the matches are recorded (mid-round, most likely).
  for (int i = 0; i < 3000 && RecordFiles(records).size() < expected.size() / 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  const size_t before = RecordFiles(records).size();
  EXPECT_LT(before, expected.size()) << "the run ended before it was killed";
  Cmd r = Sh(absl::StrCat("env TMPDIR=", dir, " ", kBin, "/arena tournament --resume ", records,
                          flags));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(PlayedMatches(records), expected) << "killed with " << before << " records";
  EXPECT_EQ(ReadFile(records + "/schedule.json"), plan);
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", records));
  EXPECT_EQ(v.code, 0) << v.output;
}

TEST(Tournament, ScheduleMistakesAreRefusedBeforeAnyBotStarts) {
  const testing::TestDir tmp = FreshTempDir("refuse-schedule");
  const std::string& dir = tmp.path();
  // A bot command that would leave a trace if it were ever started.
  const std::string marker = dir + "/started";
  const std::string bot = absl::StrCat("\"sh -c 'touch ", marker, "'\"");
  auto run = [&](const std::string& more, int bots) {
    std::string cmd = absl::StrCat(kBin, "/arena tournament --game pesten --progress=false",
                                   " --records ", dir, "/r", more);
    for (int i = 0; i < bots; ++i) absl::StrAppend(&cmd, " --bot b", i, "=", bot);
    return Sh(cmd);
  };
  struct Case {
    std::string flags;
    int bots;
    std::string says;
  };
  for (const Case& c : std::vector<Case>{
           {" --seats 4 --games 100 --schedule rounds", 3, "at least as many bots as seats"},
           {" --seats 4 --games 100 --schedule adaptive", 3, "at least as many bots as seats"},
           {" --seats 4 --games 63 --schedule adaptive", 64, "below one round"},
           {" --seats 4 --games 100 --schedule cycle", 40, "more than 1000000 seatings"},
           {" --seats 2 --games 100 --schedule adaptive --top_k 5", 5, "adaptive.top_k: 5"},
           {" --seats 2 --games 100 --schedule adaptive --confidence 1", 5,
            "adaptive.confidence"},
           {" --seats 2 --games 100 --top_k 3", 5, "settings of --schedule adaptive"},
           {" --seats 2 --games 100 --schedule swiss", 5, "--schedule=swiss"}}) {
    Cmd r = run(c.flags, c.bots);
    EXPECT_EQ(r.code, 2) << c.flags << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(c.says)) << c.flags;
    EXPECT_FALSE(std::filesystem::exists(marker)) << c.flags << ": a bot was started";
  }
}

TEST(Tournament, ResumeRefusesAnotherConfigAndAForgottenSecret) {
  const testing::TestDir tmp = FreshTempDir("refuse");
  const std::string& dir = tmp.path();
  const std::string bots =
      absl::StrCat(" --bot a=", kBin, "/random_bot --bot b=", kBin, "/random_bot");
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 4", bots,
                          " --secret_file ", dir, "/s --records ", dir, "/r"));
  ASSERT_EQ(r.code, 0) << r.output;
  r = Sh(absl::StrCat(kBin, "/arena tournament --resume ", dir, "/r --game quasenbo",
                      " --games 6", bots, " --secret_file ", dir, "/s"));
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.output, HasSubstr("matches: 4 -> 6"));
  r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 4", bots,
                      " --records ", dir, "/m"));
  ASSERT_EQ(r.code, 0) << r.output;
  r = Sh(absl::StrCat(kBin, "/arena tournament --resume ", dir, "/m"));
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.output, HasSubstr("kept in memory only"));
  // Resuming a finished tournament plays nothing and changes nothing.
  const auto before = RecordFiles(dir + "/r");
  r = Sh(absl::StrCat(kBin, "/arena tournament --resume ", dir, "/r"));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("4 of 4 matches recorded, 0 to play"));
  EXPECT_EQ(RecordFiles(dir + "/r"), before);
}

// A run killed while it rewrote a summary leaves its temporary file beside
// the records (the summary itself stays whole): resume removes it, and
// nothing else.
TEST(Tournament, ResumeRemovesTheTemporaryFilesOfAKilledRun) {
  const testing::TestDir tmp = FreshTempDir("stale-tmp");
  const std::string& dir = tmp.path();
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 4 --bot a=", kBin,
                          "/random_bot --bot b=", kBin, "/random_bot --secret_file ", dir,
                          "/s --records ", dir, "/r"));
  ASSERT_EQ(r.code, 0) << r.output;
  std::ofstream(dir + "/r/.standings.json.tmp-999999-7") << "{\"rows\": [";
  std::ofstream(dir + "/r/.notes.tmp-mine") << "the organiser's";
  r = Sh(absl::StrCat(kBin, "/arena tournament --resume ", dir, "/r"));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/r/.standings.json.tmp-999999-7"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/r/.notes.tmp-mine"));
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir, "/r"));
  EXPECT_EQ(v.code, 0) << v.output;
}

TEST(Tournament, ResumeReplaysATamperedRecordAndKeepsIt) {
  const testing::TestDir tmp = FreshTempDir("tamper");
  const std::string& dir = tmp.path();
  // JSON lines, so that a score can be edited as text and the record still
  // parse (an edited compact record fails its checksum, and is replayed the same way).
  const std::string flags =
      absl::StrCat(" --game quasenbo --games 4 --record_format jsonl --secret_file ", dir,
                   "/s --bot a=", kBin, "/random_bot --bot b=", kBin, "/random_bot");
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament", flags, " --records ", dir, "/r"));
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string victim = RecordFiles(dir + "/r")[1];
  // A score changed: the result no longer follows from the actions.
  Sh(absl::StrCat("sed -i 's/\"scores\":\\[/\"scores\":[7/' ", victim));
  r = Sh(absl::StrCat(kBin, "/arena tournament --resume ", dir, "/r", flags));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("3 of 4 matches recorded, 1 to play"));
  EXPECT_EQ(Sh(absl::StrCat("ls ", dir, "/r/.rejected | wc -l")).output, "1\n");
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir, "/r"));
  EXPECT_EQ(v.code, 0) << v.output;
}

TEST(Tournament, CompressedRecordsResumeAndRebuildToo) {
  const testing::TestDir tmp = FreshTempDir("zst");
  const std::string& dir = tmp.path();
  const std::string flags =
      absl::StrCat(" --game quasenbo --games 4 --compress --secret_file ", dir,
                   "/s --bot a=", kBin, "/random_bot --bot b=", kBin, "/random_bot");
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament", flags, " --records ", dir, "/r"));
  ASSERT_EQ(r.code, 0) << r.output;
  ASSERT_EQ(RecordFiles(dir + "/r").size(), 4u);
  EXPECT_TRUE(absl::EndsWith(RecordFiles(dir + "/r")[0], ".jsonl.zst"));
  r = Sh(absl::StrCat(kBin, "/arena tournament --resume ", dir, "/r", flags));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("4 of 4 matches recorded, 0 to play"));
  r = Sh(absl::StrCat(kBin, "/arena standings ", dir, "/r"));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("4 of 4 matches, 2 deal groups"));
}

TEST(Gate, BundledBotAgainstRandomAcceptsH1AndTheReverseH0) {
  const testing::TestDir tmp = FreshTempDir("gate");
  const std::string& dir = tmp.path();
  Cmd r = Sh(absl::StrCat(kBin, "/arena gate --game quasenbo --candidate smart=", kBin,
                          "/quasenbo_bot --baseline random=", kBin, "/random_bot",
                          " --jobs 2 --records ", dir, "/h1 --json ", dir, "/h1.json"));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("H1 accepted"));
  const std::string h1 = ReadFile(dir + "/h1.json");
  v1::GateResult g;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(h1, &g).ok()) << h1;
  EXPECT_EQ(g.decision(), "H1");
  EXPECT_GE(g.llr(), g.upper_bound());
  EXPECT_EQ(g.group_counts_size(), 5);  // pentanomial
  EXPECT_EQ(g.games(), 2 * g.deal_groups());
  EXPECT_GT(g.elo_low(), 0);
  EXPECT_THAT(h1, HasSubstr("\"games\": "));  // a number, not a string
  EXPECT_THAT(h1, ::testing::Not(HasSubstr("\"games\": \"")));

  r = Sh(absl::StrCat(kBin, "/arena gate --game quasenbo --candidate random=", kBin,
                      "/random_bot --baseline smart=", kBin, "/quasenbo_bot",
                      " --jobs 2 --records ", dir, "/h0"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("H0 accepted"));

  r = Sh(absl::StrCat(kBin, "/arena gate --game quasenbo --candidate a=", kBin,
                      "/random_bot --baseline b=", kBin, "/random_bot --max_games 6",
                      " --records ", dir, "/none"));
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_THAT(r.output, HasSubstr("no decision within 6 matches"));

  r = Sh(absl::StrCat(kBin, "/arena gate --game quasenbo --candidate a=", kBin,
                      "/random_bot --records ", dir, "/usage"));
  EXPECT_EQ(r.code, 2) << r.output;
  r = Sh(absl::StrCat(kBin, "/arena gate --game quasenbo --candidate a=x --baseline b=y",
                      " --elo0 5 --elo1 5 --records ", dir, "/usage"));
  EXPECT_EQ(r.code, 2) << r.output;
}

TEST(Gate, ThreeSeatsRotateCandidateBaselineAndFiller) {
  const testing::TestDir tmp = FreshTempDir("gate3");
  const std::string& dir = tmp.path();
  Cmd r = Sh(absl::StrCat(kBin, "/arena gate --game quasenbo --seats 3 --candidate smart=",
                          kBin, "/quasenbo_bot --baseline random=", kBin, "/random_bot",
                          " --filler filler=", kBin, "/random_bot --jobs 2 --records ", dir,
                          "/r --json ", dir, "/g.json"));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("deal groups of 3"));
  v1::GateResult g;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(ReadFile(dir + "/g.json"), &g).ok());
  EXPECT_EQ(g.group_counts_size(), 7);  // 0..6 half points: 3 matches, 1 baseline seat
  EXPECT_EQ(g.games(), 3 * g.deal_groups());
}

}  // namespace
}  // namespace arena
