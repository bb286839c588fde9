// A tournament whose wall clock jumps an hour forward and back while it
// runs (libfaketime preloaded into arena and its bots, the monotonic clock
// left alone, as an NTP step does): no decision times out for it, no clock
// restarts, no duration in the log or the standings is negative or off by
// the jump, and the think times recorded are the bot's real ones.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/records/record.h"
#include "tests/e2e_util.h"
#include "tests/test_util.h"

namespace arena::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Writes the fake clock's offset (libfaketime's FAKETIME_TIMESTAMP_FILE)
// atomically: the library reads it again every second.
void SetOffset(const std::string& file, const std::string& offset) {
  const std::string tmp = file + ".tmp";
  std::ofstream(tmp) << offset << "\n";
  std::filesystem::rename(tmp, file);
}

TEST(ClockJump, ATournamentKeepsItsClocksThroughAnHourForwardAndBack) {
  ASSERT_FALSE(std::string(ARENA_LIBFAKETIME).empty())
      << "libfaketime is not installed (ci/install_deps.sh installs it)";
  const TestDir tmp = FreshTempDir("clock-jump");
  const std::string records = tmp.path() + "/records";
  const std::string out = tmp.path() + "/arena.out";
  const std::string offset = tmp.path() + "/offset";
  SetOffset(offset, "+0");
  constexpr int kSlowMs = 40;
  const pid_t arena = ::fork();
  if (arena == 0) {
    const std::string cmd = absl::StrCat(
        "exec env LD_PRELOAD=", ARENA_LIBFAKETIME, " FAKETIME_TIMESTAMP_FILE=", offset,
        " FAKETIME_CACHE_DURATION=1 DONT_FAKE_MONOTONIC=1 ", kBin,
        "/arena tournament --game quasenbo --games 24 --jobs 2 --progress=false",
        " --decision_ms 400 --records ", records, " --bot 'slow=", kBin,
        "/checkup_bot --mode=slow --slow_ms=", kSlowMs, "' --bot fast=", kBin,
        "/random_bot > ", out, " 2>&1");
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ASSERT_GT(arena, 0);
  // Once matches are under way: an hour ahead for 3 s, then back.
  int status = 0;
  bool ended = false;
  auto wait_for = [&](absl::Duration d) {
    const absl::Time until = absl::Now() + d;  // this process's clock is true
    while (absl::Now() < until) {
      if (::waitpid(arena, &status, WNOHANG) == arena) return ended = true;
      absl::SleepFor(absl::Milliseconds(20));
    }
    return false;
  };
  for (int i = 0; i < 1500 && RecordFiles(records).empty(); ++i) {
    if (wait_for(absl::Milliseconds(20))) break;
  }
  ASSERT_FALSE(ended) << "arena ended before a record: " << ReadFile(out);
  ASSERT_FALSE(RecordFiles(records).empty()) << ReadFile(out);
  SetOffset(offset, "+3600");
  wait_for(absl::Seconds(3));
  const size_t records_during = RecordFiles(records).size();
  SetOffset(offset, "+0");
  if (!ended) {
    ASSERT_TRUE(wait_for(absl::Minutes(5))) << "arena did not end";
  }
  const std::string log = ReadFile(out);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << log;
  ASSERT_EQ(RecordFiles(records).size(), 24u) << log;
  // The jump fell within the run: matches ended after it began.
  EXPECT_LT(records_during, 24u) << "the run ended before the clock went back";

  // arena's wall clock did jump: the matches' start dates (wall-clock
  // times, which the records keep) span the hour.
  absl::Time first = absl::InfiniteFuture(), last = absl::InfinitePast();
  for (const std::string& file : RecordFiles(records)) {
    auto lines = ReadRecordFileWithoutEvents(file);
    ASSERT_TRUE(lines.ok()) << lines.status();
    absl::Time started;
    std::string err;
    ASSERT_TRUE(absl::ParseTime(absl::RFC3339_full, lines->front().header().started_at(),
                                &started, &err))
        << lines->front().header().started_at() << ": " << err;
    first = std::min(first, started);
    last = std::max(last, started);
  }
  EXPECT_GT(last - first, absl::Minutes(59)) << "libfaketime did not move arena's clock";

  // No decision timed out, no clock restarted.
  v1::Standings st = ReadStandings(records);
  for (const auto& row : st.rows()) {
    EXPECT_EQ(row.fault_kinds().timeout(), 0) << row.bot() << "\n" << log;
  }
  EXPECT_THAT(log, Not(HasSubstr("no answer within"))) << log;
  EXPECT_THAT(log, Not(HasSubstr("clock restarted"))) << log;
  // Every duration the log gives is >= 0 and far below the hour.
  const std::regex duration(R"((-?[0-9][0-9,]*(\.[0-9]+)?) ?(ms|s)\b)");
  for (std::sregex_iterator it(log.begin(), log.end(), duration), end; it != end; ++it) {
    std::string number = (*it)[1];
    number.erase(std::remove(number.begin(), number.end(), ','), number.end());
    double v = 0;
    ASSERT_TRUE(absl::SimpleAtod(number, &v)) << it->str();
    const double seconds = (*it)[3] == "ms" ? v / 1000 : v;
    EXPECT_GE(seconds, 0) << "in the log: " << it->str();
    EXPECT_LT(seconds, 600) << "in the log: " << it->str();
  }
  // The slow bot's think times, from the records, are its real ones: it
  // sleeps kSlowMs before each answer.
  const v1::StandingRow* slow = RowOf(st, "slow");
  ASSERT_NE(slow, nullptr);
  EXPECT_GT(slow->answers(), 100);
  EXPECT_GE(slow->think_ms_median(), kSlowMs);
  EXPECT_LE(slow->think_ms_median(), kSlowMs + 50);
  EXPECT_LE(slow->think_ms_p95(), kSlowMs + 50);
  EXPECT_LT(slow->think_ms_max(), 400);  // within the deadline: none timed out
  Cmd verify = Sh(absl::StrCat(kBin, "/arena verify ", records));
  EXPECT_EQ(verify.code, 0) << verify.output;
}

}  // namespace
}  // namespace arena::testing
