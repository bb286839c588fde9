// A contest survives its entrants: a bot that does not start,
// crashes again and again, or never connects costs only its own matches.
// Real processes throughout: arena, the bundled bots, shell-script entrants
// that fail on purpose and tests/crash_hang_flood_bot, in arena's sandbox.
#include <dirent.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "referee/records/record.h"
#include "tests/e2e_util.h"

namespace arena {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::Cmd;
using testing::kBin;
using testing::ReadFile;
using testing::ReadStandings;
using testing::RecordFiles;
using testing::RowOf;
using testing::Sh;
using testing::Workdir;

// A contest of eight entrants, the bundled bots among them (C++ and Python).
std::string EightBundledBots() {
  std::string out;
  const char* kinds[] = {"random_bot", "quasenbo_bot", "random_bot", "quasenbo_bot",
                         "random_bot", "quasenbo_bot", "random_bot", "python_random_bot"};
  for (int i = 0; i < 8; ++i) absl::StrAppend(&out, " --bot b", i, "=", kBin, "/", kinds[i]);
  return out;
}

struct RecordFacts {
  int records = 0;
  // Per bot: forfeits by fault kind, and matches it played without fault.
  std::map<std::string, std::map<std::string, int>> forfeits;
  std::map<std::string, std::string> first_detail;  // per (bot kind) "bot/KIND"
  int clean = 0;  // matches without any fault
};

RecordFacts ReadFacts(const std::string& dir) {
  RecordFacts f;
  for (const std::string& path : RecordFiles(dir)) {
    auto lines = ReadRecordFile(path);
    EXPECT_TRUE(lines.ok()) << path;
    if (!lines.ok()) continue;
    ++f.records;
    const auto& h = lines->front().header();
    bool fault = false;
    for (const auto& l : *lines) {
      if (l.has_forfeit()) {
        fault = true;
        const std::string bot = h.seat_bots(l.forfeit().seat());
        const std::string kind = v1::FaultKind_Name(l.forfeit().fault());
        ++f.forfeits[bot][kind];
        f.first_detail.emplace(bot + "/" + kind, l.forfeit().detail());
      }
      if (l.has_decision()) {
        for (const auto& a : l.decision().actions()) {
          if (a.fault() != v1::FAULT_KIND_UNSPECIFIED) fault = true;
        }
      }
    }
    if (!fault) ++f.clean;
  }
  return f;
}

// A contest with one broken entrant: 8 bundled bots plus one whose program
// exits at once.
// Everything is played and recorded; the broken bot forfeits each of its
// matches as a no-show, is ranked last and marked withdrawn; exit code 1.
TEST(Withdrawal, BotThatExitsAtStartIsWithdrawnAndTheContestPlaysOn) {
  Workdir w("exits");
  const std::string broken =
      w.Script("broken.sh", "echo 'missing model file' >&2\nexit 1\n");
  const std::string dir = w.path() + "/r";
  const absl::Time t0 = absl::Now();
  // A 10-minute connect timeout: a bot that exited is never waited on.
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 112 --jobs 2",
                          " --connect_timeout_ms 600000 --progress=false --records ", dir,
                          EightBundledBots(), " --bot broken=", broken));
  EXPECT_LT(absl::Now() - t0, absl::Minutes(5));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("broken: 20 no show; 3 restart(s); WITHDRAWN"));
  EXPECT_THAT(r.output, HasSubstr("missing model file"));
  EXPECT_THAT(r.output, HasSubstr("failed as programs"));

  const v1::Standings st = ReadStandings(dir);
  EXPECT_EQ(st.matches_played(), 112);
  EXPECT_EQ(st.matches_unrecorded(), 0);
  ASSERT_GT(st.rows_size(), 0);
  EXPECT_EQ(st.rows(st.rows_size() - 1).bot(), "broken");  // last
  const v1::StandingRow* row = RowOf(st, "broken");
  ASSERT_NE(row, nullptr);
  EXPECT_TRUE(row->withdrawn());
  EXPECT_THAT(row->withdrawn_reason(), HasSubstr("exited with code 1 before connecting"));
  EXPECT_EQ(row->forfeits(), row->matches());
  EXPECT_EQ(row->fault_kinds().no_show(), row->matches());
  for (const auto& other : st.rows()) {
    if (other.bot() == "broken") continue;
    EXPECT_FALSE(other.withdrawn()) << other.bot();
    EXPECT_EQ(other.forfeits(), 0) << other.bot();
    EXPECT_EQ(other.faults(), 0) << other.bot();
  }
  ASSERT_EQ(st.entrants_size(), 9);
  for (const auto& e : st.entrants()) {
    EXPECT_EQ(e.withdrawn(), e.bot() == "broken") << e.bot();
    if (e.bot() == "broken") {
      EXPECT_EQ(e.restarts(), 3);
      EXPECT_EQ(e.exits_size(), 4);  // the first start and three restarts
      EXPECT_EQ(e.log(), "logs/broken.log");  // within the records folder
    }
  }

  const RecordFacts f = ReadFacts(dir);
  EXPECT_EQ(f.records, 112);
  EXPECT_EQ(f.forfeits.size(), 1u);  // only the broken bot forfeited
  EXPECT_EQ(f.forfeits.at("broken").at("FAULT_KIND_NO_SHOW"), row->matches());
  EXPECT_EQ(f.clean, 112 - row->matches());
  EXPECT_THAT(f.first_detail.at("broken/FAULT_KIND_NO_SHOW"),
              HasSubstr("no show: withdrawn: its process exited with code 1"));

  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir));
  EXPECT_EQ(v.code, 0) << v.output;
  // Rebuilt from the records (and entrants.json), the standings are the same.
  const std::string before = ReadFile(dir + "/standings.json");
  Cmd rebuilt = Sh(absl::StrCat(kBin, "/arena standings ", dir));
  EXPECT_EQ(rebuilt.code, 0) << rebuilt.output;
  EXPECT_EQ(ReadFile(dir + "/standings.json"), before);
  EXPECT_THAT(rebuilt.output, HasSubstr("WITHDRAWN"));
}

