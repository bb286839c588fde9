// End to end: the real binaries (arena, referee, the bundled bots in C++ and
// Python, a misbehaving bot) as separate processes over gRPC on loopback.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "tests/e2e_util.h"
#include "arena/v1/config.pb.h"

namespace arena {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::Cmd;
using testing::FreshTempDir;
using testing::kBin;
using testing::ReadStandings;
using testing::Sh;

TEST(EndToEnd, TournamentOfBundledBotsInCppAndPythonVerifies) {
  const testing::TestDir tmp = FreshTempDir("bundled");
  const std::string& dir = tmp.path();
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo",
                          " --bot random=", kBin, "/random_bot",
                          " --bot smart=", kBin, "/quasenbo_bot",
                          " --bot python=", kBin, "/python_random_bot",
                          " --games 36 --jobs 4 --records ", dir));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("36/36 matches"));
  // At the end each bot, the Python one too, ends on its own when the
  // referee ends its stream: no SIGTERM. One line says so for all.
  EXPECT_THAT(r.output, HasSubstr("bot processes at the end: 3 of 3 ended by themselves "
                                  "with status 0 once their streams closed\n"))
      << r.output;
  // (A rotation's fresh processes replace the old ones by SIGTERM: only the
  // end of the run is checked.)
  const size_t end = r.output.find(" matches played, at most ");
  ASSERT_NE(end, std::string::npos) << r.output;
  EXPECT_THAT(r.output.substr(end), Not(HasSubstr("killed by signal")));
  v1::Standings st = ReadStandings(dir);
  EXPECT_EQ(st.matches_played(), 36);
  EXPECT_TRUE(st.balanced());
  ASSERT_EQ(st.rows_size(), 3);
  for (const auto& row : st.rows()) {
    EXPECT_EQ(row.seats_played(), 24) << row.bot();  // 36 matches x 2 seats / 3
    EXPECT_EQ(row.matches(), 24) << row.bot();       // one seat per match each
    EXPECT_EQ(row.forfeits(), 0) << row.bot();
  }
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir));
  EXPECT_EQ(v.code, 0) << v.output;
  EXPECT_THAT(v.output, HasSubstr("36 of 36 records verified"));
  // `arena standings` rebuilds the same files from the records alone.
  const std::vector<std::string> files = {"standings.json", "standings.csv",
                                          "head_to_head.csv"};
  std::vector<std::string> before;
  for (const auto& f : files) before.push_back(testing::ReadFile(dir + "/" + f));
  Sh("rm -f " + dir + "/standings.json " + dir + "/standings.csv " + dir +
     "/head_to_head.csv");
  Cmd rebuilt = Sh(absl::StrCat(kBin, "/arena standings ", dir));
  ASSERT_EQ(rebuilt.code, 0) << rebuilt.output;
  EXPECT_THAT(rebuilt.output, HasSubstr("36 of 36 matches, 18 deal groups"));
  for (size_t i = 0; i < files.size(); ++i) {
    EXPECT_FALSE(before[i].empty()) << files[i];
    EXPECT_EQ(testing::ReadFile(dir + "/" + files[i]), before[i]) << files[i];
  }
  std::ifstream csv(dir + "/standings.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header,
            "rank,bot,elo,elo_low,elo_high,matches,seats,wins,mean_score,"
            "mean_placement,forfeits,faults_timeout,faults_illegal,"
            "faults_disconnected,faults_unavailable,faults_crashed,faults_no_show,"
            "faults_cut_off,withdrawn,rank_low,rank_high,surely_ahead_count,"
            "surely_behind_count,los_" + st.rows(0).bot() +
                ",los_" + st.rows(1).bot() + ",los_" + st.rows(2).bot());
}


