// Tournaments: the matches of a schedule over a BotHub, `jobs` at a time,
// with standings. Used by `arena match`, `arena tournament`, `arena gate`,
// `arena play` and `referee`. The config is checked first
// (arena/tournament/config.h); its plan, shard and manifest come from
// arena/tournament/plan.h, and a resume's scan of the records from
// arena/tournament/resume.h. RunTournament picks the config's planner and
// runs it on the contest engine (arena/tournament/engine.h: a planner, a
// match pump and what a booked match feeds, each in a file of its own).
//
// The schedule gives each match its seating and its deal: a cycle of every
// seating or a gauntlet (arena/tournament/schedule.h), rounds of balanced
// tables (arena/tournament/design.h), both planned up front
// (arena/tournament/known_schedule.h), or the adaptive contest's rounds,
// chosen from the results so far (arena/tournament/adaptive_rounds.h). With
// duplicate deals (the default) each deal group is one deal played once per
// rotation of the seating. A match's seed derives from the tournament
// secret and its deal's index (arena/tournament/secret.h), so a tournament is
// reproducible given the secret and the bots' decisions, and unpredictable to
// anyone without the secret. Match ids are "<game>-<tournament id>-<index>",
// which reveal nothing of the secret; records name their deal group. Before
// the first match the records folder gets manifest.json (the config without
// tokens, the number of matches planned; with --shard I/N, the config names
// the shard and only its deal groups are planned); the standings
// (arena/stats/standings.h, arena/tournament/standings_sink.h) are
// rewritten every `standings_every` recorded matches (but no sooner after
// the last rewrite than nine times what it took) and at the end.
// Before a match the tournament asks `ensure_bot` for each of its bots (arena starts
// bot processes on demand and restarts dead ones there); a bot that cannot be had is
// still seated, and the fault policy decides (a forfeit, by default). Every finished
// match's record is written whole before it counts in the standings.
//
// Progress (PrintProgress) is arena/tournament/progress.h's, and the load
// verdict (LoadSample, AssessLoad) arena/tournament/load_meter.h's; both
// come with this header.
//
// Thread safety: RunTournament blocks; its matches run on gRPC's threads and
// the deadline timer, and it books them (standings, hooks) on its own thread.
#ifndef ARENA_ARENA_TOURNAMENT_TOURNAMENT_H_
#define ARENA_ARENA_TOURNAMENT_TOURNAMENT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "arena/stats/standings.h"
#include "arena/tournament/load_meter.h"
#include "arena/tournament/progress.h"
#include "arena/tournament/secret.h"
#include "arena/v1/config.pb.h"
#include "referee/match/match_runner.h"
#include "referee/service/bot_hub.h"

namespace arena {

struct TournamentHooks {
  // Makes sure `bot` is connected before a match; false if it cannot be.
  // Called for each bot of a match just before that match starts (its link
  // is made, BotHub::NewMatchLink), from a thread of the match's own, the
  // match's bots side by side: arena may start the bot's process here
  // (entrants on demand, arena/tournament/bot_process.h), and keeps a bot
  // it ensured from being stopped until a match with it starts. It may
  // wait for a live match to end (for room).
  std::function<bool(const std::string& bot)> ensure_bot;
  // The bots of the matches to come, in the order they are needed (the
  // next match's first), told on the tournament's thread before each match
  // is prepared: arena starts their processes ahead of need
  // (BotSupervisor::Expect). Returns at once.
  // Each bot with the deal of its match (-1 unless ensure_fresh_bot is set).
  std::function<void(const std::vector<std::pair<std::string, int64_t>>& upcoming)>
      expect_bots;
  // With duplicate deals and processes on demand (max_live_bots), in place
  // of ensure_bot and of new_bot_processes: ensures `bot` with a process
  // that has not played `deal` (its match's), replacing one that has once
  // its live matches are over; no rotation then waits for the one before.
  std::function<bool(const std::string& bot, int64_t deal)> ensure_fresh_bot;
  // With processes on demand: holds `bot`'s process for a match about to
  // be prepared, on the tournament's thread, before the bots of the matches
  // after it are told (expect_bots); the match's ensure takes the hold over
  // (BotSupervisor::Pin). Else unset.
  std::function<void(const std::string& bot)> pin_bot;
  // With processes on demand: whether `bot`'s process is live and connected
  // now, so that a match of such bots waits for no start. Within each
  // rotation of a batch, those matches are played first, while the others'
  // bots start (the order of play changes no match). Else unset.
  std::function<bool(const std::string& bot)> bot_ready;
  // The most bot processes live at once when ensure_bot starts them on
  // demand (0: no bound, or every process kept): matches are prepared side
  // by side only while their seats fit in it.
  int max_live_bots = 0;
  // Fixed seating for every match (arena match): bot indices by seat.
  std::vector<int> fixed_seating;
  bool show_progress = true;
  // Called on the tournament's thread with each recorded match, in the
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

// What every match of the tournament shares (time control, fault policy,
// auto moves, decision cap, tournament id) and the seed, salt and commitment
// of deal `deal`, into `spec`, whose match_id must be set (the commitment
// names it). Every match of a deal group has the group's seed and salt.
void FillMatchSpec(const v1::TournamentConfig& config, const TournamentSecret& secret,
                   uint64_t deal, MatchSpec* spec);

// Runs the whole tournament and returns the final standings, also written
// into config.records_dir (created if missing) with the records.
absl::StatusOr<v1::Standings> RunTournament(const v1::TournamentConfig& config,
                                            const TournamentSecret& secret,
                                            BotHub& hub,
                                            const TournamentHooks& hooks);

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_TOURNAMENT_H_
