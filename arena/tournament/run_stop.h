// Stopping a run at once, from another thread (SIGINT or SIGTERM to `arena
// tournament`, `arena match` or `arena gate`: arena/cli/stop_signals.h),
// without waiting for the live matches, leaving what a kill -9 leaves
// (every finished record whole, the live matches' unfinished records in
// .inprogress/, replayed by --resume: docs/operations.md) and nothing else:
// no bot process, no socket folder.
//
// StopRunNow, in order:
//  1. marks the run stopping (StopRequested): RunConfiguredTournament starts
//     no further bot process;
//  2. parks the referee's deadline timer (DeadlineTimer::Shared), so that no
//     decision of a live match times out from here on: the bots killed
//     below cannot be charged a TIMEOUT, and their matches stay unfinished;
//  3. runs the actions registered with OnRunStop, newest first (arena stops
//     watching its bot processes, so their end is no CRASHED fault; the
//     socket folder is removed);
//  4. kills every process descended from this one (bots, their bubblewrap
//     sandboxes and what runs inside) with SIGKILL, and waits up to
//     `wait` for them to be gone.
// A bot's stream that ends is kept for the hub's reconnect grace (5 s), so
// no match records a fault for it before the caller exits. The caller then
// exits the process (_exit): the matches, parked, never finish.
//
// Thread safety: StopRunNow runs once (a second call returns at once);
// OnRunStop may be made and destroyed on any thread, and its destructor
// waits for its action if that is running.
#ifndef ARENA_ARENA_TOURNAMENT_RUN_STOP_H_
#define ARENA_ARENA_TOURNAMENT_RUN_STOP_H_

#include <functional>

#include "absl/time/time.h"

namespace arena {

// True once StopRunNow has begun.
bool StopRequested();

// Registers `action` for StopRunNow while this object lives.
class OnRunStop {
 public:
  explicit OnRunStop(std::function<void()> action);
  ~OnRunStop();
  OnRunStop(const OnRunStop&) = delete;
  OnRunStop& operator=(const OnRunStop&) = delete;

 private:
  int id_;
};

// See the top of this file. Returns the processes that were still there
// after `wait` (0: every one is gone).
int StopRunNow(absl::Duration wait = absl::Seconds(5));

// Kills every process descended from this one with SIGKILL (the whole
// tree, collected first so that none escapes by being reparented), reaps
// this process's own children, and waits up to `wait` for every one of them
// to be gone (a zombie whose parent is gone counts as gone). Returns how many
// are still there.
int KillDescendants(absl::Duration wait);

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_RUN_STOP_H_