// A bot that lingers once the referee has closed its stream is stopped
// (SIGTERM) after arena's wait, and the end-of-run line names it with how
// it ended; the one that ended by itself is only counted.
TEST(EndToEnd, TheEndOfRunLineNamesABotThatDidNotEndByItself) {
  const testing::TestDir tmp = FreshTempDir("linger");
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 4 --sandbox none",
                          " --progress=false --records ", tmp.path(), " --bot a=", kBin,
                          "/random_bot --bot lingers=\"sh -c '", kBin,
                          "/random_bot \\\"\\$@\\\"; sleep 30' x\""));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("bot processes at the end: 1 of 2 ended by themselves with "
                                  "status 0 once their streams closed; not: lingers (stopped, "
                                  "killed by signal 15 (Terminated))\n"))
      << r.output;
  EXPECT_EQ(ReadStandings(tmp.path()).matches_played(), 4);
}
TEST(EndToEnd, MatchThenReplayShowsOnlyWhatASeatSaw) {
  const testing::TestDir tmp = FreshTempDir("match");
  const std::string& dir = tmp.path();
  Cmd r = Sh(absl::StrCat(kBin, "/arena match --game quasenbo --seed 7",
                          " --bot a=", kBin, "/random_bot --bot b=", kBin,
                          "/quasenbo_bot --records ", dir));
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string rec = testing::OnlyRecord(dir);
  EXPECT_THAT(rec, ::testing::MatchesRegex(".*/quasenbo-[0-9a-f]{12}-000001\\.rec"));
  Cmd all = Sh(absl::StrCat(kBin, "/arena replay ", rec));
  ASSERT_EQ(all.code, 0) << all.output;
  EXPECT_THAT(all.output, HasSubstr("record only"));
  EXPECT_THAT(all.output, HasSubstr("result:"));
  Cmd seat = Sh(absl::StrCat(kBin, "/arena replay ", rec, " --seat 0"));
  ASSERT_EQ(seat.code, 0) << seat.output;
  EXPECT_THAT(seat.output, HasSubstr("view of seat 0"));
  EXPECT_THAT(seat.output, ::testing::Not(HasSubstr("view of seat 1")));
  EXPECT_THAT(seat.output, ::testing::Not(HasSubstr("deck [")));  // deck order hidden
  EXPECT_THAT(all.output, HasSubstr("deck ["));
  Cmd step = Sh(absl::StrCat(kBin, "/arena replay ", rec, " --step 2"));
  EXPECT_THAT(step.output, HasSubstr("stopped after step 2"));
  EXPECT_THAT(step.output, ::testing::Not(HasSubstr("step 3:")));
}

// A bot that prints bytes that are not UTF-8 and terminal escapes to its
// stderr, then crashes mid-match: its crash's fault detail (the stderr's
// last lines) is plain text, and every record reads and verifies.
TEST(EndToEnd, ACrashingBotsGarbledStderrCannotSpoilARecord) {
  const testing::TestDir tmp = FreshTempDir("garbled");
  const std::string& dir = tmp.path();
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --record_format jsonl",
                          " --bot crashy='", kBin,
                          "/crash_hang_flood_bot --mode=crash_after --n=1 --stderr_garbage'",
                          " --bot steady=", kBin, "/random_bot",
                          " --games 2 --jobs 1 --max_restarts 2 --records ", dir));
  ASSERT_EQ(r.code, 1) << r.output;  // complete, an entrant crashed
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir));
  EXPECT_EQ(v.code, 0) << v.output;
  int details = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".jsonl") continue;
    std::ifstream in(e.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << e.path() << ": a terminal escape";
    EXPECT_EQ(text.find('\xff'), std::string::npos) << e.path() << ": a byte not UTF-8";
    details += absl::StrContains(text, "boom");
  }
  EXPECT_GE(details, 1) << "no record holds the crash's stderr";
}

TEST(EndToEnd, CrashingBotIsRestartedThenWithdrawn) {
  const testing::TestDir tmp = FreshTempDir("crash");
  const std::string& dir = tmp.path();
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo",
                          " --bot crashy='", kBin, "/crash_hang_flood_bot --mode=crash_after --n=0'",
                          " --bot steady=", kBin, "/random_bot",
                          " --games 12 --jobs 1 --max_restarts 2 --records ", dir));
  // Complete, but an entrant failed as a program: 1.
  ASSERT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("restarting bot crashy (1 of 2)"));
  EXPECT_THAT(r.output, HasSubstr("restarting bot crashy (2 of 2)"));
  EXPECT_THAT(r.output, HasSubstr("crashy: 3 crashed, 9 no show; 2 restart(s); WITHDRAWN"));
  v1::Standings st = ReadStandings(dir);
  EXPECT_EQ(st.matches_played(), 12);
  for (const auto& row : st.rows()) {
    if (row.bot() == "crashy") {
      EXPECT_EQ(row.forfeits(), 12);  // every match: crashed, then withdrawn
      // Each of its three processes crashed at its first decision (a crash,
      // with its exit status, not a timeout); then it was withdrawn.
      EXPECT_EQ(row.fault_kinds().crashed(), 3);
      EXPECT_EQ(row.fault_kinds().no_show(), 9);
      EXPECT_EQ(row.fault_kinds().timeout() + row.fault_kinds().disconnected() +
                    row.fault_kinds().unavailable() + row.fault_kinds().illegal(),
                0);
      EXPECT_TRUE(row.withdrawn());
    } else {
      EXPECT_EQ(row.forfeits(), 0);
    }
  }
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir));
  EXPECT_EQ(v.code, 0) << v.output;
}

