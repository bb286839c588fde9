#include "referee/clock/mono_clock.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <utility>

#include "absl/time/clock.h"

namespace arena {
namespace {

std::chrono::steady_clock::time_point ToSteady(absl::Time t) {
  return std::chrono::steady_clock::time_point(
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          absl::ToChronoNanoseconds(t - absl::UnixEpoch())));
}

// The timer that ends AwaitWithMonoTimeout's waits (never destroyed: a wait
// may end at exit).
MonoTimer& KickTimer() {
  static MonoTimer* const timer = new MonoTimer;
  return *timer;
}

// One timed wait's end: the kick sets `fired` under the waiter's mutex, and
// releasing that mutex makes absl re-evaluate the waiter's condition.
struct Kick {
  std::mutex m;           // guards `waiting` and orders the kick's use of mu
  bool waiting = true;    // false once the waiter has returned
  absl::Mutex* mu = nullptr;
  bool fired = false;     // guarded by *mu
};

void Fire(const std::shared_ptr<Kick>& k) {
  std::lock_guard<std::mutex> guard(k->m);
  if (!k->waiting) return;
  // The waiter holds mu whenever it is not waiting; it takes k->m only with
  // mu held, so blocking on mu here could deadlock: try again shortly.
  if (!k->mu->TryLock()) {
    KickTimer().At(MonoNow() + absl::Microseconds(200), [k] { Fire(k); });
    return;
  }
  k->fired = true;
  k->mu->Unlock();
}

}  // namespace

absl::Time MonoNow() {
  return absl::UnixEpoch() +
         absl::FromChrono(std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch()));
}

MonoTimer::MonoTimer() : thread_([this] { Loop(); }) {}

MonoTimer::~MonoTimer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void MonoTimer::At(absl::Time when, std::function<void()> fn) {
  bool earliest;
  {
    std::lock_guard<std::mutex> lock(mu_);
    earliest = heap_.empty() || when < heap_.top().when;
    heap_.push({when, seq_++, std::move(fn)});
  }
  if (earliest) wake_.notify_one();
}

absl::Time MonoTimer::Earliest() {
  std::lock_guard<std::mutex> lock(mu_);
  return heap_.empty() ? absl::InfiniteFuture() : heap_.top().when;
}

void MonoTimer::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (heap_.empty()) {
      wake_.wait(lock);
      continue;
    }
    const absl::Time next = heap_.top().when;
    const absl::Time now = MonoNow();
    if (now < next) {
      // steady_clock: libstdc++ waits with pthread_cond_clockwait on
      // CLOCK_MONOTONIC, which no step of the wall clock moves.
      wake_.wait_until(lock, ToSteady(next));
      continue;
    }
    std::function<void()> fn = std::move(const_cast<Entry&>(heap_.top()).fn);
    heap_.pop();
    lock.unlock();
    if (on_late_) on_late_(now - next);
    fn();
    lock.lock();
  }
}

bool AwaitWithMonoTimeout(absl::Mutex* mu, const absl::Condition& cond,
                          absl::Duration timeout) {
  if (cond.Eval()) return true;
  if (timeout == absl::InfiniteDuration()) {
    mu->Await(cond);
    return true;
  }
  if (timeout <= absl::ZeroDuration()) return false;
  auto kick = std::make_shared<Kick>();
  kick->mu = mu;
  KickTimer().At(MonoNow() + timeout, [kick] { Fire(kick); });
  auto done = [&] { return kick->fired || cond.Eval(); };
  mu->Await(absl::Condition(&done));
  {
    std::lock_guard<std::mutex> guard(kick->m);
    kick->waiting = false;
  }
  return cond.Eval();
}

bool WaitForNotificationMono(absl::Notification* n, absl::Duration timeout) {
  constexpr absl::Duration kSlice = absl::Milliseconds(5);
  const absl::Time until = MonoNow() + timeout;
  for (;;) {
    if (n->HasBeenNotified()) return true;
    const absl::Duration left = until - MonoNow();
    if (left <= absl::ZeroDuration()) return false;
    // A relative sleep (nanosleep runs on the monotonic clock), never an
    // absolute wall-clock wait.
    absl::SleepFor(std::min(left, kSlice));
  }
}

}  // namespace arena