// A bot that crashes a few decisions in, every time it is restarted: each
// crash is recorded as a crash with its exit status (not a timeout), then
// the bot is withdrawn and its remaining matches are no-shows.
TEST(Withdrawal, BotThatKeepsCrashingIsRecordedAsCrashedThenWithdrawn) {
  Workdir w("crash");
  const std::string dir = w.path() + "/r";
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 40 --jobs 2",
                          " --progress=false --max_restarts 2 --records ", dir,
                          " --bot a=", kBin, "/random_bot --bot b=", kBin, "/quasenbo_bot",
                          " --bot crashy='", kBin, "/crash_hang_flood_bot --mode=crash_after --n=4'"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("restarting bot crashy (1 of 2)"));
  EXPECT_THAT(r.output, HasSubstr("restarting bot crashy (2 of 2)"));
  const v1::Standings st = ReadStandings(dir);
  EXPECT_EQ(st.matches_played(), 40);
  const v1::StandingRow* row = RowOf(st, "crashy");
  ASSERT_NE(row, nullptr);
  EXPECT_TRUE(row->withdrawn());
  EXPECT_THAT(row->withdrawn_reason(), HasSubstr("exited with code 3"));
  // Three processes crashed, each in one or two live matches (--jobs 2).
  EXPECT_GE(row->fault_kinds().crashed(), 3);
  EXPECT_LE(row->fault_kinds().crashed(), 6);
  EXPECT_EQ(row->fault_kinds().timeout(), 0);  // a crash is not a timeout
  EXPECT_EQ(row->fault_kinds().crashed() + row->fault_kinds().no_show(), row->forfeits());
  // Each crashed match has its repro bundle (fewer than the cap of a bot);
  // the no-shows after the withdrawal have none, and the output says why.
  int bundles = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/repro/crashy", ec)) {
    if (absl::EndsWith(e.path().string(), ".json")) ++bundles;
  }
  EXPECT_EQ(bundles, row->fault_kinds().crashed());
  EXPECT_THAT(r.output, HasSubstr(absl::StrCat(
                            row->fault_kinds().no_show(),
                            " matches with a fault have only no-shows of a withdrawn bot")));
  const RecordFacts f = ReadFacts(dir);
  EXPECT_THAT(f.first_detail.at("crashy/FAULT_KIND_CRASHED"),
              HasSubstr("crashed: its process exited with code 3"));
  EXPECT_EQ(f.forfeits.size(), 1u);  // a and b forfeit nothing
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir));
  EXPECT_EQ(v.code, 0) << v.output;
}