TEST(EndToEnd, HangingBotUnderRandomPolicyStillFinishesEveryMatch) {
  const testing::TestDir tmp = FreshTempDir("hang");
  const std::string& dir = tmp.path();
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo",
                          " --bot hangs='", kBin, "/crash_hang_flood_bot --mode=hang_after --n=1'",
                          " --bot steady=", kBin, "/random_bot --games 2",
                          " --decision_ms 100 --fault_policy random --records ", dir));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("timeout"));
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir));
  EXPECT_EQ(v.code, 0) << v.output;
  v1::Standings st = ReadStandings(dir);
  for (const auto& row : st.rows()) EXPECT_EQ(row.forfeits(), 0);
}

TEST(EndToEnd, StandaloneRefereeServesBotsThatConnectThemselves) {
  const testing::TestDir tmp = FreshTempDir("standalone");
  const std::string& dir = tmp.path();
  const int port = 20000 + ::getpid() % 20000;
  {
    std::ofstream cfg(dir + "/t.textproto");
    cfg << "game: \"quasenbo\"\nseats: 3\nmatches: 6\njobs: 2\n"
        << "records_dir: \"" << dir << "/records\"\n"
        << "time_control { decision_ms: 2000 }\nfault_policy: FAULT_POLICY_FORFEIT\n"
        << "bots { name: \"one\" token: \"tok-1\" }\n"
        << "bots { name: \"two\" token: \"tok-2\" }\n"
        << "bots { name: \"three\" token: \"tok-3\" }\n"
        << "connect_timeout_ms: 20000\n";
  }
  const std::string addr = absl::StrCat("127.0.0.1:", port);
  Cmd r = Sh(absl::StrCat(
      "(", kBin, "/referee --listen ", addr, " --config ", dir, "/t.textproto > ",
      dir, "/referee.log 2>&1; echo referee-exit $? >> ", dir, "/referee.log) & ",
      "sleep 1; ",
      "ARENA_ADDRESS=", addr, " ARENA_TOKEN=tok-1 ", kBin, "/random_bot & ",
      kBin, "/quasenbo_bot --address ", addr, " --token tok-2 & ",
      "ARENA_ADDRESS=", addr, " ARENA_TOKEN=tok-3 ", kBin, "/python_random_bot & ",
      "wait; cat ", dir, "/referee.log"));
  EXPECT_THAT(r.output, HasSubstr("referee-exit 0")) << r.output;
  v1::Standings st = ReadStandings(dir + "/records");
  EXPECT_EQ(st.matches_played(), 6);
  EXPECT_EQ(st.seats(), 3);
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir, "/records"));
  EXPECT_EQ(v.code, 0) << v.output;
}

TEST(EndToEnd, BrokenConfigIsRefusedWithLineAndColumn) {
  const testing::TestDir tmp = FreshTempDir("badcfg");
  const std::string& dir = tmp.path();
  {
    std::ofstream cfg(dir + "/bad.textproto");
    cfg << "game: \"quasenbo\"\nmatches: lots\n";
  }
  Cmd r = Sh(absl::StrCat(kBin, "/referee --config ", dir, "/bad.textproto"));
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.output, HasSubstr("line 2"));
  Cmd g = Sh(absl::StrCat(kBin, "/arena tournament --game chess --games 1 --bot a=x"));
  EXPECT_EQ(g.code, 2);
  EXPECT_THAT(g.output, HasSubstr("unknown game 'chess'"));
  Cmd o = Sh(absl::StrCat(kBin, "/arena tournament --games 1 --bot a=x --option pawns=maybe"));
  EXPECT_THAT(o.output, HasSubstr("pawns=maybe"));
}

