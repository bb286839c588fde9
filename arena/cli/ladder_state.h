// A ladder's state, rebuilt from its folder (DIR) alone: the versions from
// the submission files in DIR/submissions/ (taken in name order), the
// ratings by replaying the records of DIR/records/segment-*/ in order. What
// `arena ladder run` (ladder_command.h) plans with; ladder_field.h does the
// rating and the matchmaking.
//
// A submission (proto/arena/v1/ladder.proto, LadderSubmission) is checked
// when it is first seen: a file that does not parse, an invalid entrant
// name, a missing or non-executable program, a command equal to the
// entrant's current version's (a duplicate), a withdrawal of an entrant
// that is not on the ladder, anything after the freeze: rejected, with the
// reason in the log and in DIR/entrants.json. A version whose bot could not
// start or connect is rejected after it was tried (Fail). Each accepted
// version plays under the bot name "<entrant>.v<N>".
//
// Files: DIR/entrants.json and DIR/leaderboard.json are written atomically
// (temp file + rename) whenever they change.
//
// Thread safety: none; the ladder's thread owns it.
#ifndef ARENA_ARENA_CLI_LADDER_STATE_H_
#define ARENA_ARENA_CLI_LADDER_STATE_H_

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "arena/stats/standings.h"
#include "arena/tournament/ladder_field.h"
#include "arena/v1/ladder.pb.h"

namespace arena {

// DIR's parts.
std::string LadderSubmissionsDir(const std::string& dir);
std::string LadderRecordsDir(const std::string& dir);  // DIR/records
// DIR/records/segment-NNNNNN: one contest's records (its own manifest).
std::string LadderSegmentDir(const std::string& dir, int segment);
// The segments there, in order (by number).
std::vector<std::string> LadderSegments(const std::string& dir);

// Writes a submission file into DIR/submissions/ atomically; returns its path.
absl::StatusOr<std::string> WriteLadderSubmission(const std::string& dir,
                                                  const v1::LadderSubmission& s);

class LadderState {
 public:
  struct Version {
    std::string entrant;
    int number = 0;
    std::string bot;      // "<entrant>.v<number>"
    std::string command;
    int report = -1;      // its submission in entrants()
    int replaced = -1;    // the version it retired when accepted (-1: none)
  };

  LadderState(std::string dir, std::string game, int seats);

  // Reads the submission files not seen yet (`only`: those of these names,
  // in this order, else every one in name order); true if the field changed
  // (a version was added or retired). `frozen`: every new one is rejected.
  bool Scan(bool frozen, const std::vector<std::string>* only = nullptr);
  // Rates the complete records of one segment's folder, in name (match)
  // order; unreadable ones are skipped with a warning.
  void ReplaySegment(const std::string& segment_dir);
  // One match's result (its bots by seat are version bot names).
  void Apply(const MatchSummary& m);
  // Called after each match Apply rated, with its versions by seat (the
  // live site's rating history: arena/cli/ladder_serve.h).
  void set_on_rated(std::function<void(const std::vector<int>& seating)> f) {
    on_rated_ = std::move(f);
  }
  // The version of `bot` failed as a program: its submission is rejected
  // with `reason` and it is retired; the entrant's version before it, if
  // this one retired it, plays again (a refused submission leaves the
  // entrant as it was).
  void Fail(const std::string& bot, const std::string& reason);

  absl::Status WriteLeaderboard(bool frozen) const;
  absl::Status WriteEntrants() const;

  LadderField& field() { return field_; }
  const std::vector<Version>& versions() const { return versions_; }
  // Index of the version playing as `bot`, or -1.
  int VersionOf(const std::string& bot) const;
  // The active versions' indices (into versions()).
  std::vector<int> Active() const;
  int64_t matches() const { return matches_; }
  const v1::LadderEntrants& entrants() const { return entrants_; }
  // The submission files taken so far, in the order taken.
  const std::vector<std::string>& taken() const { return taken_; }

 private:
  // Why a submission is refused, or "" (it is fine).
  std::string Check(const v1::LadderSubmission& s, bool frozen) const;

  std::string dir_;
  std::string game_;
  LadderField field_;
  std::vector<Version> versions_;            // by field version index
  std::map<std::string, int> entrant_index_;  // entrant name -> field entrant
  std::map<std::string, int> by_bot_;
  std::set<std::string> seen_;                // submission file names
  std::vector<std::string> taken_;
  v1::LadderEntrants entrants_;
  int64_t matches_ = 0;
  std::function<void(const std::vector<int>&)> on_rated_;
};

}  // namespace arena

#endif  // ARENA_ARENA_CLI_LADDER_STATE_H_
