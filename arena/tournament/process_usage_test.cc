// A bot process's CPU time and peak memory (process_usage.h): from /proc
// while it runs and from wait4 when it is reaped, for real processes, with
// --sandbox none and in bubblewrap, where bwrap's own rusage holds nothing
// of the bot.
#include "arena/tournament/process_usage.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "arena/tournament/bot_process.h"
#include "arena/tournament/sandbox.h"
#include "gtest/gtest.h"

namespace arena {
namespace {

// Python that touches `mb` MiB, burns `cpu_s` seconds of CPU, says "burnt",
// then sleeps `sleep_s` seconds and exits.
std::string Burner(int mb, double cpu_s, double sleep_s) {
  return absl::StrCat(
      "/usr/bin/python3 -c 'import time\nb=bytearray(", mb,
      "<<20)\nfor i in range(0,len(b),4096): b[i]=1\nt=time.process_time()\n"
      "while time.process_time()-t<", cpu_s, ": pass\nprint(\"burnt\", flush=True)\n"
      "time.sleep(", sleep_s, ")'");
}

// Waits (at most a minute, on a busy machine) until the log at `path` holds
// `burns` lines "burnt".
bool AwaitBurnt(const std::string& path, int burns) {
  const absl::Time until = absl::Now() + absl::Minutes(1);
  while (absl::Now() < until) {
    std::ifstream in(path);
    std::string line;
    int seen = 0;
    while (std::getline(in, line)) seen += line == "burnt" ? 1 : 0;
    if (seen >= burns) return true;
    absl::SleepFor(absl::Milliseconds(50));
  }
  return false;
}

// Waits until `p` ends (sampling it as the supervisor's watcher does), at
// most `limit`; true if it ended.
bool WaitForEnd(BotProcess& p, absl::Duration limit) {
  const absl::Time until = absl::Now() + limit;
  while (absl::Now() < until) {
    p.SampleUsage();
    if (!p.Running()) return true;
    absl::SleepFor(absl::Milliseconds(100));
  }
  return false;
}

TEST(UsageTally, KeepsTheLargerOfTheSamplesAndTheRusageOfEachProcess) {
  UsageTally t;
  t.Started();
  struct rusage ru {};
  ru.ru_utime.tv_sec = 1;
  ru.ru_stime.tv_usec = 500000;
  t.Reaped(&ru);  // never sampled: its rusage
  EXPECT_DOUBLE_EQ(t.cpu_seconds(), 1.5);
  t.Started();
  t.Sample(-1);  // no such process: nothing
  t.Reaped(nullptr);
  EXPECT_DOUBLE_EQ(t.cpu_seconds(), 1.5);
  EXPECT_EQ(t.processes(), 2);
  EXPECT_EQ(t.peak_rss_kib(), 0);
}

// A child that burns CPU and a grandchild that holds memory: the tree's
// usage counts both.
TEST(ReadTreeUsage, CountsEveryProcessOfTheTree) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c",
            (Burner(1, 0.4, 30) + " & " + Burner(120, 0.0, 30) + " & wait").c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Until both have done their work (a busy machine may take a while).
  TreeUsage u;
  const absl::Time until = absl::Now() + absl::Minutes(1);
  do {
    absl::SleepFor(absl::Milliseconds(100));
    u = ReadTreeUsage(pid);
  } while ((u.cpu_seconds < 0.35 || u.peak_rss_kib < (120 << 10)) && absl::Now() < until);
  for (pid_t p : ProcessTree(pid)) ::kill(p, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  EXPECT_EQ(u.processes, 3);
  EXPECT_GE(u.cpu_seconds, 0.35);
  EXPECT_LT(u.cpu_seconds, 1.2);
  EXPECT_GE(u.peak_rss_kib, 120 << 10);
}

class BotProcessUsage : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = absl::StrCat(ARENA_TEST_WORK_DIR, "-", ::getpid());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::unique_ptr<BotProcess> Bot(const std::string& command, bool sandboxed) {
    SandboxOptions o;
    o.enabled = sandboxed;
    return std::make_unique<BotProcess>("b", command,
                                        PrepareBotExec(o, 0, command, "", "", "b"),
                                        dir_ + "/b.log");
  }
  std::string dir_;
};

// --sandbox none, a bot that ends by itself: its rusage at reaping.
TEST_F(BotProcessUsage, UnsandboxedBotThatEndsByItself) {
  auto p = Bot(Burner(150, 1.0, 0.6), false);
  ASSERT_TRUE(p->Start().ok());
  ASSERT_TRUE(WaitForEnd(*p, absl::Seconds(20)));
  const UsageTally u = p->usage();
  EXPECT_EQ(u.processes(), 1);
  EXPECT_GE(u.cpu_seconds(), 0.95);
  EXPECT_LT(u.cpu_seconds(), 1.6);
  EXPECT_GE(u.peak_rss_kib(), 150 << 10);
}

// In bubblewrap, stopped by arena (as an idle or kept bot is): bwrap's
// rusage alone would say about 0.003 s and 10 MB.
TEST_F(BotProcessUsage, SandboxedBotStoppedByArena) {
  if (::access(BwrapPath().c_str(), X_OK) != 0 || !CheckSandbox(SandboxOptions{}).ok()) {
    GTEST_SKIP() << "no working bubblewrap here";
  }
  auto p = Bot(Burner(200, 1.0, 60), true);
  ASSERT_TRUE(p->Start().ok());
  ASSERT_TRUE(AwaitBurnt(dir_ + "/b.log", 1));  // not sampled meanwhile
  p->Stop(absl::Seconds(2));
  const UsageTally u = p->usage();
  EXPECT_EQ(u.processes(), 1);
  EXPECT_GE(u.cpu_seconds(), 0.95);
  EXPECT_LT(u.cpu_seconds(), 1.6);
  EXPECT_GE(u.peak_rss_kib(), 200 << 10);
  // A second process of the same bot adds up.
  ASSERT_TRUE(p->Start().ok());
  ASSERT_TRUE(AwaitBurnt(dir_ + "/b.log", 2));
  p->Stop(absl::Seconds(2));
  EXPECT_EQ(p->usage().processes(), 2);
  EXPECT_GE(p->usage().cpu_seconds(), 1.9);
}

}  // namespace
}  // namespace arena