// The new author's case: a Python bot that raises on its 3rd decision. Its
// process exits, and the records say so with the exception, not "timeout".
TEST(Withdrawal, PythonBotThatRaisesIsACrashWithItsTraceback) {
  Workdir w("python");
  const std::string bot = w.Script(
      "raises.sh",
      absl::StrCat("PYTHONPATH=", kBin, "/../python:", ARENA_SOURCE_DIR,
                   "/bots/python exec /usr/bin/python3 -c '\n"
                   "import sys, random_bot\n"
                   "calls, decide = [0], random_bot.decide\n"
                   "def buggy(request):\n"
                   "    calls[0] += 1\n"
                   "    if calls[0] == 3:\n"
                   "        raise ValueError(\"my bug on decision 3\")\n"
                   "    return decide(request)\n"
                   "random_bot.decide = buggy\n"
                   "sys.exit(random_bot.main())'\n"));
  const std::string dir = w.path() + "/r";
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 8 --jobs 1",
                          " --progress=false --max_restarts 1 --records ", dir,
                          " --bot a=", kBin, "/random_bot --bot raises=", bot));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("ValueError: my bug on decision 3"));
  const v1::Standings st = ReadStandings(dir);
  const v1::StandingRow* row = RowOf(st, "raises");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->fault_kinds().crashed(), 2);  // the first process and its restart
  EXPECT_EQ(row->fault_kinds().timeout(), 0);
  const RecordFacts f = ReadFacts(dir);
  EXPECT_THAT(f.first_detail.at("raises/FAULT_KIND_CRASHED"),
              HasSubstr("crashed: its process exited with code 1"));
  EXPECT_THAT(f.first_detail.at("raises/FAULT_KIND_CRASHED"),
              HasSubstr("ValueError: my bug on decision 3"));
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir));
  EXPECT_EQ(v.code, 0) << v.output;
}

// A stdio bot whose script path is wrong: arena_stdio connects, its program
// cannot even start, and the cause ("can't open file") is on the console and
// in the records at once, not a timeout.
TEST(Withdrawal, StdioBotWithAWrongScriptPathIsNamedWithTheCause) {
  Workdir w("stdio");
  const std::string dir = w.path() + "/r";
  const absl::Time t0 = absl::Now();
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 6 --jobs 2",
                          " --progress=false --max_restarts 1 --records ", dir,
                          " --bot a=", kBin, "/random_bot",
                          " --bot typo='", kBin, "/arena_stdio /usr/bin/python3 ", w.path(),
                          "/no_such_bot.py'"));
  EXPECT_LT(absl::Now() - t0, absl::Minutes(1));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("can't open file"));
  EXPECT_THAT(r.output, HasSubstr("typo: "));
  const v1::Standings st = ReadStandings(dir);
  EXPECT_EQ(st.matches_played(), 6);
  const v1::StandingRow* row = RowOf(st, "typo");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->fault_kinds().timeout(), 0);
  EXPECT_EQ(row->forfeits(), row->matches());
  const RecordFacts f = ReadFacts(dir);
  std::string details;
  for (const auto& [key, detail] : f.first_detail) absl::StrAppend(&details, detail, "\n");
  EXPECT_THAT(details, HasSubstr("can't open file")) << details;
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir));
  EXPECT_EQ(v.code, 0) << v.output;
}

// A bot whose program is not there: the public text (standings,
// entrants.json, the records) names it by its basename, never by a folder
// of the organiser's machine; the organiser's log keeps the whole path.
TEST(Withdrawal, AMissingProgramIsNamedWithoutTheOrganisersPath) {
  Workdir w("nopath");
  const std::string dir = w.path() + "/r";
  const std::string missing = w.path() + "/secret-folder/bot";
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 2",
                          " --progress=false --max_restarts 0 --records ", dir,
                          " --bot a=", kBin, "/random_bot --bot gone=", missing));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr(missing));  // the organiser's log
  const v1::Standings st = ReadStandings(dir);
  const v1::StandingRow* row = RowOf(st, "gone");
  ASSERT_NE(row, nullptr);
  EXPECT_TRUE(row->withdrawn());
  EXPECT_THAT(row->withdrawn_reason(), HasSubstr("bot"));
  EXPECT_THAT(row->withdrawn_reason(), Not(HasSubstr("secret-folder")));
  EXPECT_THAT(row->withdrawn_reason(), Not(HasSubstr(w.path())));
  EXPECT_THAT(ReadFile(dir + "/entrants.json"), Not(HasSubstr("secret-folder")));
  const RecordFacts f = ReadFacts(dir);
  for (const auto& [key, detail] : f.first_detail) {
    EXPECT_THAT(detail, Not(HasSubstr("secret-folder"))) << key;
  }
}

// A bot that runs but never connects is withdrawn after the connect
// timeout, once (another try of a silent program would cost as much again).
TEST(Withdrawal, BotThatNeverConnectsIsWithdrawnAfterTheConnectTimeout) {
  Workdir w("silent");
  const std::string sleeper = w.Script("sleeper.sh", "exec sleep 600\n");
  const std::string dir = w.path() + "/r";
  const absl::Time t0 = absl::Now();
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 24 --jobs 2",
                          " --progress=false --connect_timeout_ms 3000 --records ", dir,
                          " --bot a=", kBin, "/random_bot --bot b=", kBin, "/quasenbo_bot",
                          " --bot sleepy=", sleeper));
  EXPECT_LT(absl::Now() - t0, absl::Minutes(2));
  EXPECT_EQ(r.code, 1) << r.output;
  const v1::Standings st = ReadStandings(dir);
  EXPECT_EQ(st.matches_played(), 24);
  const v1::StandingRow* row = RowOf(st, "sleepy");
  ASSERT_NE(row, nullptr);
  EXPECT_TRUE(row->withdrawn());
  EXPECT_THAT(row->withdrawn_reason(), HasSubstr("runs but did not connect within 3s"));
  EXPECT_EQ(row->fault_kinds().no_show(), row->matches());
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir));
  EXPECT_EQ(v.code, 0) << v.output;
}

