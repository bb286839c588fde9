// `arena ladder`: a contest that takes new bot versions while it runs, over
// one folder DIR (docs/ladder.md):
//
//   arena ladder submit DIR --entrant NAME --command "..."   a new version
//   arena ladder withdraw DIR --entrant NAME                 the entrant leaves
//   arena ladder run DIR --game G [--seats N] [--jobs J] [--matches M]
//                    [--freeze_at M] [--final_top N] [--final_matches K]
//
// `run` plays segments: each is one contest of the contest engine
// (arena/tournament/engine.h, under RunConfiguredTournament: the referee in
// process, the bots sandboxed processes) over the versions active when it
// began, its tables chosen batch by batch by the ladder's matchmaking
// (arena/tournament/ladder_field.h), its records in
// DIR/records/segment-NNNNNN/. A segment ends when a submission file
// appears, a version's bot fails as a program, the budget is spent, or the
// ladder freezes; the ladder then takes the submissions and starts the next.
// Ratings are updated after every match in match order, and
// DIR/leaderboard.json written each time. At the freeze (--freeze_at M
// rated matches, or a file DIR/freeze) submissions close; with --final_top
// N the top N of the leaderboard play a final in DIR/final, the adaptive
// schedule from fresh ratings (its standings give each rank's interval).
// Without --matches or a freeze the ladder runs until it is stopped.
//
// A restart (after kill -9 too) rebuilds everything from DIR (ladder_state.h).
//
// Thread safety: each Run* blocks; one per process.
#ifndef ARENA_ARENA_CLI_LADDER_COMMAND_H_
#define ARENA_ARENA_CLI_LADDER_COMMAND_H_

#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "arena/cli/ladder_serve.h"
#include "arena/tournament/launch.h"
#include "arena/v1/config.pb.h"

namespace arena {

struct LadderRunOptions {
  std::string dir;
  // The game, its options, seats, jobs, time control, fault policy, record
  // format; its bots, records folder and matches are the ladder's.
  v1::TournamentConfig base;
  LaunchOptions launch;     // the sandbox and the bounds on bot processes
  int64_t matches = 0;      // stop after this many rated matches (0: never)
  int64_t freeze_at = 0;    // freeze after this many (0: only by DIR/freeze)
  int final_top = 0;        // the final's field (0: no final)
  int final_matches = 0;    // the final's budget (0: 200 a finalist)
  absl::Duration poll = absl::Milliseconds(300);  // looking for submissions
  uint64_t seed = 0;        // matchmaking's noise (0: from the clock)
  LadderServeOptions serve;  // the live site (address "": none)
};

int RunLadderSubmit(const std::string& dir, const std::string& entrant,
                    const std::string& command);
int RunLadderWithdraw(const std::string& dir, const std::string& entrant);
int RunLadder(LadderRunOptions options);

}  // namespace arena

#endif  // ARENA_ARENA_CLI_LADDER_COMMAND_H_
