// The match pump: plays a batch of a contest's matches within its bounds
// and books each one as it ends. Matches are state machines driven by the
// bots' answers on gRPC's threads and by the deadline timer
// (referee/match/match_runner.h); the pump, on the tournament's thread,
// only starts them and books them:
// - at most `jobs` live at once, and at most max(2, jobs / 8) of them
//   opening (started in the last opening window, min(2 decision times,
//   100 ms), without a first answer from a bot yet): when many matches can
//   start at once (the first ones, or after a stall ended many), they start
//   as the earlier ones get going rather than in one burst whose first
//   requests all reach the bots at once, where they time out together;
// - each start held while the referee is behind or a bot owes a late
//   answer (start_holds.h);
// - each match's bots pinned (TournamentHooks::pin_bot) on the
//   tournament's thread before the bots of the matches after it are told,
//   so that no process about to play is stopped in between;
// - each match prepared off the tournament's thread: its bots ensured
//   (TournamentHooks::ensure_bot: arena starts bot processes on demand)
//   side by side, then its record opened and its link made, while the
//   pump goes on to the next match; a match being prepared counts in
//   `jobs`, and under a bound on live bot processes
//   (TournamentHooks::max_live_bots) matches are prepared side by side
//   only while their seats and the live matches' fit in it;
// - before each start, the bots of the matches to come in this rotation
//   told in order (TournamentHooks::expect_bots), so that arena starts
//   their processes while the matches before them play;
// - with duplicate deals and TournamentHooks::new_bot_processes, rotation
//   by rotation (every deal group's first match, then every group's
//   second, ...), every bot process replaced by a fresh one in between, so
//   that no bot process sees one deal twice; with processes on demand
//   (TournamentHooks::ensure_fresh_bot) in that order but without a wait
//   between rotations: a bot's process is replaced only before a match of
//   a deal it has played, once its live matches are over;
// - no further start once stopped: Stop() (a hook said so) or the storage
//   stop (storage_stop.h).
// Each match that ends is booked (booking.h) by the pump's thread while it
// waits for room; its times go into the load meter (load_meter.h). The
// wall time during which some match was waiting for its bots to be ensured
// is reported at the end (Report).
//
// Ownership and lifetime: the contest engine (arena/tournament/engine.h)
// owns the pump; the config, secret, game, hub, hooks and booker outlive
// it. A live match calls back into the pump (its end, its first answer),
// so the destructor waits until no match is live.
//
// Thread safety: Play, Report and StorageStopped on the tournament's
// thread; the matches' callbacks on any thread (under the pump's lock).
#ifndef ARENA_ARENA_TOURNAMENT_MATCH_PUMP_H_
#define ARENA_ARENA_TOURNAMENT_MATCH_PUMP_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "arena/tournament/booking.h"
#include "arena/tournament/load_meter.h"
#include "arena/tournament/schedule.h"
#include "arena/tournament/secret.h"
#include "arena/tournament/start_holds.h"
#include "arena/tournament/storage_stop.h"
#include "arena/tournament/tournament.h"
#include "arena/v1/config.pb.h"
#include "referee/match/match_runner.h"
#include "referee/service/bot_hub.h"

namespace arena {

class MatchPump {
 public:
  MatchPump(const v1::TournamentConfig& config, const TournamentSecret& secret,
            const Game& game, BotHub& hub, const TournamentHooks& hooks, Booker& booker);
  ~MatchPump();
  MatchPump(const MatchPump&) = delete;
  MatchPump& operator=(const MatchPump&) = delete;

  // Plays `todo` (indices into `schedule`, seats filled from `entrants`)
  // and returns once every match started has ended and been booked.
  void Play(const Schedule& schedule, const std::vector<std::string>& entrants,
            std::vector<int> todo);

  void Stop() { stopped_.store(true); }
  bool stopped() const { return stopped_.load(); }
  // Asks the disk (storage_stop.h); stops the pump if a write failed.
  bool StorageStopped();

  // After the last batch: the matches played and the most at once, the
  // load verdict and the fair clocks line (in the log).
  void Report();

 private:
  struct Finished {
    MatchSpec spec;
    MatchOutcome outcome;
  };

