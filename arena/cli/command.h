// What every `arena` command shares: how it reports an error. Each command's
// work is a function in a file of its own (play.h, gate.h, standings_command.h,
// record_commands.h) that takes an options struct and returns the exit code;
// only arena_main.cc reads flags.
//
// Thread safety: Fail writes to std::cerr.
#ifndef ARENA_ARENA_CLI_COMMAND_H_
#define ARENA_ARENA_CLI_COMMAND_H_

#include "absl/status/status.h"

namespace arena {

// Prints "arena: " and the status's message on stderr; returns 2, the exit
// code of a usage or runtime error.
int Fail(const absl::Status& s);

}  // namespace arena

#endif  // ARENA_ARENA_CLI_COMMAND_H_
