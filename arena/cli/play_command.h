// `arena play`: a person at the terminal plays one match against bots.
//
// The match is a real one: the referee (BotHub on a gRPC server) and the
// bots' processes are started as for `arena match` (arena/tournament/
// launch.h, sandboxed as the launch options say), and the person's seat is a
// bot like any other to the referee: a TerminalPlayer (terminal_player.h) in
// this process, connected over gRPC with a token of its own, so it sees only
// its own seat's view. The match is recorded in the records folder like any
// other and `arena verify` checks it.
//
// Seating: the person takes `seat`; the bots of the config fill the other
// seats in order, the last one repeated if there are fewer bots than seats
// (one process then holds several seats). Seats: the config's, else one
// per bot and the person, at least the game's minimum. Who sits where is
// printed before the match; at the end, the result (scores, placements, how
// it ended) and the record's path.
//
// Thread safety: RunHumanSeat blocks until the match is over; it reads the
// input and writes `out` from the calling thread; one at a time.
#ifndef ARENA_ARENA_CLI_PLAY_COMMAND_H_
#define ARENA_ARENA_CLI_PLAY_COMMAND_H_

#include <ostream>
#include <string>

#include "arena/tournament/launch.h"
#include "arena/v1/config.pb.h"

namespace arena {

// The person's name in the record (seat_bots); no --bot may take it.
inline constexpr char kHumanSeatName[] = "you";

struct HumanSeatOptions {
  int seat = 0;       // the person's seat, 0-based
  int input_fd = 0;   // where the person's answers come from (stdin)
  std::ostream* out = nullptr;  // where the match is shown (null: std::cout)
};

// Plays the match of `config` (its game, options, seats, time control,
// records folder and seed; its bots fill the other seats) with the person
// at `options.seat`. Returns the exit code: 0 the match was played and
// recorded (whoever won, the person's forfeit included); 2 it could not run
// (a usage or config error, a bot that could not start).
int RunHumanSeat(const HumanSeatOptions& options, v1::TournamentConfig config,
                 LaunchOptions launch);

}  // namespace arena

#endif  // ARENA_ARENA_CLI_PLAY_COMMAND_H_
