// Standings: computed from match results alone, so that `arena standings
// DIR...` rebuilds from the records exactly what the tournament wrote.
//
// A tournament turns each finished match (its spec, result and faults) into
// a MatchSummary; `arena standings` makes the same summary from each record
// file. The standings do not depend on the order in which matches finished
// (StandingsAccumulator), and the ratings' bootstrap uses a fixed seed
// (kStandingsBootstrapSeed) over the deal groups in name order, so the rank
// intervals and the "surely ahead" pairs (arena/stats/ratings.h) are the
// same on every machine. The balance (matches per bot, seat positions per
// bot, meetings per pair of bots not withdrawn) is counted from the matches
// played. A withdrawn bot is not credited with wins from another bot's
// NO_SHOW forfeits, and two withdrawn bots get no head to head from such
// matches (the record cannot say whether the other was still there); the
// ratings keep those comparisons. docs/ratings.md explains every number.
//
// Files: standings.csv (one row per bot), head_to_head.csv (one row per
// ordered pair that met) and standings.json (the Standings message, counts
// as JSON numbers); each written to a temporary file and renamed, so a
// reader sees the old or the new version, never a part.
//
// Thread safety: pure functions, except the writers, which write files.
#ifndef ARENA_ARENA_STATS_STANDINGS_H_
#define ARENA_ARENA_STATS_STANDINGS_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "arena/v1/config.pb.h"
#include "arena/v1/record.pb.h"
#include "referee/match/match_runner.h"
#include "referee/match/think_times.h"

namespace arena {

inline constexpr uint64_t kStandingsBootstrapSeed = 20240917;
inline constexpr int kStandingsBootstrap = 1000;

// One finished match, as the standings see it.
struct MatchSummary {
  std::string match_id;
  std::string deal_group;  // empty: the match is a group of its own
  std::vector<std::string> seat_bots;
  std::vector<int> placements;
  std::vector<double> scores;
  int forfeit_seat = -1;
  std::string forfeit_detail;  // the result's detail, with a forfeit
  std::vector<SeatFault> faults;
  // By seat, the think times of the answers that came in time, legal or
  // not (empty: not known); the standings show each bot's distribution.
  std::vector<ThinkTimes> think;
};

// From a tournament's own match.
MatchSummary SummarizeMatch(const MatchSpec& spec, const MatchOutcome& outcome);
// From a complete record (header first, result last); errors name `source`.
absl::StatusOr<MatchSummary> SummarizeRecord(
    const std::vector<v1::RecordLine>& lines, const std::string& source);

// What the standings know beyond the matches (from the config or manifest).
struct StandingsContext {
  std::string game;
  std::map<std::string, std::string> options;
  int seats = 0;
  bool higher_score_wins = true;
  std::vector<std::string> bots;  // row order before ranking; others appended
  int matches_planned = -1;       // -1: the matches given
  v1::DealMode deal_mode = v1::DEAL_MODE_UNSPECIFIED;
  int bootstrap = kStandingsBootstrap;
};

// Standings built match by match, as a tournament books its matches: from
// tallies that do not grow with the number of matches (per bot, per pair of
// bots that met, and about 33 bytes per deal group for the ratings'
// bootstrap, arena/stats/ratings.h), so a tournament of any length keeps no match.
// Build() gives the same standings, to the bit, whatever order the same
// matches were added in: counts are integers and sums exact until read.
//
// Thread safety: none (one owner). A copy shares nothing with the original:
// a tournament builds a copy's standings on another thread while it goes on
// adding matches to the original.
class StandingsAccumulator {
 public:
  explicit StandingsAccumulator(StandingsContext context);
  StandingsAccumulator(const StandingsAccumulator& other);
  StandingsAccumulator(StandingsAccumulator&&) noexcept;
  ~StandingsAccumulator();

  // Adds one match. Errors (naming the match, and changing nothing) on seats,
  // placements and scores of different numbers, a placement below 1, or a
  // fault or forfeit of a seat the match does not have.
  absl::Status Add(const MatchSummary& match);
  // Replaces the context Build() reads (game, seats, the bots' row order,
  // matches planned, deal mode...): for a caller that learns it only once
  // the matches are in, as `arena standings` does of a folder without a
  // manifest, or of several folders combined. The matches added are kept.
  void SetContext(StandingsContext context);
  int64_t matches() const;
  absl::StatusOr<v1::Standings> Build() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The standings of `matches` (a StandingsAccumulator fed with them).
absl::StatusOr<v1::Standings> BuildStandings(const StandingsContext& context,
                                             const std::vector<MatchSummary>& matches);

// Text table for a terminal: the balance, ratings, rank and rating
// intervals, the "surely ahead" statement (every pair up to 12, else each
// bot's count), and LOS and head-to-head matrices for up to 8 bots.
std::string StandingsTable(const v1::Standings& standings);
std::string StandingsCsv(const v1::Standings& standings);
std::string HeadToHeadCsv(const v1::Standings& standings);
absl::StatusOr<std::string> StandingsJson(const v1::Standings& standings);

// Writes standings.csv, head_to_head.csv and standings.json into `dir`,
// each atomically (temporary file, then rename).
absl::Status WriteStandings(const v1::Standings& standings,
                            const std::string& dir);

// The summaries of the complete records (*.rec, *.jsonl, *.jsonl.zst) directly in
// `dir`, one at a time in file name order, each with its lines (valid during
// the call only), so that a caller keeps no match. A record that cannot be
// read is skipped and named in `problems` (nothing else is lost); `fn`'s
// first error stops the walk and is returned.
using RecordSummaryFn = std::function<absl::Status(
    const MatchSummary&, const std::vector<v1::RecordLine>&)>;
absl::Status ForEachRecordSummary(const std::string& dir,
                                  std::vector<std::string>* problems,
                                  const RecordSummaryFn& fn);

// entrants.json of a records folder: what the run knew of each bot process
// (restarts, withdrawal and its reason, unexpected exits, its log). Reading
// a folder without one is NotFound.
inline constexpr char kEntrantsFile[] = "entrants.json";
absl::Status WriteEntrants(const std::vector<v1::EntrantReport>& entrants,
                           const std::string& dir);
absl::StatusOr<std::vector<v1::EntrantReport>> ReadEntrants(const std::string& dir);
// The bots that failed as programs rather than as players: withdrawn,
// crashed, cut off, or restarted (from the rows' faults and the entrants).
// A tournament with any exits 1 (docs/security.md).
std::vector<std::string> FailedEntrants(const v1::Standings& standings);

// Adds `from` into `into` by bot (several runs or shards of one tournament):
// restarts, exits, processes and CPU seconds add up; the peak RSS is the
// largest; withdrawn if withdrawn in any, with that reason.
void MergeEntrants(const std::vector<v1::EntrantReport>& from,
                   std::vector<v1::EntrantReport>* into);
// The standings' entrants become `entrants`, and each row's processes, CPU
// seconds and peak RSS its entrant's (0 for a bot without one): figures
// that are in no record, kept in entrants.json (processes and CPU add up
// over several runs or shards; the peak is the largest).
void SetEntrants(const std::vector<v1::EntrantReport>& entrants, v1::Standings* st);


}  // namespace arena

#endif  // ARENA_ARENA_STATS_STANDINGS_H_