  // Sorts `todo` by rotation when bot processes are renewed between
  // rotations (or per deal: then the matches of ready bots first within
  // each, TournamentHooks::bot_ready); returns the end of each phase in it.
  std::vector<size_t> Phases(const Schedule& schedule, const std::vector<std::string>& entrants,
                             std::vector<int>* todo) const;
  // Starts schedule match todo[t] once there is room (`end`: its phase's
  // end in `todo`); false once stopped.
  bool StartNext(const Schedule& schedule, const std::vector<std::string>& entrants,
                 const std::vector<int>& todo, size_t t, size_t end);
  // The bots of todo[t, end), in order, enough for the bound.
  // Each with its match's deal if fresh_deals_, else -1.
  std::vector<std::pair<std::string, int64_t>> Upcoming(
      const Schedule& schedule, const std::vector<std::string>& entrants,
      const std::vector<int>& todo, size_t t, size_t end) const;
  // On a thread of its own: ensures the match's bots, opens its record and
  // launches it (counted in live_ and preparing_ already).
  void Prepare(MatchSpec spec, int64_t deal);
  // Makes the match's link and starts it.
  void Launch(MatchSpec spec, int64_t deal, std::unique_ptr<RecordWriter> writer);
  // The match is no longer being prepared (launched, or skipped).
  void Prepared(const MatchSpec& spec, int64_t deal) ABSL_EXCLUSIVE_LOCKS_REQUIRED(live_mu_);
  // Joins the preparing threads that are done (all: waits for every one).
  void Reap(bool all);
  // Counts a match that starts (+1) or stops (-1) waiting for its bots.
  void WaitingForBots(int delta) ABSL_EXCLUSIVE_LOCKS_REQUIRED(live_mu_);
  // Waits until fewer than `limit` matches are live (and, `to_start` one,
  // fewer than max_opening_ are opening), booking those that end.
  void WaitBelow(int limit, bool to_start = false);
  void Book(std::deque<Finished>* batch);
  int Live();

  const v1::TournamentConfig& config_;
  const TournamentSecret& secret_;
  const Game& game_;
  BotHub& hub_;
  const TournamentHooks& hooks_;
  Booker& booker_;
  const Options options_;  // the game's
  const bool duplicate_;
  const int jobs_;
  const int max_opening_;
  LoadMeter load_;
  const absl::Duration opening_window_;
  StartHolds holds_;
  StorageStop storage_;
  std::atomic<bool> stopped_{false};
  const int seats_;
  const int max_live_bots_;  // 0: no bound
  // TournamentHooks::ensure_fresh_bot replaces the rotations' renewals.
  const bool fresh_deals_;
  struct Prep {
    std::thread thread;
    std::atomic<bool> done{false};
  };
  std::list<Prep> preps_;  // the tournament's thread's

  absl::Mutex live_mu_;
  int live_ ABSL_GUARDED_BY(live_mu_) = 0;  // being prepared, or started and not yet booked
  int preparing_ ABSL_GUARDED_BY(live_mu_) = 0;
  std::multiset<int64_t> preparing_deals_ ABSL_GUARDED_BY(live_mu_);
  std::multiset<std::string> preparing_bots_ ABSL_GUARDED_BY(live_mu_);
  int playing_ ABSL_GUARDED_BY(live_mu_) = 0;  // started, not yet ended
  int peak_playing_ ABSL_GUARDED_BY(live_mu_) = 0;
  int64_t started_ ABSL_GUARDED_BY(live_mu_) = 0;
  int skipped_ ABSL_GUARDED_BY(live_mu_) = 0;  // no record could be opened
  // Waiting for bots: matches now, since when, and the wall time so far
  // with at least one, and the longest wait of one match.
  int waiting_ ABSL_GUARDED_BY(live_mu_) = 0;
  absl::Time waiting_since_ ABSL_GUARDED_BY(live_mu_);
  absl::Duration waited_ ABSL_GUARDED_BY(live_mu_);
  absl::Duration longest_wait_ ABSL_GUARDED_BY(live_mu_);
  absl::Time first_start_ ABSL_GUARDED_BY(live_mu_) = absl::InfinitePast();  // prepared
  // The opening matches by start number, with their start.
  std::map<int64_t, absl::Time> opening_ ABSL_GUARDED_BY(live_mu_);
  std::deque<Finished> finished_ ABSL_GUARDED_BY(live_mu_);  // ended, to be booked
};

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_MATCH_PUMP_H_
