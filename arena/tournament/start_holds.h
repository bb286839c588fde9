// Start holds: a match's start waits while the referee is behind its own
// clock (its deadline timer late, or its requests slow to leave), or while
// one of the match's bots still owes the answer to a decision that timed
// out in the last few decision times (its process is behind). A match
// started into a stall would open its decisions' clocks there, time out at
// once, end, and make room for the next one to do the same. At most a
// second a match, so a lag that never clears slows the contest but cannot
// stop it; and the holds for bots at most a tenth of the time since the
// contest began, so that a bot that times out again and again (one that
// hangs) cannot slow the contest by more than that.
//
// Ownership and lifetime: the match pump (arena/tournament/match_pump.h)
// owns one; it refers to the hub and to the LoadSample it counts the holds
// in, which must outlive it.
//
// Thread safety: none; the tournament's thread calls Hold.
#ifndef ARENA_ARENA_TOURNAMENT_START_HOLDS_H_
#define ARENA_ARENA_TOURNAMENT_START_HOLDS_H_

#include <atomic>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "arena/tournament/load_meter.h"
#include "referee/service/bot_hub.h"

namespace arena {

class StartHolds {
 public:
  // `load`: its decision_ms sets the tolerances; the holds are counted in
  // it (start_holds, start_hold_us, start_holds_for_bots).
  StartHolds(BotHub& hub, LoadSample* load);

  // Returns when a match of `bots` may start (or at once once `stopped`).
  void Hold(const std::vector<std::string>& bots, const std::atomic<bool>& stopped);

 private:
  BotHub& hub_;
  LoadSample& load_;
  const absl::Time t0_;                 // the contest's start
  const absl::Duration lag_tolerance_;  // of the deadline timer (RefereeLagTolerance)
  const absl::Duration owed_within_;    // a late answer owed counts this long
  absl::Duration held_for_bots_;        // in all
};

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_START_HOLDS_H_