// A bot that floods the referee with invalid messages is cut off each time
// it does; withdrawn in the end, its reason says so, not only that its
// process "runs but is not connected".
TEST(Withdrawal, AFloodersReasonNamesItsCutOffs) {
  Workdir w("flood");
  const std::string dir = w.path() + "/r";
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 16 --jobs 2",
                          " --progress=false --records ", dir,
                          " --bot a=", kBin, "/random_bot --bot b=", kBin, "/quasenbo_bot",
                          " --bot flooder='", kBin, "/crash_hang_flood_bot --mode=flood --n=300'"));
  EXPECT_EQ(r.code, 1) << r.output;
  const v1::Standings st = ReadStandings(dir);
  const v1::StandingRow* row = RowOf(st, "flooder");
  ASSERT_NE(row, nullptr);
  EXPECT_TRUE(row->withdrawn());
  EXPECT_THAT(row->withdrawn_reason(), HasSubstr("cut off by the referee "));
  EXPECT_THAT(row->withdrawn_reason(),
              HasSubstr("(the last for more than 100 invalid messages in one second)"));
  const v1::StandingRow* a = RowOf(st, "a");
  ASSERT_NE(a, nullptr);
  EXPECT_FALSE(a->withdrawn());
  EXPECT_EQ(a->withdrawn_reason(), "");
}

// Under the random-move fault policy a withdrawn bot still forfeits (random
// moves would give it results it did not earn), and such records verify.
TEST(Withdrawal, WithdrawnBotForfeitsUnderTheRandomMovePolicyToo) {
  Workdir w("random");
  const std::string broken = w.Script("broken.sh", "exit 7\n");
  const std::string dir = w.path() + "/r";
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 12",
                          " --fault_policy random --max_restarts 1 --progress=false",
                          " --records ", dir, " --bot a=", kBin, "/random_bot",
                          " --bot broken=", broken));
  EXPECT_EQ(r.code, 1) << r.output;
  const RecordFacts f = ReadFacts(dir);
  EXPECT_EQ(f.records, 12);
  EXPECT_EQ(f.forfeits.at("broken").at("FAULT_KIND_NO_SHOW"), 12);
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir));
  EXPECT_EQ(v.code, 0) << v.output;
}

// --on_bot_failure abort keeps the old stop-at-once: exit 1, no match.
TEST(Withdrawal, AbortPolicyStopsAtOnceWithTheCause) {
  Workdir w("abort");
  const std::string broken =
      w.Script("broken.sh", "echo 'no such model' >&2\nexit 4\n");
  const std::string dir = w.path() + "/r";
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 12",
                          " --on_bot_failure abort --progress=false --records ", dir,
                          " --bot a=", kBin, "/random_bot --bot broken=", broken));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("bot broken: its process exited with code 4 before connecting"));
  EXPECT_THAT(r.output, HasSubstr("no such model"));
  EXPECT_TRUE(RecordFiles(dir).empty());
  // A typo in the policy is a usage error.
  r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 2",
                      " --on_bot_failure witdraw --records ", dir, "2 --bot a=", kBin,
                      "/random_bot --bot b=", kBin, "/random_bot"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--on_bot_failure=witdraw: use withdraw or abort"));
}

// When no bot at all can be had, the tournament itself could not run: 2.
TEST(Withdrawal, NoBotThatCanStartIsAnErrorNotAContest) {
  Workdir w("none");
  const std::string broken = w.Script("broken.sh", "exit 1\n");
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 4",
                          " --max_restarts 1 --progress=false --records ", w.path(), "/r",
                          " --bot a=", broken, " --bot b=", broken));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("no bot could be started"));
}

