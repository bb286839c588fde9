// The standings of a contest as its matches are booked: the accumulator
// (tallies, not matches: memory does not grow with the contest), rewritten
// into the records folder every `standings_every` recorded matches (but no
// sooner after the last rewrite than nine times what that took, so that
// refreshes cost at most about a tenth of the time however large the
// contest grows), on a thread of its own (StandingsRefresher), and built
// and written a last time at the end (Final).
//
// Ownership and lifetime: the contest engine (arena/tournament/engine.h)
// owns it; the booking (arena/tournament/booking.h) and a resume's scan of
// the records (arena/tournament/resume.h) add to it. Its refresher thread
// ends in Final or in the destructor (a refresh under way ends first).
//
// Thread safety: Add, RefreshIfDue, accumulator and Final on one thread
// (the tournament's); refreshes run on the refresher's thread, from a copy.
#ifndef ARENA_ARENA_TOURNAMENT_STANDINGS_SINK_H_
#define ARENA_ARENA_TOURNAMENT_STANDINGS_SINK_H_

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "arena/stats/standings.h"
#include "arena/v1/config.pb.h"

namespace arena {

class StandingsRefresher;

class StandingsSink {
 public:
  // `matches_planned`: what the standings say of the matches planned.
  StandingsSink(const v1::TournamentConfig& config, int matches_planned);
  ~StandingsSink();
  StandingsSink(const StandingsSink&) = delete;
  StandingsSink& operator=(const StandingsSink&) = delete;

  // For a resume's scan of the records, which adds what counts.
  StandingsAccumulator* accumulator() { return &standings_; }
  // A recorded match; an error (our own match refused: a bug) is logged.
  void Add(const MatchSummary& match);
  // After a match was added: hands a copy to the refresher if a rewrite is
  // due (see above).
  void RefreshIfDue();
  // Stops the refresher (a refresh under way ends first, so that no older
  // one lands on the final standings), builds the standings and writes
  // them; a write that fails is logged (the caller writes them again).
  absl::StatusOr<v1::Standings> Final();

 private:
  void Write(const StandingsAccumulator& copy);  // on the refresher's thread

  const std::string dir_;
  const int every_;
  StandingsAccumulator standings_;
  absl::Mutex mu_;
  absl::Time next_refresh_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  absl::Mutex write_mu_;  // refreshes, one at a time
  // Last: destroyed first, before anything it reads.
  std::unique_ptr<StandingsRefresher> refresher_;
};

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_STANDINGS_SINK_H_
