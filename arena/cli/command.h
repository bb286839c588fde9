// What every `arena` command shares: how it reports an error, and how it
// reads a --bot or --option value. Each command's work is a function in a
// file of its own (play.h, gate.h, standings_command.h, record_commands.h,
// repro_commands.h, check_bot.h, replay_bot.h, human_seat.h) that takes its
// options (a struct, or the arguments) and returns the exit code; only
// arena_main.cc reads flags.
//
// Thread safety: Fail writes to std::cerr.
#ifndef ARENA_ARENA_CLI_COMMAND_H_
#define ARENA_ARENA_CLI_COMMAND_H_

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace arena {

// Prints "arena: " and the status's message on stderr; returns 2, the exit
// code of a usage or runtime error.
int Fail(const absl::Status& s);

// A repeated flag's value of the form NAME=COMMAND (--bot) or KEY=VALUE
// (--option), split at its first '='. An error names the flag, the value
// and the form if there is no '=' or nothing before it, or, with
// `need_right`, nothing after it.
absl::StatusOr<std::pair<std::string, std::string>> SplitFlagPair(const char* flag,
                                                                  const std::string& text,
                                                                  const char* form,
                                                                  bool need_right);

}  // namespace arena

#endif  // ARENA_ARENA_CLI_COMMAND_H_
