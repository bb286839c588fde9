// The monotonic clock every duration, deadline and timer of arena and the
// referee runs on, and waits that keep to it whatever the wall clock does.
//
// The wall clock (absl::Now) is stepped by NTP, by hand, by a VM's resume:
// a duration taken across a step is off by the step, a deadline on it fires
// early or late. So every duration here is taken on CLOCK_MONOTONIC
// (std::chrono::steady_clock), and absl::Now() is kept for dates people read
// (a record's start, a log line's time).
//
// MonoNow() is an absl::Time so that absl::Duration arithmetic applies, but
// it is not a date: only differences and comparisons between MonoNow()
// values mean anything. Never format one as a date, never compare one with
// absl::Now().
//
// absl's timed waits (Mutex::AwaitWithTimeout, CondVar::WaitWithTimeout,
// Notification::WaitForNotificationWithTimeout) sleep until a wall-clock
// time: a backward step of the wall clock while one waits delays its end by
// the step. The waits below end on the monotonic clock instead.
//
// Thread safety: everything here may be called from any thread. MonoTimer's
// functions run on its own thread, one at a time, and must not block long.
#ifndef ARENA_REFEREE_CLOCK_MONO_CLOCK_H_
#define ARENA_REFEREE_CLOCK_MONO_CLOCK_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace arena {

// Now on the monotonic clock, on absl::Time's scale (see above: not a date).
absl::Time MonoNow();

// A thread that calls functions at MonoNow() times, earliest first (in the
// order given at equal times). A function due in the past runs at once.
class MonoTimer {
 public:
  MonoTimer();
  // Stops the thread; functions not yet due are dropped, not run.
  ~MonoTimer();
  MonoTimer(const MonoTimer&) = delete;
  MonoTimer& operator=(const MonoTimer&) = delete;

  void At(absl::Time when, std::function<void()> fn);

  // Called on the timer's thread before each function, with how late it
  // runs (MonoNow() - its time, >= 0). Set once, before the first At.
  void OnLate(std::function<void(absl::Duration)> late) { on_late_ = std::move(late); }

  // The time of the earliest function not yet run (InfiniteFuture if none).
  absl::Time Earliest();

 private:
  struct Entry {
    absl::Time when;
    uint64_t seq;
    std::function<void()> fn;
    bool operator>(const Entry& o) const {
      return when != o.when ? when > o.when : seq > o.seq;
    }
  };
  void Loop();

  std::mutex mu_;
  std::condition_variable wake_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap_;
  uint64_t seq_ = 0;
  bool stop_ = false;
  std::function<void(absl::Duration)> on_late_;
  std::thread thread_;
};

// Like mu->AwaitWithTimeout(cond, timeout), with the timeout on the
// monotonic clock: returns once `cond` holds (true) or `timeout` has passed
// (false, unless `cond` holds by then). `mu` is held on entry and on return.
// An infinite timeout waits for `cond` alone.
bool AwaitWithMonoTimeout(absl::Mutex* mu, const absl::Condition& cond,
                          absl::Duration timeout);

// Like n->WaitForNotificationWithTimeout(timeout), with the timeout on the
// monotonic clock. A notification is seen within a few milliseconds.
bool WaitForNotificationMono(absl::Notification* n, absl::Duration timeout);

}  // namespace arena

#endif  // ARENA_REFEREE_CLOCK_MONO_CLOCK_H_
