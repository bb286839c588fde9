// Tournaments: the matches of a schedule over a BotHub, `jobs` at a time,
// with standings. Used by `arena match`, `arena tournament`, `arena gate`,
// `arena play` and `referee`. The config is checked first
// (arena/tournament/config.h); its plan, shard and manifest come from
// arena/tournament/plan.h, and a resume's scan of the records from
// arena/tournament/resume.h.
//
// The schedule gives each match its seating and its deal: a cycle of every
// seating or a gauntlet (arena/tournament/schedule.h), rounds of balanced
// tables (arena/tournament/design.h), or the adaptive contest's rounds,
// chosen from the results so far (arena/tournament/adaptive.h). With
// duplicate deals (the default) each deal group is one deal played once per
// rotation of the seating. A match's seed derives from the tournament
// secret and its deal's index (arena/tournament/secret.h), so a tournament is
// reproducible given the secret and the bots' decisions, and unpredictable to
// anyone without the secret. Match ids are "<game>-<tournament id>-<index>",
// which reveal nothing of the secret; records name their deal group. Before
// the first match the records folder gets manifest.json (the config without
// tokens, the number of matches planned; with --shard I/N, the config names
// the shard and only its deal groups are planned); the standings (arena/stats/standings.h)
// are rewritten every `standings_every` recorded matches (but no sooner
// after the last rewrite than nine times what it took) and at the end.
// Before a match the tournament asks `ensure_bot` for each of its bots (arena starts
// bot processes on demand and restarts dead ones there); a bot that cannot be had is
// still seated, and the fault policy decides (a forfeit, by default). Every finished
// match's record is written whole before it counts in the standings.
//
// Thread safety: RunTournament blocks; its matches run on gRPC's threads and
// the deadline timer, and it books them (standings, hooks) on its own thread.
#ifndef ARENA_ARENA_TOURNAMENT_TOURNAMENT_H_
#define ARENA_ARENA_TOURNAMENT_TOURNAMENT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "arena/stats/standings.h"
#include "arena/tournament/secret.h"
#include "arena/v1/config.pb.h"
#include "referee/match/match_runner.h"
#include "referee/service/bot_hub.h"

namespace arena {

struct TournamentHooks {
  // Makes sure `bot` is connected before a match; false if it cannot be.
  // Called for each bot of a match just before that match starts (its link
  // is made, BotHub::NewMatchLink), one match at a time: arena may start the
  // bot's process here (entrants on demand, arena/tournament/bot_process.h),
  // and keeps a bot it ensured from being stopped until a match with it
  // starts. It may wait for a live match to end (for room).
  std::function<bool(const std::string& bot)> ensure_bot;
  // Fixed seating for every match (arena match): bot indices by seat.
  std::vector<int> fixed_seating;
  bool show_progress = true;
  // Called (under the tournament's lock) with each recorded match, in the
  // order they are booked (with --resume, first the matches already
  // recorded); returning false starts no further match.
  std::function<bool(const MatchSummary&)> on_recorded;
  // Resume the tournament in config.records_dir: its manifest must be this
  // config's (same schedule, same secret). Matches with a complete record
  // that verifies count as played; other records of scheduled matches (and
  // unfinished ones) are moved to .rejected/ and their matches played again.
  bool resume = false;
  // Every record line is written to the match's .part as it comes
  // (RecordWriter::set_spill_every_line), for a live site to follow.
  bool live_records = false;
  // Given to each match's record writer (RecordWriter::set_on_finished):
  // called on the match's thread as its record lands.
  RecordWriter::FinishedHook on_record_finished;
  // Duplicate deals: replaces every bot process by a fresh one (in a fresh
  // sandbox) between rotations. With it, the matches are played rotation by
  // rotation (every deal group's first rotation, then every group's second,
  // ...), so no bot process ever sees one deal twice, nor keeps a revealed
  // seed until the deal comes round again. Without it (bots this process
  // does not start, arena gate), a bot with memory can recognise a deal.
  std::function<absl::Status()> new_bot_processes;
};

// Progress of a tournament on stderr: on a terminal one line redrawn in
// place with a bar and the time left, else a plain line (with the time left).
// `done` counts from `first` (matches recorded before this run, --resume):
// the rate is that of the others, played in `elapsed`.
void PrintProgress(const std::string& game, int64_t done, int64_t total,
                   absl::Duration elapsed, bool terminal, int64_t first = 0);

// What every match of the tournament shares (time control, fault policy,
// auto moves, decision cap, tournament id) and the seed, salt and commitment
// of deal `deal`, into `spec`, whose match_id must be set (the commitment
// names it). Every match of a deal group has the group's seed and salt.
void FillMatchSpec(const v1::TournamentConfig& config, const TournamentSecret& secret,
                   uint64_t deal, MatchSpec* spec);

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

// Runs the whole tournament and returns the final standings, also written
// into config.records_dir (created if missing) with the records.
absl::StatusOr<v1::Standings> RunTournament(const v1::TournamentConfig& config,
                                            const TournamentSecret& secret,
                                            BotHub& hub,
                                            const TournamentHooks& hooks);

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_TOURNAMENT_H_
