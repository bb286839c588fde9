// An entrant's processes in a field larger than the bound on live bot
// processes (entrants on demand, arena/tournament/bot_process.h): its
// failures add up over all of them, and its processes' starts and stops
// cost no entrant a match. Real processes: arena, the bundled bots and
// tests/crash_hang_flood_bot, in arena's sandbox.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/records/record.h"
#include "tests/e2e_util.h"

namespace arena {
namespace {

using ::testing::HasSubstr;
using testing::Cmd;
using testing::kBin;
using testing::Sh;

// Per fault kind, the forfeits of `bot` in the records of `dir`, and the
// start (RecordHeader::started_at, RFC 3339 in UTC: in order as text) of
// the first and the last match with each kind.
struct Forfeits {
  std::map<v1::FaultKind, int> count;
  std::map<v1::FaultKind, std::string> first, last;
};

Forfeits ForfeitsOf(const std::string& dir, const std::string& bot) {
  Forfeits f;
  for (const std::string& path : testing::RecordFiles(dir)) {
    auto lines = ReadRecordFile(path);
    EXPECT_TRUE(lines.ok()) << path;
    if (!lines.ok()) continue;
    const auto& h = lines->front().header();
    for (const auto& l : *lines) {
      if (!l.has_forfeit() || h.seat_bots(l.forfeit().seat()) != bot) continue;
      const v1::FaultKind k = l.forfeit().fault();
      ++f.count[k];
      if (f.first[k].empty() || h.started_at() < f.first[k]) f.first[k] = h.started_at();
      f.last[k] = std::max(f.last[k], h.started_at());
    }
  }
  return f;
}

// An entrant that crashes in every match, in a field of three times the
// bound: each of its matches starts a process for it (the last one's slot
// was freed), and those starts are restarts of the entrant. With
// --max_restarts 2 it crashes 3 times (its first process and 2 restarts),
// is withdrawn with the cause in the standings, entrants.json and the HTML,
// and forfeits each later match as a no-show.
TEST(EntrantProcesses, CrashingEntrantIsWithdrawnAcrossItsProcesses) {
  testing::Workdir w("crash-on-demand");
  const std::string dir = w.path() + "/r";
  std::string bots;
  for (int i = 0; i < 11; ++i) absl::StrAppend(&bots, " --bot b", i, "=", kBin, "/random_bot");
  // One match at a time: each crash is one match's.
  Cmd r = Sh(absl::StrCat(
      kBin, "/arena tournament --game quasenbo --seats 2 --games 66 --jobs 1",
      " --max_live_bots 4 --max_restarts 2 --progress=false --records ", dir, bots,
      " --bot crashy='", kBin, "/crash_hang_flood_bot --mode=crash_after --n=1'"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("12 bots, at most 4 bot processes at once"));
  const v1::Standings st = testing::ReadStandings(dir);
  EXPECT_EQ(st.matches_played(), 66);
  const v1::StandingRow* row = testing::RowOf(st, "crashy");
  ASSERT_NE(row, nullptr);
  // 66 matches of 2 seats among 12 entrants: 11 seats each on average.
  EXPECT_GE(row->matches(), 9);
  EXPECT_TRUE(row->withdrawn());
  EXPECT_THAT(row->withdrawn_reason(), HasSubstr("exited with code 3"));
  EXPECT_EQ(row->fault_kinds().crashed(), 3);
  EXPECT_EQ(row->fault_kinds().no_show(), row->matches() - 3);
  // The no-shows all come after the crashes.
  const Forfeits f = ForfeitsOf(dir, "crashy");
  EXPECT_EQ(f.count.at(v1::FAULT_KIND_CRASHED), 3);
  EXPECT_EQ(f.count.at(v1::FAULT_KIND_NO_SHOW), row->matches() - 3);
  EXPECT_LT(f.last.at(v1::FAULT_KIND_CRASHED), f.first.at(v1::FAULT_KIND_NO_SHOW));
  bool seen = false;
  for (const auto& e : st.entrants()) {
    if (e.bot() != "crashy") continue;
    seen = true;
    EXPECT_TRUE(e.withdrawn());
    EXPECT_EQ(e.restarts(), 2);
    EXPECT_EQ(e.exits_size(), 3);
    EXPECT_THAT(e.reason(), HasSubstr("exited with code 3"));
  }
  EXPECT_TRUE(seen);
  const std::string entrants = testing::ReadFile(dir + "/entrants.json");
  EXPECT_THAT(entrants, HasSubstr("\"restarts\": 2"));
  EXPECT_THAT(entrants, HasSubstr("\"withdrawn\": true"));
  Cmd h = Sh(absl::StrCat(kBin, "/arena html ", dir, " --out ", w.path(), "/site"));
  ASSERT_EQ(h.code, 0) << h.output;
  const std::string page = testing::ReadFile(w.path() + "/site/index.html");
  EXPECT_THAT(page, HasSubstr("\"reason\": \"its process exited with code 3\""));
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir));
  EXPECT_EQ(v.code, 0) << v.output;
}


// `n` bots b0 .. b(n-1), each answering every decision after 10 ms, as
// --bot flags.
std::string AnswerAfterBots(int n) {
  std::string bots;
  for (int i = 0; i < n; ++i) {
    absl::StrAppend(&bots, " --bot b", i, "='", kBin,
                    "/crash_hang_flood_bot --mode=answer_after --n=10'");
  }
  return bots;
}

// A bot's next process waits, connected, for the bot's first match of a
// deal its current process has played: it is not dropped for waiting
// longer than --bot_idle_ms, nor a fresh one started in its place. Four
// bots, duplicate deals, two rotations: each bot has exactly 2 processes,
// and none is stopped before it played. (Dropped for idling, each bot had
// 3 to 5 at --bot_idle_ms 50.)
TEST(EntrantProcesses, ANextProcessIsNotDroppedForWaitingItsTurn) {
  testing::Workdir w("next-waits");
  const std::string dir = w.path() + "/r";
  const std::string bots = AnswerAfterBots(4);
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --seats 2 --games 24",
                          " --jobs 2 --bot_idle_ms 50 --progress=false --sandbox none",
                          " --records ", dir, bots));
  ASSERT_EQ(r.code, 0) << r.output;
  const v1::Standings st = testing::ReadStandings(dir);
  ASSERT_EQ(st.rows_size(), 4);
  for (const auto& row : st.rows()) {
    EXPECT_EQ(row.processes(), 2) << row.bot() << "\n" << r.output;
    EXPECT_EQ(row.faults(), 0) << row.bot();
  }
  EXPECT_EQ(testing::ProcessesOf(r.output).unused, 0) << r.output;
}

