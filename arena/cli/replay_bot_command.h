// `arena replay-bot BUNDLE -- COMMAND [ARGS...]`: feeds a bot offline what
// one of its seats was sent in a match up to a fault (a repro bundle,
// arena/records/repro_bundle.h), and says, request by request, how it
// answers now.
//
// It serves the referee's side of the protocol (arena.v1.Referee/Play, gRPC's
// callback API) on a Unix socket in a private temporary folder (mode 0700;
// loopback TCP if the folder's path is too long for a socket), starts
// COMMAND (not through a shell, not sandboxed: it is the author's own bot on
// the author's machine, to debug) with ARENA_ADDRESS, ARENA_TOKEN (a fresh
// random token) and ARENA_BOT_NAME set as a tournament does, and otherwise
// the environment a sandboxed bot gets, its program looked up on the
// sandbox's PATH (arena/tournament/sandbox.h), so that a bot fails or works
// here as in the tournament that wrote the bundle: `python3 my_bot.py` is the
// python3 the sandbox found, not the caller's first on PATH (a virtualenv's,
// without grpc), and no PYTHONPATH of the caller's hides a bot that cannot
// find its stubs; HOME and TMPDIR are a fresh folder of its own, as the
// sandbox's private /tmp. `inherit_env` gives it the caller's environment
// instead, as `--sandbox none` does. Its stdout and stderr
// going to a log in that folder, welcomes it, sends the bundle's MatchStart
// and then each request in order, and waits for each answer under the
// request's deadline (or `decision_ms`). For each request it prints one of:
// the same answer as recorded; a different one (both, each by the game's own
// label, as records give it); an illegal index; a late answer (and how late);
// no answer; or, when the process ends or its stream closes, the crash with
// the exit status and the last lines of its output (and nothing more is
// sent). After the last request it ends the stream (OK) as a tournament
// does, gives the bot 3 s to exit, then stops its process group.
//
// Exit codes: 0 the bot answered every request legally in time; 1 it did not
// (the fault reproduces, or another one appears); 2 a usage error or a bundle
// that cannot be read (ReadReproBundle names what is wrong), or the
// replay could not be set up (the folder, the server, the process).
//
// Thread safety: RunReplayBot blocks until done; one at a time per process
// (it forks).
#ifndef ARENA_ARENA_CLI_REPLAY_BOT_COMMAND_H_
#define ARENA_ARENA_CLI_REPLAY_BOT_COMMAND_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace arena {

struct ReplayBotOptions {
  std::string bundle;                // the bundle file
  std::vector<std::string> command;  // COMMAND and its ARGS
  int64_t decision_ms = 0;           // > 0: instead of each request's deadline
  bool decision_ms_given = false;    // --decision_ms was on the command line
  bool inherit_env = false;          // the caller's environment, not the sandbox's
  absl::Duration connect_timeout = absl::Seconds(10);
};

// BUNDLE and COMMAND from the command line `arena replay-bot BUNDLE [flags]
// -- COMMAND [ARGS...]`: the words after the first "--" are the command,
// never flags; `positional` holds the arguments the flag parser left (the
// program, the command's name, BUNDLE, then COMMAND's words).
// Also tells whether --decision_ms was given before the "--". A usage error
// otherwise.
absl::StatusOr<ReplayBotOptions> ReplayBotArgs(int argc, char** argv,
                                               const std::vector<char*>& positional);

int RunReplayBot(const ReplayBotOptions& options);

}  // namespace arena

#endif  // ARENA_ARENA_CLI_REPLAY_BOT_COMMAND_H_