// The organiser's own setup: a TMPDIR the sandboxed bots' uid cannot enter
// (mode 0700) is named before any bot starts, not reported as every bot
// failing with bwrap's "Can't find source path".
TEST(Withdrawal, ATempFolderTheBotsCannotEnterIsNamedAtOnce) {
  if (::geteuid() != 0) GTEST_SKIP() << "bots run as other uids only when arena is root";
  Workdir w("tmpdir");
  const std::string tmp = w.path() + "/private-tmp";
  Sh("mkdir -p " + tmp + " && chmod 700 " + tmp);
  Cmd r = Sh(absl::StrCat("TMPDIR=", tmp, " ", kBin,
                          "/arena tournament --game quasenbo --games 2 --progress=false",
                          " --records ", w.path(), "/r --bot a=", kBin, "/random_bot",
                          " --bot b=", kBin, "/random_bot"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr(absl::StrCat("may not enter ", tmp)));
  EXPECT_THAT(r.output, HasSubstr("TMPDIR"));
  EXPECT_THAT(r.output, Not(HasSubstr("started bot")));
}

// A records folder that already holds a tournament is refused before any
// bot starts (a bot that starts leaves a mark), with the way out named; and
// a match with more seats than bots says up front how the bots fill them.
TEST(Withdrawal, AUsedRecordsFolderIsRefusedBeforeAnyBotStarts) {
  Workdir w("used");
  const std::string dir = w.path() + "/r";
  Cmd first = Sh(absl::StrCat(kBin, "/arena tournament --game pesten --games 6 --progress=false",
                              " --records ", dir, " --bot me=", kBin, "/random_bot",
                              " --bot rnd=", kBin, "/random_bot"));
  ASSERT_EQ(first.code, 0) << first.output;
  EXPECT_THAT(first.output,
              HasSubstr("pesten: 4 seats a match, 2 bots: a bot fills 1 to 3 seats of a match "
                        "(2 on average), and its seats play one another too"));
  const std::string mark = w.path() + "/started";
  const std::string marker = w.Script("marker.sh", absl::StrCat("touch ", mark, "\nexec ", kBin,
                                                                "/random_bot\n"));
  Cmd again = Sh(absl::StrCat(kBin, "/arena tournament --game pesten --games 6 --progress=false",
                              " --sandbox none --records ", dir, " --bot me=", marker,
                              " --bot rnd=", marker));
  EXPECT_EQ(again.code, 2) << again.output;
  EXPECT_THAT(again.output, HasSubstr("already holds a tournament"));
  EXPECT_THAT(again.output, HasSubstr("--resume " + dir));
  EXPECT_THAT(again.output, Not(HasSubstr("started bot")));
  EXPECT_FALSE(std::filesystem::exists(mark)) << "a bot was started";
  // One bot per seat: nothing to say.
  Cmd two = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 2 --progress=false",
                            " --records ", w.path(), "/q --bot a=", kBin, "/random_bot",
                            " --bot b=", kBin, "/random_bot"));
  EXPECT_EQ(two.code, 0) << two.output;
  EXPECT_THAT(two.output, Not(HasSubstr("seats of a match")));
}

// Resume counts a withdrawn bot's no-show forfeits as played: only matches
// without a record are played again (here by the bot, fixed meanwhile).
TEST(Withdrawal, ResumeKeepsNoShowForfeitsAsPlayed) {
  Workdir w("resume");
  const std::string bot = w.Script("bot.sh", "exit 1\n");
  const std::string dir = w.path() + "/r";
  const std::string flags = absl::StrCat(
      " --game quasenbo --games 24 --jobs 2 --progress=false --max_restarts 1",
      " --secret_file ", w.path(), "/t.secret --records ", dir, " --bot a=", kBin,
      "/random_bot --bot b=", kBin, "/random_bot --bot late=", bot);
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament", flags));
  ASSERT_EQ(r.code, 1) << r.output;
  // Lose three records of matches between a and b, as a crash would.
  int removed = 0;
  std::set<std::string> kept;
  for (const std::string& path : RecordFiles(dir)) {
    auto lines = ReadRecordFile(path);
    ASSERT_TRUE(lines.ok());
    const auto& seats = lines->front().header().seat_bots();
    const bool late = std::find(seats.begin(), seats.end(), "late") != seats.end();
    if (!late && removed < 3) {
      std::filesystem::remove(path);
      ++removed;
    } else {
      kept.insert(path);
    }
  }
  ASSERT_EQ(removed, 3);
  // The entrant fixes its bot (same command, same path).
  w.Script("bot.sh", absl::StrCat("exec ", kBin, "/random_bot\n"));
  r = Sh(absl::StrCat(kBin, "/arena tournament --resume ", dir, flags));
  EXPECT_THAT(r.output, HasSubstr("resume: 21 of 24 matches recorded, 3 to play"));
  const v1::Standings st = ReadStandings(dir);
  EXPECT_EQ(st.matches_played(), 24);
  const v1::StandingRow* row = RowOf(st, "late");
  ASSERT_NE(row, nullptr);
  EXPECT_TRUE(row->withdrawn());  // its forfeits stand
  EXPECT_EQ(row->fault_kinds().no_show(), row->matches());
  for (const std::string& path : kept) EXPECT_TRUE(std::filesystem::exists(path)) << path;
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir));
  EXPECT_EQ(v.code, 0) << v.output;
}