// A field larger than the bound, with room in it for more than the live
// matches' bots: the processes of the matches to come are started while
// the matches before them play (most starts are made ahead of need), the
// bound holds with them, and --jobs matches play at once.
TEST(EntrantProcesses, ProcessesStartAheadOfTheirMatchesWithinTheBound) {
  testing::Workdir w("ahead");
  const std::string dir = w.path() + "/r";
  const std::string bots = AnswerAfterBots(12);
  // 3 live matches hold 6 processes; 2 more are for the next matches.
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --seats 2 --games 48",
                          " --jobs 3 --max_live_bots 8 --progress=false --records ", dir, bots));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("48 matches played, at most 3 of them at once"));
  const testing::ProcessLine p = testing::ProcessesOf(r.output);
  EXPECT_EQ(p.bound, 8) << r.output;
  EXPECT_LE(p.peak, 8);
  EXPECT_GE(p.peak, 7);
  EXPECT_GT(p.ahead, p.demand) << r.output;
  // Each process stopped before it played was one of those started.
  EXPECT_GE(p.unused, 0) << r.output;
  EXPECT_LE(p.unused, p.ahead + p.demand) << r.output;
  const v1::Standings st = testing::ReadStandings(dir);
  EXPECT_EQ(st.matches_played(), 48);
  for (const auto& row : st.rows()) EXPECT_EQ(row.faults(), 0) << row.bot();
}

// What a bot's processes said of themselves in its log (crash_hang_flood_bot
// --mode=spin): per process, its last "spin-usage" line; the CPU seconds
// summed and the largest VmHWM.
struct SelfReport {
  int processes = 0;
  double cpu_seconds = 0;
  int64_t peak_rss_kib = 0;
};
SelfReport SelfReportOf(const std::string& log) {
  std::map<std::string, std::pair<int64_t, int64_t>> last;  // token -> cpu ms, hwm
  for (absl::string_view line : absl::StrSplit(testing::ReadFile(log), '\n')) {
    std::vector<std::string> f = absl::StrSplit(line, ' ');
    int64_t cpu, hwm;
    if (f.size() != 4 || f[0] != "spin-usage" ||
        !absl::SimpleAtoi(absl::StripPrefix(f[2], "cpu_ms="), &cpu) ||
        !absl::SimpleAtoi(absl::StripPrefix(f[3], "hwm_kib="), &hwm)) {
      continue;
    }
    last[f[1]] = {cpu, hwm};
  }
  SelfReport r;
  for (const auto& [token, usage] : last) {
    ++r.processes;
    r.cpu_seconds += usage.first / 1000.0;
    r.peak_rss_kib = std::max(r.peak_rss_kib, usage.second);
  }
  return r;
}

