// The load a contest puts on its machine, for telling timeouts that the
// load causes from slow bots: what the tournament saw of its decisions'
// times (LoadSample, summed over the matches booked), the verdict on it
// (AssessLoad), and what arena says of both when the contest ends
// (LoadMeter::Report: the verdict, and the "fair clocks" line on the
// referee's lag rule, the start holds and the opening window).
//
// Ownership and lifetime: a LoadMeter belongs to the match pump
// (arena/tournament/match_pump.h), which adds each match it books and the
// holds of each start.
//
// Thread safety: AssessLoad is a pure function. LoadMeter has none: one
// owner's thread (the tournament's).
#ifndef ARENA_ARENA_TOURNAMENT_LOAD_METER_H_
#define ARENA_ARENA_TOURNAMENT_LOAD_METER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "arena/v1/config.pb.h"
#include "referee/match/match_runner.h"

namespace arena {

// What a tournament saw of its decisions' times (MatchTiming, summed), for
// telling timeouts that the machine's load causes from slow bots.
struct LoadSample {
  int64_t decision_ms = 0;
  int jobs = 0;
  struct Bot {
    std::string name;
    int64_t answered = 0;      // answers in time
    int64_t think_us_sum = 0;  // their times, from the request's leaving
    int64_t timeouts = 0;
  };
  std::vector<Bot> bots;
  // Requests whose leaving was reported, and how long they waited to leave
  // after the match sent them (the referee's own lag).
  int64_t requests = 0;
  int64_t send_lag_us_sum = 0;
  int64_t send_lag_us_max = 0;
  // The referee's lag rule (referee/match/match_runner.h): clocks restarted
  // and the time so given back; matches whose start waited for the referee
  // to catch up with its clock, and how long they waited; of those, the
  // ones that waited for a bot still owing a timed-out answer.
  int64_t clock_restarts = 0;
  int64_t referee_lag_us_sum = 0;
  int64_t start_holds = 0;
  int64_t start_hold_us = 0;
  int64_t start_holds_for_bots = 0;
  // Starts that waited for a match started before to get its first answer
  // (at most max(2, jobs / 8) matches open at once).
  int64_t opening_waits = 0;
};

struct LoadVerdict {
  // Some timeouts look caused by the machine's load, not by slow bots.
  bool saturated = false;
  int64_t timeouts = 0;       // all of them
  int64_t load_timeouts = 0;  // those of bots that answer fast on average
  int suggested_jobs = 0;     // with `saturated`: a --jobs that would fit
  std::string text;           // what arena says (empty if not saturated)
  std::string summary;        // the figures behind it (empty if no timeout)
};

// A bot "answers fast" if its answers in time took on average under half
// the deadline, or under twice the median of the bots' averages (a load
// slows every bot alike; a slow bot stands out from the others): its
// timeouts are not its usual pace. The timeouts of such
// bots are put down to the load if the referee itself lagged: its requests
// waited, on average, a twentieth of the deadline to leave, or one waited
// half of it (a referee that keeps up sends at once; fast bots that time
// out beside it have hiccups of their own). The suggestion assumes that on
// a saturated machine the time to answer grows in proportion to the
// matches at once, and aims at a mean of an eighth of the deadline: jobs *
// decision_ms / (8 * mean time), at least 1 and below `jobs`.
// Deterministic: a function of the sample alone.
LoadVerdict AssessLoad(const LoadSample& sample);

// The LoadSample of one contest.
class LoadMeter {
 public:
  // The config's deadline (0: kDefaultDecisionMs) and jobs (0: 1).
  explicit LoadMeter(const v1::TournamentConfig& config);

  // A match as it is booked: its seats' answers and timeouts, its requests'
  // lag, its clocks restarted.
  void Add(const MatchSpec& spec, const MatchOutcome& outcome);
  // The start holds and waits (arena/tournament/start_holds.h, the pump's
  // opening window) are added straight into the sample.
  LoadSample& sample() { return sample_; }
  const LoadSample& sample() const { return sample_; }

  // Logs the verdict (a warning if the load looks saturated, the figures
  // whenever a decision timed out) and the fair clocks line if a clock was
  // restarted or a start held or waited; `max_opening` is the opening
  // window's bound of matches.
  void Report(int max_opening) const;

 private:
  LoadSample sample_;
  std::map<std::string, size_t> bot_index_;  // name -> index in sample_.bots
};

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_LOAD_METER_H_