// The standalone referee: a bot that does not connect within the connect
// timeout is withdrawn and the others play every match.
TEST(Withdrawal, StandaloneRefereeWithdrawsABotThatNeverCame) {
  Workdir w("referee");
  const std::string dir = w.path();
  const int port = 20000 + (::getpid() + 7919) % 20000;
  {
    std::ofstream cfg(dir + "/t.textproto");
    cfg << "game: \"quasenbo\"\nseats: 2\nmatches: 12\njobs: 2\n"
        << "records_dir: \"" << dir << "/records\"\n"
        << "bots { name: \"one\" token: \"tok-1\" }\n"
        << "bots { name: \"two\" token: \"tok-2\" }\n"
        << "bots { name: \"absent\" token: \"tok-3\" }\n"
        << "connect_timeout_ms: 3000\n";
  }
  const std::string addr = absl::StrCat("127.0.0.1:", port);
  Cmd r = Sh(absl::StrCat(
      "(", kBin, "/referee --listen ", addr, " --config ", dir, "/t.textproto > ", dir,
      "/referee.log 2>&1; echo referee-exit $? >> ", dir, "/referee.log) & ",
      "sleep 1; ARENA_ADDRESS=", addr, " ARENA_TOKEN=tok-1 timeout 120 ", kBin,
      "/random_bot & ARENA_ADDRESS=", addr, " ARENA_TOKEN=tok-2 timeout 120 ", kBin,
      "/random_bot & wait; cat ", dir, "/referee.log"));
  EXPECT_THAT(r.output, HasSubstr("referee-exit 1")) << r.output;
  EXPECT_THAT(r.output, HasSubstr("bot absent did not connect within 3s: withdrawn"));
  const v1::Standings st = ReadStandings(dir + "/records");
  EXPECT_EQ(st.matches_played(), 12);
  const v1::StandingRow* row = RowOf(st, "absent");
  ASSERT_NE(row, nullptr);
  EXPECT_TRUE(row->withdrawn());
  EXPECT_EQ(RowOf(st, "one")->forfeits(), 0);
  EXPECT_EQ(RowOf(st, "two")->forfeits(), 0);
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir, "/records"));
  EXPECT_EQ(v.code, 0) << v.output;
}

// Every process: its pid, its parent's and its command line.
struct Proc {
  pid_t pid, ppid;
  std::string cmdline;
};
std::vector<Proc> Processes() {
  std::vector<Proc> out;
  DIR* d = ::opendir("/proc");
  if (d == nullptr) return out;
  while (dirent* e = ::readdir(d)) {
    int pid;
    if (!absl::SimpleAtoi(e->d_name, &pid)) continue;
    const std::string stat = ReadFile(absl::StrCat("/proc/", pid, "/stat"));
    const size_t paren = stat.rfind(')');
    if (paren == std::string::npos) continue;
    // After "pid (comm)": the state, then the parent's pid.
    std::vector<std::string> f = absl::StrSplit(stat.substr(paren + 2), ' ');
    int ppid;
    if (f.size() < 2 || !absl::SimpleAtoi(f[1], &ppid)) continue;
    std::string cmd = ReadFile(absl::StrCat("/proc/", pid, "/cmdline"));
    std::replace(cmd.begin(), cmd.end(), '\0', ' ');
    out.push_back({pid, ppid, cmd});
  }
  ::closedir(d);
  return out;
}

// Runs `cmd` (an arena command whose line holds `mark`) while counting the
// child processes of that arena process every few ms: the most at once.
Cmd RunCountingChildren(const std::string& cmd, const std::string& mark, int* most) {
  std::atomic<bool> done{false};
  Cmd r;
  std::thread run([&] {
    r = Sh(cmd);
    done.store(true);
  });
  *most = 0;
  const std::string arena = kBin + "/arena ";
  while (!done.load()) {
    const std::vector<Proc> all = Processes();
    for (const Proc& p : all) {
      if (!absl::StartsWith(p.cmdline, arena) || !absl::StrContains(p.cmdline, mark)) continue;
      int children = 0;
      for (const Proc& c : all) children += c.ppid == p.pid ? 1 : 0;
      *most = std::max(*most, children);
    }
    absl::SleepFor(absl::Milliseconds(5));
  }
  run.join();
  return r;
}

// "bot processes: at most N live at once (bound B..." in arena's log: N, or
// -1.
int PeakLive(const std::string& output, int bound) {
  const std::string tail = absl::StrCat(" live at once (bound ", bound);
  const size_t end = output.find(tail);
  const std::string head = "bot processes: at most ";
  const size_t start = output.rfind(head, end);
  int n = -1;
  if (end == std::string::npos || start == std::string::npos ||
      !absl::SimpleAtoi(output.substr(start + head.size(), end - start - head.size()), &n)) {
    return -1;
  }
  return n;
}

