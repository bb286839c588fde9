// What stderr gets of the log (arena/cli/logging.h): a bot's last output
// quoted once, not again by every line its crash brings; and on a terminal
// each line clearing the progress bar's line first.
#include "arena/cli/logging.h"

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace {

const char kTraceback[] =
    "Traceback (most recent call last): | File \"my_bot.py\", line 9 | KeyError: 'wish'";

std::string Crashed(int match) {
  return "[2026-01-01 00:00:00.000] [warning] match m-" + std::to_string(match) +
         " step 4: seat 1 (me): crashed: its process exited with code 1; its last output: " +
         kTraceback + "\n";
}

TEST(TerminalLines, ACrashsOutputIsQuotedOnceNotByEveryMatchItEnds) {
  TerminalLines lines(/*terminal=*/false);
  EXPECT_EQ(lines.Next(Crashed(1)), Crashed(1));
  for (int m = 2; m < 50; ++m) {
    const std::string shown = lines.Next(Crashed(m));
    EXPECT_EQ(shown.find("Traceback"), std::string::npos) << shown;
    EXPECT_NE(shown.find("match m-" + std::to_string(m) + " step 4"), std::string::npos);
    EXPECT_NE(shown.find("its last output: as above\n"), std::string::npos) << shown;
  }
  // Other lines between change nothing; another output is quoted whole.
  EXPECT_EQ(lines.Next("restarting bot me (1 of 3) in 1s\n"), "restarting bot me (1 of 3) in 1s\n");
  EXPECT_NE(lines.Next(Crashed(50)).find("as above"), std::string::npos);
  const std::string other = "bot me: its process exited with code 2; its last output: Abort\n";
  EXPECT_EQ(lines.Next(other), other);
  EXPECT_NE(lines.Next(Crashed(51)).find(kTraceback), std::string::npos);
}

TEST(TerminalLines, OnATerminalALineClearsTheProgressBarsLineFirst) {
  TerminalLines tty(/*terminal=*/true), pipe(/*terminal=*/false);
  EXPECT_EQ(tty.Next("bot me withdrawn\n"), "\r\033[Kbot me withdrawn\n");
  EXPECT_EQ(pipe.Next("bot me withdrawn\n"), "bot me withdrawn\n");
}

// SPDLOG_LEVEL sets the level (info otherwise), for an organiser who wants
// the debug lines (every process start and stop) of one run.
TEST(SetUpLogging, TheEnvironmentsLevelIsTaken) {
  ::unsetenv("SPDLOG_LEVEL");
  spdlog::set_level(spdlog::level::info);
  ASSERT_TRUE(SetUpLogging("").ok());
  EXPECT_EQ(spdlog::get_level(), spdlog::level::info);
  ::setenv("SPDLOG_LEVEL", "debug", 1);
  ASSERT_TRUE(SetUpLogging("").ok());
  EXPECT_EQ(spdlog::get_level(), spdlog::level::debug);
  ::unsetenv("SPDLOG_LEVEL");
  spdlog::set_level(spdlog::level::info);
}

}  // namespace
}  // namespace arena
