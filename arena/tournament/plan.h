// What a validated config's tournament plays: its schedule (of
// arena/tournament/schedule.h), the share of it one shard plays, the names
// of its matches, and the manifest.json that records the plan in its records folder (read back by
// arena/records/folder.h).
//
// Thread safety: plain functions; WriteManifest writes a file.
#ifndef ARENA_ARENA_TOURNAMENT_PLAN_H_
#define ARENA_ARENA_TOURNAMENT_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "arena/tournament/adaptive.h"
#include "arena/tournament/schedule.h"
#include "arena/v1/config.pb.h"

namespace arena {

// The seatings a validated config plays (fixed_seating: that one only),
// each as bot indices by seat; every one is played equally often, in every
// rotation with duplicate deals.
absl::StatusOr<std::vector<std::vector<int>>> ArrangementsFor(
    const v1::TournamentConfig& config, const std::vector<int>& fixed_seating);
// The kind of schedule a config plays: its own, or for UNSPECIFIED, CYCLE
// when the matches hold a whole cycle of the seatings (or with a gauntlet,
// a fixed seating, or fewer bots than seats), ROUNDS otherwise.
v1::ScheduleKind ScheduleKindFor(const v1::TournamentConfig& config,
                                 const std::vector<int>& fixed_seating);
// OK if the schedule of a config that ValidateConfig (config.h) accepted can
// be planned; else why not, in words that name the flag (checked before any
// bot starts). Only what depends on the schedule kind and the seating: a
// cycle of more than a million seatings, rounds or adaptive with fewer bots
// than seats or with a gauntlet or a fixed seating, an adaptive budget below
// one round, an adaptive schedule with shards. Each field's own range
// (adaptive.top_k, adaptive.confidence, ...) is ValidateConfig's alone.
absl::Status CheckSchedule(const v1::TournamentConfig& config,
                           const std::vector<int>& fixed_seating);
// Matches a table (a deal group of rounds or adaptive) plays: one per
// rotation with duplicate deals, else one.
int MatchesPerTable(const v1::TournamentConfig& config);
// The adaptive schedule's settings, defaults filled in.
AdaptiveOptions AdaptiveOptionsFor(const v1::TournamentConfig& config);
// Matches of `tables` (seatings): with duplicate deals every distinct
// rotation of a table, on one deal; indices and deals numbered on from
// the given ones.
Schedule ScheduleOfTables(const std::vector<std::vector<int>>& tables, bool duplicate,
                          int first_index, int first_deal);
// The schedule of a validated CYCLE or ROUNDS config (fixed_seating: that
// seating only); ROUNDS are a BalancedDesign seeded with `schedule_seed`
// (TournamentSecret::ScheduleSeed), as many tables as cover the matches
// (rounded up to whole deal groups).
absl::StatusOr<Schedule> ScheduleFor(const v1::TournamentConfig& config,
                                     const std::vector<int>& fixed_seating,
                                     uint64_t schedule_seed);

// Sharding: whether scheduled match `m` belongs to the config's shard (deal
// group m.deal % shard_count == shard_index; every match without shards), and
// the schedule indices of the shard's matches, in schedule order. A shard's
// matches keep their ids, seeds and seatings: the shards of one tournament
// (same config and secret) together play exactly the unsharded tournament.
bool InShard(const v1::TournamentConfig& config, const ScheduledMatch& m);
std::vector<int> ShardMatches(const v1::TournamentConfig& config,
                              const Schedule& schedule);

// The names of a tournament's matches, which reveal nothing of the secret:
// "<game>-<tournament id>-<schedule index + 1, six digits>"; with duplicate
// deals a match's deal group is "<game>-<tournament id>-g<deal + 1, six
// digits>", else the match's own id.
std::string MatchId(const std::string& game, const std::string& tournament_id,
                    int64_t schedule_index);
std::string DealGroupId(const std::string& game, const std::string& tournament_id,
                        bool duplicate, const ScheduledMatch& m,
                        const std::string& match_id);

// OK if `dir` holds no tournament yet: no manifest, no record, no match in
// progress. Checked before any bot starts (RunConfiguredTournament) and
// again by WriteManifest.
absl::Status CheckRecordsFolderIsNew(const std::string& dir);

// One line that says up front how bots fill the seats when a match has more
// seats than there are bots ("pesten: 4 seats a match, 2 bots: a bot fills
// 1 to 3 seats of a match, 2 on average; its seats play one another too"),
// from the config's arrangements (ArrangementsFor; their rotations hold the
// same counts); empty when every seat of a match holds another bot.
std::string SeatingNote(const v1::TournamentConfig& config,
                        const std::vector<std::vector<int>>& arrangements);

// Writes manifest.json into config.records_dir: the config without tokens,
// the matches planned (the shard's; an adaptive schedule's budget), the deal
// groups and the tournament id. Refuses a folder that already holds a
// manifest or records (a tournament is never mixed into another).
absl::Status WriteManifest(const v1::TournamentConfig& config, int matches_planned,
                           int deal_groups, const std::string& tournament_id);

// schedule.json in a records folder (v1::SchedulePlan), rewritten whole.
inline constexpr char kSchedulePlanFile[] = "schedule.json";
absl::Status WriteSchedulePlan(const std::string& dir, const v1::SchedulePlan& plan);

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_PLAN_H_