// `n` random bots b0 .. b(n-1), as --bot flags.
std::string RandomBots(int n) {
  std::string bots;
  for (int i = 0; i < n; ++i) absl::StrAppend(&bots, " --bot b", i, "=", kBin, "/random_bot");
  return bots;
}

// A field of at most 64 entrants gets a default bound of seats * field
// (DefaultMaxLiveBots, arena/tournament/launch.h): a process per rotation
// of a deal for each entrant fits, so with duplicate deals, where a bot's
// process hands over before each deal it has played and is kept for later
// ones, none is stopped for room. 30 entrants at 2 seats, sandboxed: a
// bound of 60, where the bound of the jobs (32) had the same contest stop
// processes for room and start them again.
TEST(Withdrawal, ASmallFieldKeepsItsProcessesAndTheirNextOnesByDefault) {
  Workdir w("smallfield");
  const std::string dir = w.path() + "/r";
  const std::string bots = RandomBots(30);
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --seats 2 --games 120 --jobs 2",
                          " --progress=false --records ", dir, bots));
  ASSERT_EQ(r.code, 0) << r.output;
  const int peak = PeakLive(r.output, 60);
  EXPECT_GE(peak, 30) << r.output;  // the field, at least, and within the bound
  EXPECT_LE(peak, 60) << r.output;
  EXPECT_THAT(r.output, HasSubstr(" 0 stopped to make room")) << r.output;
  const v1::Standings st = ReadStandings(dir);
  EXPECT_EQ(st.matches_played(), 120);
  EXPECT_EQ(st.matches_unrecorded(), 0);
}

// A field larger than the bound on live processes: each entrant's process
// starts when its matches come up and is stopped to make room (or when
// idle), never more than the bound at once (counted by arena and, outside
// it, here); every match is recorded and verifies; a bot that cannot start
// is still withdrawn with its matches as no-shows; the stops are neither
// restarts nor crashes.
TEST(Withdrawal, EntrantsOnDemandStayWithinTheBoundOfLiveProcesses) {
  Workdir w("ondemand");
  const std::string broken = w.Script("broken.sh", "echo 'no model' >&2\nexit 1\n");
  const std::string dir = w.path() + "/r";
  const std::string bots = RandomBots(12);
  int most_children = 0;
  Cmd r = RunCountingChildren(
      absl::StrCat(kBin, "/arena tournament --game quasenbo --seats 2 --games 84 --jobs 1",
                   " --max_live_bots 4 --bot_idle_ms 300 --progress=false --records ", dir,
                   bots, " --bot broken=", broken),
      dir, &most_children);
  EXPECT_EQ(r.code, 1) << r.output;  // broken is withdrawn
  const int peak = PeakLive(r.output, 4);
  EXPECT_GE(peak, 2) << r.output;
  EXPECT_LE(peak, 4) << r.output;
  EXPECT_GE(most_children, 2) << r.output;
  EXPECT_LE(most_children, 4) << r.output;
  std::cout << "bot processes at once: " << peak << " by arena's count, "
            << most_children << " seen (bound 4)\n";
  EXPECT_THAT(r.output, HasSubstr("13 bots, at most 4 bot processes at once"));
  EXPECT_THAT(r.output, ContainsRegex("[1-9][0-9]* stopped to make room"));
  // (That no process meets a deal twice on demand either:
  // Security.NoBotProcessMeetsADealTwice.)

  const v1::Standings st = ReadStandings(dir);
  EXPECT_EQ(st.matches_played(), 84);
  EXPECT_EQ(st.matches_unrecorded(), 0);
  const v1::StandingRow* row = RowOf(st, "broken");
  ASSERT_NE(row, nullptr);
  EXPECT_TRUE(row->withdrawn());
  EXPECT_THAT(row->withdrawn_reason(), HasSubstr("exited with code 1 before connecting"));
  EXPECT_GT(row->matches(), 0);
  EXPECT_EQ(row->fault_kinds().no_show(), row->matches());
  ASSERT_EQ(st.entrants_size(), 13);
  for (const auto& e : st.entrants()) {
    if (e.bot() == "broken") {
      EXPECT_EQ(e.restarts(), 3);
      EXPECT_EQ(e.exits_size(), 4);  // its first start and three restarts
      continue;
    }
    EXPECT_FALSE(e.withdrawn()) << e.bot();
    EXPECT_EQ(e.restarts(), 0) << e.bot();  // stops for room are not restarts
    EXPECT_EQ(e.exits_size(), 0) << e.bot();
    const v1::StandingRow* other = RowOf(st, e.bot());
    ASSERT_NE(other, nullptr);
    EXPECT_GT(other->matches(), 0) << e.bot();
    EXPECT_EQ(other->faults(), 0) << e.bot();
  }
  const RecordFacts f = ReadFacts(dir);
  EXPECT_EQ(f.records, 84);
  EXPECT_EQ(f.forfeits.size(), 1u);  // only the broken bot forfeited
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir));
  EXPECT_EQ(v.code, 0) << v.output;
}

