// `arena check-bot`: a doctor for bot authors. It starts one bot program as
// a tournament would (arena/tournament/launch.h: the same sandbox, bot
// process supervision and referee: BotHub and the match runner) beside the
// bundled random bot, and puts it through a checklist (docs/bots.md, "Before
// you enter"):
//
//   connect     it starts and says Hello within the connect timeout (if
//               not: how its process ended and its last output)
//   seats       per game: every seat count the game allows, the bot at every
//               seat in turn, random bots elsewhere
//   deadline    no answer in the seats matches came after its deadline
//   legal       no answer in the seats matches was an illegal index
//   match_end   it plays the next match after a MatchEnd on the same stream
//   concurrent  many matches at once (several MatchStarts before any ends)
//   reconnect   the referee drops its stream before its second request of a
//               match; it reconnects within the grace and answers that open
//               decision from the Resync
//   notice      a Notice (STALE, for a decision it answered already) before
//               its second request of a match; it plays on
//
// A check fails on any fault of the bot in its matches' records (in the seats
// matches a timeout counts for `deadline` and an illegal index for `legal`),
// on a match without a whole record, and, but for `reconnect`, on a bot that
// connected again meanwhile (its process ended or it closed its stream). Each
// check prints one line with PASS or FAIL and why (for a cause the docs know,
// a Python bot without the build's stubs, "No module named 'arena': see
// docs/bots.md#python"), then a summary. For the first failure: its match,
// the request that faulted (step, decision and legal actions by their labels),
// a repro bundle of that match's seat in the records folder
// (arena/records/repro_bundle.h) with the `arena replay-bot` command that
// re-runs it, and the end of what its seat was sent and answered (the record,
// through arena/views/replay.h, and its path). A crash or a closed stream
// fails every request the bot had open, in every match played at once: the
// failure shown is the one that brought it about, the oldest of them (the one
// open longest; a bot that reads its stream in order had answered every
// request before it), not one it ended as collateral. Matches are short (a decision
// cap) so that a good bot passes in seconds.
//
// Thread safety: RunCheckBot blocks while the checks run; one at a time.
#ifndef ARENA_ARENA_CLI_CHECK_BOT_COMMAND_H_
#define ARENA_ARENA_CLI_CHECK_BOT_COMMAND_H_

#include <cstdint>
#include <string>
#include <vector>

#include "arena/tournament/launch.h"

namespace arena {

struct CheckBotOptions {
  std::string games;                 // G[,G2...]
  std::vector<std::string> bots;     // exactly one NAME=COMMAND
  std::vector<std::string> options;  // KEY=VALUE, for every game
  // The random bot's command; empty: random_bot beside this program.
  std::string opponent;
  int64_t decision_ms = 2000;
  int64_t decision_cap = 0;          // 0: kCheckDecisionCap
  int64_t connect_timeout_ms = 30000;
  int concurrent = 8;                // matches at once in `concurrent`
  std::string records;               // empty: a temporary folder, removed if all pass
  uint64_t seed = 0;                 // 0: a fresh secret
};

// Decisions after which a check's match ends (short matches, a fast check).
inline constexpr int64_t kCheckDecisionCap = 60;

// Runs the checklist and prints it on stdout. Returns the exit code: 0 every
// check passed, 1 a check failed, 2 a usage error (an unknown game, a
// malformed --bot, a value out of range: the message names it) or a run that
// could not start (the sandbox, the random bot missing).
int RunCheckBot(const CheckBotOptions& options, LaunchOptions launch);

}  // namespace arena

#endif  // ARENA_ARENA_CLI_CHECK_BOT_COMMAND_H_
