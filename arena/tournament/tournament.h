// Tournaments: a round robin (or gauntlet) of matches over a BotHub, J at a
// time, with standings. Used by `arena match`, `arena tournament`, `arena
// gate` and `referee`.
//
// The schedule (arena/tournament/schedule.h) gives each match its seating and its deal;
// with duplicate deals (the default) each deal group is one deal played once
// per rotation of the seating. A match's seed derives from the tournament
// secret and its deal's index (arena/tournament/secret.h), so a tournament is
// reproducible given the secret and the bots' decisions, and unpredictable to
// anyone without the secret. Match ids are "<game>-<tournament id>-<index>",
// which reveal nothing of the secret; records name their deal group. Before
// the first match the records folder gets manifest.json (the config without
// tokens, the number of matches planned; with --shard I/N, the config names
// the shard and only its deal groups are planned); the standings (arena/stats/standings.h)
// are rewritten every `standings_every` recorded matches and at the end.
// Before a match the tournament asks `ensure_bot` for each of its bots (arena restarts dead bot
// processes there); a bot that cannot be had is still seated, and the fault
// policy decides (a forfeit, by default). Every finished match's record is
// written whole before it counts in the standings.
//
// Thread safety: RunTournament blocks; its matches run on gRPC's threads and
// the deadline timer, and it books them (standings, hooks) on its own thread.
#ifndef ARENA_ARENA_TOURNAMENT_TOURNAMENT_H_
#define ARENA_ARENA_TOURNAMENT_TOURNAMENT_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "arena/tournament/secret.h"
#include "arena/v1/config.pb.h"
#include "arena/tournament/schedule.h"
#include "arena/stats/standings.h"
#include "referee/service/bot_hub.h"

namespace arena {

struct TournamentHooks {
  // Makes sure `bot` is connected before a match; false if it cannot be.
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
  // Duplicate deals: replaces every bot process by a fresh one (in a fresh
  // sandbox) between rotations. With it, the matches are played rotation by
  // rotation (every deal group's first rotation, then every group's second,
  // ...), so no bot process ever sees one deal twice, nor keeps a revealed
  // seed until the deal comes round again. Without it (bots this process
  // does not start, arena gate), a bot with memory can recognise a deal.
  std::function<absl::Status()> new_bot_processes;
};

// The records folder's subfolder for records a resume could not use.
inline constexpr char kRejectedDir[] = ".rejected";

// Matches at a time. A live match is a state machine (no thread of its
// own): what bounds it is memory (docs/benchmarks.md) and open files.
inline constexpr int kMaxJobs = 16384;
inline constexpr int kMaxBots = 4096;  // bots in one tournament

// Bot names: 1 to 64 of [A-Za-z0-9_.-], not "." or "..". They name log
// files and appear in records, so nothing else is accepted.
bool IsValidBotName(const std::string& name);

// Checks a config for mistakes (names each); fills in defaults.
absl::Status ValidateConfig(v1::TournamentConfig* config);

// The tournament's secret: read from config.secret_file (created there if
// the file does not exist), else derived from a public config.seed (with a
// warning), else fresh from the OS CSPRNG.
absl::StatusOr<TournamentSecret> ResolveSecret(const v1::TournamentConfig& config);

// Progress of a tournament on stderr: on a terminal one line redrawn in
// place with a bar and the time left, else a plain line (with the time left).
void PrintProgress(const std::string& game, int64_t done, int64_t total,
                   absl::Duration elapsed, bool terminal);

// Creates a records folder (and its parents) if missing, mode 0700.
absl::Status MakeRecordsDir(const std::string& dir);

// The schedule of a validated config (fixed_seating: that seating only).
absl::StatusOr<Schedule> ScheduleFor(const v1::TournamentConfig& config,
                                     const std::vector<int>& fixed_seating);

// Sharding: whether scheduled match `m` belongs to the config's shard (deal
// group m.deal % shard_count == shard_index; every match without shards), and
// the schedule indices of the shard's matches, in schedule order. A shard's
// matches keep their ids, seeds and seatings: the shards of one tournament
// (same config and secret) together play exactly the unsharded tournament.
bool InShard(const v1::TournamentConfig& config, const ScheduledMatch& m);
std::vector<int> ShardMatches(const v1::TournamentConfig& config,
                              const Schedule& schedule);

// What the standings of a validated config's tournament know beyond matches.
StandingsContext StandingsContextFor(const v1::TournamentConfig& config,
                                     int matches_planned);

// manifest.json of a records folder. Writing refuses a folder that already
// holds a manifest or records (a tournament is never mixed into another).
absl::Status WriteManifest(const v1::TournamentConfig& config,
                           const Schedule& schedule, const std::string& tournament_id);
absl::StatusOr<v1::TournamentManifest> ReadManifest(const std::string& dir);

// The standings context of a records folder, learnt as its records stream
// by (no match is kept): from its manifest, or, with none, from its first
// record's header (game, options, seats, how scores read) and the deal
// groups the records name. Used alike by `arena standings` and `arena
// verify`: Init() reads the manifest (a missing one is not an error), See()
// each record as it is read (in file name order), then Get().
// Thread safety: none.
class FolderContext {
 public:
  explicit FolderContext(std::string dir) : dir_(std::move(dir)) {}
  absl::Status Init();
  bool from_manifest() const { return from_manifest_; }
  // `lines`: the record's lines (only the first record's header is read;
  // empty is allowed for the others).
  void See(const MatchSummary& m, const std::vector<v1::RecordLine>& lines);
  // Not found: no manifest and no record.
  absl::StatusOr<StandingsContext> Get() const;

 private:
  std::string dir_;
  StandingsContext ctx_;
  bool from_manifest_ = false;
  bool have_header_ = false;
  int64_t seen_ = 0;
};

// Runs the whole tournament and returns the final standings, also written
// into config.records_dir (created if missing) with the records.
absl::StatusOr<v1::Standings> RunTournament(const v1::TournamentConfig& config,
                                            const TournamentSecret& secret,
                                            BotHub& hub,
                                            const TournamentHooks& hooks);

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_TOURNAMENT_H_
