#include "referee/clock/mono_clock.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace arena {
namespace {

TEST(MonoClock, NeverGoesBackAndFollowsASleep) {
  absl::Time last = MonoNow();
  for (int i = 0; i < 1000; ++i) {
    const absl::Time now = MonoNow();
    ASSERT_GE(now, last);
    last = now;
  }
  const absl::Time before = MonoNow();
  absl::SleepFor(absl::Milliseconds(30));
  const absl::Duration slept = MonoNow() - before;
  EXPECT_GE(slept, absl::Milliseconds(30));
  EXPECT_LT(slept, absl::Seconds(2));
}

TEST(MonoTimer, RunsEachFunctionAtItsTimeEarliestFirst) {
  MonoTimer timer;
  absl::Mutex mu;
  std::vector<int> order;
  std::vector<absl::Duration> late(3);
  absl::Notification all;
  const absl::Time t0 = MonoNow();
  const absl::Duration at[3] = {absl::Milliseconds(60), absl::Milliseconds(20),
                                absl::Milliseconds(40)};
  for (int i = 0; i < 3; ++i) {
    timer.At(t0 + at[i], [&, i] {
      absl::MutexLock lock(&mu);
      late[i] = MonoNow() - (t0 + at[i]);
      order.push_back(i);
      if (order.size() == 3) all.Notify();
    });
  }
  ASSERT_TRUE(all.WaitForNotificationWithTimeout(absl::Seconds(10)));
  absl::MutexLock lock(&mu);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 0}));
  for (int i = 0; i < 3; ++i) EXPECT_GE(late[i], absl::ZeroDuration()) << i;
}

TEST(MonoTimer, AFunctionDueInThePastRunsAtOnceAndItsLatenessIsTold) {
  MonoTimer timer;
  std::atomic<int64_t> late_ms{-1};
  timer.OnLate([&](absl::Duration d) { late_ms = absl::ToInt64Milliseconds(d); });
  absl::Notification ran;
  timer.At(MonoNow() - absl::Milliseconds(500), [&] { ran.Notify(); });
  ASSERT_TRUE(ran.WaitForNotificationWithTimeout(absl::Seconds(5)));
  EXPECT_GE(late_ms.load(), 500);
}

TEST(MonoTimer, DestroyingItDropsWhatIsNotDue) {
  std::atomic<bool> ran{false};
  {
    MonoTimer timer;
    timer.At(MonoNow() + absl::Hours(1), [&] { ran = true; });
  }
  EXPECT_FALSE(ran.load());
}

TEST(AwaitWithMonoTimeout, EndsWhenTheConditionHoldsOrAtTheTimeout) {
  absl::Mutex mu;
  bool flag = false;
  {
    absl::MutexLock lock(&mu);
    const absl::Time t0 = MonoNow();
    EXPECT_FALSE(AwaitWithMonoTimeout(&mu, absl::Condition(&flag), absl::Milliseconds(80)));
    const absl::Duration waited = MonoNow() - t0;
    EXPECT_GE(waited, absl::Milliseconds(80));
    EXPECT_LT(waited, absl::Seconds(2));
  }
  std::thread setter([&] {
    absl::SleepFor(absl::Milliseconds(30));
    absl::MutexLock lock(&mu);
    flag = true;
  });
  {
    absl::MutexLock lock(&mu);
    const absl::Time t0 = MonoNow();
    EXPECT_TRUE(AwaitWithMonoTimeout(&mu, absl::Condition(&flag), absl::Seconds(30)));
    EXPECT_LT(MonoNow() - t0, absl::Seconds(5));
  }
  setter.join();
  absl::MutexLock lock(&mu);
  EXPECT_TRUE(AwaitWithMonoTimeout(&mu, absl::Condition(&flag), absl::ZeroDuration()));
  EXPECT_TRUE(AwaitWithMonoTimeout(&mu, absl::Condition(&flag), absl::InfiniteDuration()));
}

