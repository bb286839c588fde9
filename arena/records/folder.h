// A records folder as a whole, beyond its records one by one: creating it,
// reading its manifest.json, and the standings context (game, seats, bots,
// matches planned, deal mode) it gives. `arena standings` and `arena verify`
// learn it from a folder; a tournament from its config (StandingsContextFor).
// (A tournament writes the manifest: arena/tournament/plan.h.)
//
// Thread safety: plain functions, and FolderContext, which has one owner.
#ifndef ARENA_ARENA_RECORDS_FOLDER_H_
#define ARENA_ARENA_RECORDS_FOLDER_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "arena/stats/standings.h"
#include "arena/v1/config.pb.h"
#include "arena/v1/record.pb.h"

namespace arena {

// Creates a records folder (and its parents) if missing, with the mode the
// starting umask allows (0755 under umask 022: the site and standings in it
// can be published; its records are 0600 each).
absl::Status MakeRecordsDir(const std::string& dir);

// manifest.json of a records folder (NotFound if there is none).
absl::StatusOr<v1::TournamentManifest> ReadManifest(const std::string& dir);

// What the standings of a validated config's tournament know beyond matches.
StandingsContext StandingsContextFor(const v1::TournamentConfig& config,
                                     int matches_planned);

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

}  // namespace arena

#endif  // ARENA_ARENA_RECORDS_FOLDER_H_