// Stops when idle: with a bound of 2 for 3 entrants and no idle time
// allowed, processes are stopped between matches and started again, and
// the tournament ends clean (exit 0: no restart, no crash). A field that
// fits the default bound keeps its processes but for the one fresh process
// a bot needs per rotation of the duplicate deals.
TEST(Withdrawal, IdleEntrantsAreStoppedWithoutCountingAsFailures) {
  Workdir w("idle");
  const std::string dir = w.path() + "/r";
  const std::string bots = absl::StrCat(" --bot a=", kBin, "/random_bot --bot b=", kBin,
                                        "/random_bot --bot c=", kBin, "/random_bot");
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --seats 2 --games 24",
                          " --jobs 1 --max_live_bots 2 --bot_idle_ms 0 --progress=false",
                          " --records ", dir, bots));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("without a match"));
  EXPECT_LE(PeakLive(r.output, 2), 2) << r.output;
  EXPECT_GE(PeakLive(r.output, 2), 2) << r.output;
  // More starts than bots: each was stopped and started again.
  const testing::ProcessLine p = testing::ProcessesOf(r.output);
  EXPECT_GT(p.ahead + p.demand, 3) << r.output;
  const v1::Standings st = ReadStandings(dir);
  EXPECT_EQ(st.matches_played(), 24);
  for (const auto& e : st.entrants()) {
    EXPECT_EQ(e.restarts(), 0) << e.bot();
    EXPECT_EQ(e.exits_size(), 0) << e.bot();
  }
  for (const auto& row : st.rows()) EXPECT_EQ(row.faults(), 0) << row.bot();
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir));
  EXPECT_EQ(v.code, 0) << v.output;

  // Two matches at a time under a bound of one match's bots: a match waits
  // for room until the one before it ends, and nothing is lost.
  const std::string dir_jobs = w.path() + "/jobs";
  r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --seats 2 --games 24",
                      " --jobs 2 --max_live_bots 2 --progress=false --records ", dir_jobs,
                      bots, " --bot d=", kBin, "/random_bot"));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(PeakLive(r.output, 2), 2) << r.output;
  const v1::Standings jobs_st = ReadStandings(dir_jobs);
  EXPECT_EQ(jobs_st.matches_played(), 24);
  for (const auto& row : jobs_st.rows()) EXPECT_EQ(row.faults(), 0) << row.bot();
  v = Sh(absl::StrCat(kBin, "/arena verify ", dir_jobs));
  EXPECT_EQ(v.code, 0) << v.output;

  // The same field under the default bound (1 * 2 + 2 = 4, raised to
  // kDefaultMinLiveBots, 32): every process up front, none stopped for being
  // idle, and with duplicate deals each bot's process replaced once, where
  // the matches cross from the deals' first rotation to their second (a
  // process that played a deal must not see it again), never for a match it
  // was already ensured for; so 2 processes a bot, and at most 2 live at
  // once a bot (its next one started while its current one played). --jobs
  // 2 with short matches: a match often ends before the starter reads the
  // list of bots to come that named it.
  const std::string dir2 = w.path() + "/r2";
  r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --seats 2 --games 240",
                      " --jobs 2 --progress=false --records ", dir2, bots));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_GE(PeakLive(r.output, 32), 3) << r.output;
  EXPECT_LE(PeakLive(r.output, 32), 6) << r.output;
  const testing::ProcessLine kept = testing::ProcessesOf(r.output);
  EXPECT_EQ(kept.renewed, 3) << r.output;
  EXPECT_GE(kept.taken_over, 0) << r.output;
  EXPECT_LE(kept.taken_over, 3) << r.output;
  EXPECT_EQ(kept.idle, 0) << r.output;
  EXPECT_EQ(kept.room, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("stopping bot")));
  const v1::Standings kept_st = ReadStandings(dir2);
  for (const auto& e : kept_st.entrants()) {
    EXPECT_EQ(e.processes(), 2) << e.bot();
    EXPECT_EQ(e.restarts(), 0) << e.bot();
  }
  // With fresh processes per rotation turned off, each bot's one process
  // lives through the tournament.
  const std::string dir3 = w.path() + "/r2-kept";
  r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --seats 2 --games 12",
                      " --jobs 1 --fresh_bots_per_rotation=false --progress=false --records ",
                      dir3, bots));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("each bot's process lives through the tournament"));
  // A bound below the seats of a match cannot play: refused up front.
  r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --seats 2 --games 2",
                      " --max_live_bots 1 --progress=false --records ", w.path(), "/r3", bots));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("needs at least 2 bot processes at once"));
}

}  // namespace
}  // namespace arena