TEST(EndToEnd, VerifyFailsLoudlyOnATamperedRecord) {
  const testing::TestDir tmp = FreshTempDir("tamper");
  const std::string& dir = tmp.path();
  // JSON lines, to edit as text (a compact record's checksum refuses any
  // edited byte: RecordFormats.EveryFormatReadsBackLineForLineAndVerifies).
  Cmd r = Sh(absl::StrCat(kBin, "/arena match --seed 3 --record_format jsonl --bot a=", kBin,
                          "/random_bot --bot b=", kBin, "/random_bot --records ", dir));
  ASSERT_EQ(r.code, 0) << r.output;
  // Change the seed in the header.
  const std::string rec = testing::OnlyRecord(dir);
  const std::string id = rec.substr(rec.rfind('/') + 1, rec.size() - rec.rfind('/') - 7);
  Sh(absl::StrCat("sed -i '1s/\"seed\":\"[0-9]*\"/\"seed\":\"1\"/' ", rec));
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir));
  EXPECT_EQ(v.code, 1);
  EXPECT_THAT(v.output, HasSubstr("FAIL"));
  EXPECT_THAT(v.output, HasSubstr("match " + id));
}

}  // namespace
}  // namespace arena

namespace arena {
namespace {

// Records of every format (--record_format; --compress, the old flag, is
// jsonl.zst) verify, replay, rebuild the standings, render in HTML and print
// as JSON lines; all in one folder too, as a resumed or mixed folder holds.
TEST(EndToEnd, EveryRecordFormatVerifiesReplaysRebuildsAndRenders) {
  const testing::TestDir tmp = testing::FreshTempDir("formats");
  const std::string& dir = tmp.path();
  const std::string bots = absl::StrCat(" --bot a=", testing::kBin, "/random_bot --bot b=",
                                        testing::kBin, "/random_bot");
  struct Case {
    std::string flag, suffix;
  };
  for (const Case& c : std::vector<Case>{{"", ".rec"},
                                         {"--record_format compact", ".rec"},
                                         {"--record_format jsonl", ".jsonl"},
                                         {"--record_format jsonl.zst", ".jsonl.zst"},
                                         {"--compress", ".jsonl.zst"}}) {
    const std::string d = absl::StrCat(dir, "/", c.flag.empty() ? "default" : c.flag.substr(2));
    Cmd r = testing::Sh(absl::StrCat(testing::kBin, "/arena tournament --game quasenbo --games 4 ",
                                     c.flag, bots, " --records '", d, "'"));
    ASSERT_EQ(r.code, 0) << c.flag << r.output;
    const std::vector<std::string> files = testing::RecordFiles(d);
    ASSERT_EQ(files.size(), 4u) << c.flag;
    for (const auto& f : files) EXPECT_TRUE(absl::EndsWith(f, c.suffix)) << f;
    Cmd v = testing::Sh(absl::StrCat(testing::kBin, "/arena verify '", d, "'"));
    EXPECT_EQ(v.code, 0) << v.output;
    EXPECT_THAT(v.output, HasSubstr("4 of 4 records verified; the standings agree"));
    Cmd rp = testing::Sh(absl::StrCat(testing::kBin, "/arena replay '", files[0], "' --seat 1"));
    EXPECT_EQ(rp.code, 0) << rp.output;
    EXPECT_THAT(rp.output, HasSubstr("result:"));
    Cmd st = testing::Sh(absl::StrCat(testing::kBin, "/arena standings '", d, "'"));
    EXPECT_EQ(st.code, 0) << st.output;
    EXPECT_THAT(st.output, HasSubstr("4 matches"));
    Cmd h = testing::Sh(absl::StrCat(testing::kBin, "/arena html '", d, "'"));
    EXPECT_EQ(h.code, 0) << h.output;
    EXPECT_THAT(h.output, HasSubstr("4 records, 4 replay pages"));
    // `arena cat`: one JSON line a record line, header first, result last.
    Cmd cat = testing::Sh(absl::StrCat(testing::kBin, "/arena cat '", files[0], "'"));
    ASSERT_EQ(cat.code, 0) << cat.output;
    EXPECT_THAT(cat.output, ::testing::StartsWith("{\"header\":{\"format_version\":"));
    EXPECT_THAT(cat.output, ::testing::ContainsRegex("\n\\{\"result\":\\{[^\n]*\\}\n$"));
    // Its output is a record of the JSON Lines format: it verifies too.
    const std::string plain = absl::StrCat(dir, "/plain", c.suffix.size(), ".jsonl");
    ASSERT_EQ(testing::Sh(absl::StrCat(testing::kBin, "/arena cat '", files[0], "' > ", plain)).code, 0);
    EXPECT_EQ(testing::Sh(absl::StrCat(testing::kBin, "/arena verify ", plain)).code, 0);
  }
  // A bad format is a usage error naming the flag; so is one with --compress.
  for (const char* bad : {"--record_format xml", "--record_format jsonl --compress"}) {
    Cmd r = testing::Sh(absl::StrCat(testing::kBin, "/arena tournament --game quasenbo --games 2 ",
                                     bad, bots, " --records ", dir, "/bad"));
    EXPECT_EQ(r.code, 2) << bad << r.output;
    EXPECT_THAT(r.output, HasSubstr("--record_format")) << bad;
  }
  Cmd missing = testing::Sh(absl::StrCat(testing::kBin, "/arena cat ", dir, "/nothing.rec"));
  EXPECT_EQ(missing.code, 2) << missing.output;
  EXPECT_THAT(missing.output, HasSubstr("nothing.rec"));
}

}  // namespace
}  // namespace arena