// Each entrant's CPU time and peak memory in the standings of a 4-entrant
// tournament, sandboxed and with --sandbox none: a bot that spins 20 ms of
// CPU for each decision and holds 150 MiB shows within 10 % of what the
// kernel told each of its processes of itself (getrusage, VmHWM, written to
// its log after each answer), at least its spinning (its answers times
// 20 ms), and at least 150 MiB; the random bots far less of both. Every bot
// has a fresh process per rotation of the deals: 2 here. The figures are in
// entrants.json too, and `arena standings` keeps them.
TEST(EntrantProcesses, StandingsShowEachEntrantsCpuTimeAndPeakMemory) {
  for (const std::string sandbox : {"bwrap", "none"}) {
    SCOPED_TRACE(sandbox);
    testing::Workdir w(absl::StrCat("resources-", sandbox));
    const std::string dir = w.path() + "/r";
    Cmd r = Sh(absl::StrCat(
        kBin, "/arena tournament --game quasenbo --seats 2 --games 24 --jobs 2",
        " --progress=false --sandbox ", sandbox, " --records ", dir, " --bot r1=", kBin,
        "/random_bot --bot r2=", kBin, "/random_bot --bot py=", kBin,
        "/python_random_bot --bot spin='", kBin,
        "/crash_hang_flood_bot --mode=spin --n=20 --alloc_mb=150'"));
    ASSERT_EQ(r.code, 0) << r.output;
    const v1::Standings st = testing::ReadStandings(dir);
    const v1::StandingRow* spin = testing::RowOf(st, "spin");
    ASSERT_NE(spin, nullptr);
    EXPECT_EQ(spin->faults(), 0) << r.output;
    const double spun = spin->answers() * 0.020;
    EXPECT_GE(spun, 1.0) << spin->answers();  // enough to measure
    EXPECT_EQ(spin->processes(), 2) << r.output;
    EXPECT_GE(spin->cpu_seconds(), spun * 0.98);
    const SelfReport self = SelfReportOf(dir + "/logs/spin.log");
    EXPECT_EQ(self.processes, 2);
    EXPECT_NEAR(spin->cpu_seconds(), self.cpu_seconds, 0.1 * self.cpu_seconds);
    EXPECT_GE(spin->peak_rss_kib(), 150 << 10);
    EXPECT_NEAR(spin->peak_rss_kib(), self.peak_rss_kib, 0.1 * self.peak_rss_kib);
    for (const char* bot : {"r1", "r2", "py"}) {
      const v1::StandingRow* row = testing::RowOf(st, bot);
      ASSERT_NE(row, nullptr) << bot;
      EXPECT_EQ(row->processes(), 2) << bot << "\n" << r.output;
      EXPECT_GT(row->cpu_seconds(), 0) << bot;
      EXPECT_LT(row->cpu_seconds(), spin->cpu_seconds() / 2) << bot;
      EXPECT_GT(row->peak_rss_kib(), 0) << bot;
      EXPECT_LT(row->peak_rss_kib(), 100 << 10) << bot;
    }
    const std::string entrants = testing::ReadFile(dir + "/entrants.json");
    EXPECT_THAT(entrants, HasSubstr("\"cpu_seconds\""));
    EXPECT_THAT(r.output, HasSubstr("peak RSS MiB"));
    // Rebuilt from the records and entrants.json: the same figures.
    Cmd again = Sh(absl::StrCat(kBin, "/arena standings ", dir));
    ASSERT_EQ(again.code, 0) << again.output;
    const v1::StandingRow* rebuilt = testing::RowOf(testing::ReadStandings(dir), "spin");
    ASSERT_NE(rebuilt, nullptr);
    EXPECT_DOUBLE_EQ(rebuilt->cpu_seconds(), spin->cpu_seconds());
    EXPECT_EQ(rebuilt->peak_rss_kib(), spin->peak_rss_kib());
    Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", dir));
    EXPECT_EQ(v.code, 0) << v.output;
  }
}

}  // namespace
}  // namespace arena
