#include "arena/common/thread_priority.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <pthread.h>
#include <sched.h>

#include <string>
#include <thread>

#include "gtest/gtest.h"

namespace arena {
namespace {

int NiceOfThisThread() {
  return ::getpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)));
}

TEST(ThreadPriority, LowersTheCallingThreadOnlyAndNeverRaises) {
  const int before = NiceOfThisThread();
  ASSERT_LT(before, kBackgroundNice);  // a test run at nice 19 proves nothing
  int lowered = -100, after_raise_attempt = -100;
  bool ok = false, ok_again = false;
  std::thread t([&] {
    ok = LowerThisThreadsPriority(kBackgroundNice);
    lowered = NiceOfThisThread();
    ok_again = LowerThisThreadsPriority(10);  // would raise it: no
    after_raise_attempt = NiceOfThisThread();
  });
  t.join();
  EXPECT_TRUE(ok);
  EXPECT_EQ(lowered, kBackgroundNice);
  EXPECT_TRUE(ok_again);
  EXPECT_EQ(after_raise_attempt, kBackgroundNice);
  EXPECT_EQ(NiceOfThisThread(), before);  // the caller's thread is untouched
}

int PolicyOfThisThread() { return ::sched_getscheduler(static_cast<pid_t>(::syscall(SYS_gettid))); }

TEST(ThreadPriority, RunsTheCallingThreadOnlyWhenIdle) {
  const int before = PolicyOfThisThread();
  ASSERT_NE(before, SCHED_IDLE);  // a test run under SCHED_IDLE proves nothing
  bool ok = false;
  int policy = -1, nice = -100;
  std::thread t([&] {
    ok = RunThisThreadWhenIdle();
    policy = PolicyOfThisThread();
    nice = NiceOfThisThread();
  });
  t.join();
  EXPECT_TRUE(ok);
  EXPECT_EQ(policy, SCHED_IDLE);
  EXPECT_EQ(nice, kBackgroundNice);
  EXPECT_EQ(PolicyOfThisThread(), before);  // the caller's thread is untouched
}

std::string NameOfThisThread() {
  char name[64] = {};
  ::pthread_getname_np(::pthread_self(), name, sizeof name);
  return name;
}

TEST(ThreadPriority, NamesTheCallingThreadOnlyCutTo15Characters) {
  const std::string before = NameOfThisThread();
  std::string named, cut;
  std::thread t([&] {
    NameThisThread("live-poll");
    named = NameOfThisThread();
    NameThisThread("a-name-of-twenty-chars");
    cut = NameOfThisThread();
  });
  t.join();
  EXPECT_EQ(named, "live-poll");
  EXPECT_EQ(cut, "a-name-of-twent");
  EXPECT_EQ(NameOfThisThread(), before);
}

}  // namespace
}  // namespace arena