namespace arena {
namespace {

// A bot that dies before connecting is reported at once, with how it ended
// and the end of its output, not after the 30 s connect timeout.
TEST(EndToEnd, BotThatExitsAtStartIsReportedAtOnce) {
  // In the build tree, not the system temp folder, which each sandbox hides.
  const testing::TestDir tmp(absl::StrCat(ARENA_BIN_DIR, "/../tests/e2e-early-", ::getpid()));
  const std::string& dir = tmp.path();
  const std::string script = dir + "/dies.sh";
  std::ofstream(script) << "#!/bin/sh\necho 'cannot load my model' >&2\nexit 3\n";
  testing::Sh("chmod 755 " + script + " && chmod 755 " + dir);
  const absl::Time t0 = absl::Now();
  Cmd r = testing::Sh(absl::StrCat(testing::kBin, "/arena match --game quasenbo --records ", dir,
                                   "/r --connect_timeout_ms 600000 --bot a=", testing::kBin,
                                   "/random_bot --bot b=", script));
  // Far less than the 10-minute connect timeout: it did not wait it out.
  EXPECT_LT(absl::Now() - t0, absl::Minutes(5));
  // arena match aborts on a bot that cannot play: exit 1.
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("bot b: its process exited with code 3 before connecting"));
  EXPECT_THAT(r.output, HasSubstr("cannot load my model"));
}

}  // namespace
}  // namespace arena

namespace arena {
namespace {

// Command-line habits: help per command without source paths; --listen
// checked before anything starts, with the reason.
TEST(EndToEnd, HelpPerCommandAndListenChecked) {
  Cmd help = testing::Sh(absl::StrCat(testing::kBin, "/arena tournament --help"));
  EXPECT_EQ(help.code, 0);
  EXPECT_THAT(help.output, HasSubstr("Usage: arena tournament"));
  EXPECT_THAT(help.output, HasSubstr("--secret_file"));
  EXPECT_THAT(help.output, ::testing::Not(HasSubstr("--seat ")));  // replay's
  EXPECT_THAT(help.output, ::testing::Not(HasSubstr(".cc")));      // no source paths
  Cmd replay = testing::Sh(absl::StrCat(testing::kBin, "/arena help replay"));
  EXPECT_EQ(replay.code, 0);
  EXPECT_THAT(replay.output, HasSubstr("--seat"));
  EXPECT_THAT(replay.output, ::testing::Not(HasSubstr("--games")));
  for (const auto& [listen, says] : std::vector<std::pair<std::string, std::string>>{
           {"127.0.0.1:70000", "not a number from 0 to 65535"},
           {"localhost", "use HOST:PORT"},
           {"10.255.255.1:5000", "not an address of this machine"}}) {
    Cmd r = testing::Sh(absl::StrCat(testing::kBin, "/referee --listen ", listen,
                                     " --config /nonexistent.textproto"));
    EXPECT_EQ(r.code, 2) << listen << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr(says)) << listen;
  }
}

}  // namespace
}  // namespace arena
