// `arena check-bot`'s report of its first failure: the match, the request
// that faulted, its repro bundle with the command that re-runs it, and the
// last steps the bot's seat was sent and answered.
//
// The re-run command works as printed, pasted into a shell in the folder
// check-bot ran in: arena by its absolute path, the bundle's path quoted
// for the shell if it needs it, `--inherit_env` when the bot ran unsandboxed
// (replay-bot otherwise gives it the sandbox's PATH and environment, as
// check-bot's sandbox did: replay_bot_command.h), then the bot's command as
// given to --bot.
//
// Thread safety: the functions touch only their arguments (and write the
// bundle's file).
#ifndef ARENA_ARENA_CLI_CHECK_BOT_FAILURE_H_
#define ARENA_ARENA_CLI_CHECK_BOT_FAILURE_H_

#include <cstdint>
#include <ostream>
#include <string>

#include "arena/v1/record.pb.h"

namespace arena {

// The failing check, and the match that shows it.
struct CheckFailure {
  std::string check;   // the check's name ("seats pesten")
  std::string where;   // the match in words ("pesten, 3 seats, the bot at seat 1")
  std::string record;  // its record file
  int seat = 0;        // the bot's seat in it
  v1::FaultKind fault = v1::FAULT_KIND_UNSPECIFIED;  // the bot's fault there, if any
  int64_t fault_step = 0;
};

// The bot, for its repro bundle and the command that re-runs it.
struct CheckedBot {
  std::string dir;      // the records folder: the bundle goes to its repro/
  std::string name;     // the bot's name
  std::string command;  // its command, as given to --bot
  bool sandboxed = true;
};

void PrintCheckFailure(const CheckFailure& failure, const CheckedBot& bot, std::ostream& out);

// `word` as the shell reads it back: itself if it has nothing the shell
// would take apart, else in single quotes.
std::string ShellWord(const std::string& word);

}  // namespace arena

#endif  // ARENA_ARENA_CLI_CHECK_BOT_FAILURE_H_