// Many waiters, most ending by their timeout while others take the mutex:
// each ends, none deadlocks with the kick that ends it.
TEST(AwaitWithMonoTimeout, ManyWaitersOnOneMutexAllEnd) {
  absl::Mutex mu;
  bool never = false;
  std::atomic<int> ended{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        absl::MutexLock lock(&mu);
        AwaitWithMonoTimeout(&mu, absl::Condition(&never), absl::Microseconds(100 * (t + 1)));
        ended.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ended.load(), 400);
}

TEST(WaitForNotificationMono, EndsWhenNotifiedOrAtTheTimeout) {
  absl::Notification n;
  const absl::Time t0 = MonoNow();
  EXPECT_FALSE(WaitForNotificationMono(&n, absl::Milliseconds(50)));
  EXPECT_GE(MonoNow() - t0, absl::Milliseconds(50));
  std::thread notifier([&] {
    absl::SleepFor(absl::Milliseconds(20));
    n.Notify();
  });
  EXPECT_TRUE(WaitForNotificationMono(&n, absl::Seconds(30)));
  notifier.join();
}

// Run by ctest with libfaketime preloaded and the wall clock an hour ahead
// of the kernel's (FAKETIME=+1h, DONT_FAKE_MONOTONIC=1; see
// referee/clock/CMakeLists.txt): what a wall clock stepped while a wait
// runs does. absl's own timed waits sleep until a wall-clock time the
// kernel then reads an hour later; the monotonic waits end on time.
class MonoClockUnderFakeTime : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::getenv("ARENA_EXPECT_FAKETIME") == nullptr) {
      GTEST_SKIP() << "run by the mono_clock_under_faketime test, with libfaketime";
    }
    // The kernel's wall clock, past libfaketime (which only sees libc).
    timespec kernel{};
    ::syscall(SYS_clock_gettime, CLOCK_REALTIME, &kernel);
    const absl::Duration ahead = absl::Now() - absl::TimeFromTimespec(kernel);
    ASSERT_GT(ahead, absl::Minutes(59))
        << "the wall clock is not faked: is libfaketime installed "
           "(ci/install_deps.sh installs it) and preloaded?";
  }
};

TEST_F(MonoClockUnderFakeTime, AbslsOwnTimedWaitOverrunsWhereTheMonotonicOnesEndOnTime) {
  absl::Mutex mu;
  bool release = false;
  std::atomic<bool> absl_wait_ended{false};
  std::thread control([&] {
    absl::MutexLock lock(&mu);
    mu.AwaitWithTimeout(absl::Condition(&release), absl::Milliseconds(50));
    absl_wait_ended = true;
  });
  {
    absl::MutexLock lock(&mu);
    bool never = false;
    const absl::Time t0 = MonoNow();
    EXPECT_FALSE(AwaitWithMonoTimeout(&mu, absl::Condition(&never), absl::Milliseconds(50)));
    EXPECT_LT(MonoNow() - t0, absl::Seconds(1));
  }
  absl::Notification n;
  const absl::Time t1 = MonoNow();
  EXPECT_FALSE(WaitForNotificationMono(&n, absl::Milliseconds(50)));
  EXPECT_LT(MonoNow() - t1, absl::Seconds(1));
  MonoTimer timer;
  absl::Notification fired;
  const absl::Time t2 = MonoNow();
  timer.At(t2 + absl::Milliseconds(50), [&] { fired.Notify(); });
  ASSERT_TRUE(WaitForNotificationMono(&fired, absl::Seconds(5)));
  EXPECT_LT(MonoNow() - t2, absl::Seconds(1));
  // The control: absl's 50 ms wait, started before all of the above, has
  // still not ended (it would, an hour from now).
  EXPECT_FALSE(absl_wait_ended.load());
  {
    absl::MutexLock lock(&mu);
    release = true;
  }
  control.join();
}

}  // namespace
}  // namespace arena
