// The command table of `arena`: the usage text, each command's usage and
// the flags it reads (by name), `--help` for one command, and the check that
// a command was given no flag of another command. Flags themselves are
// defined in arena_main.cc only; this file finds them by name in Abseil's
// registry.
//
// Thread safety: plain functions over constant tables; PrintHelp writes to
// std::cout.
#ifndef ARENA_ARENA_CLI_COMMAND_TABLE_H_
#define ARENA_ARENA_CLI_COMMAND_TABLE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace arena {

// The usage text of `arena` as a whole.
extern const char kUsage[];

// A command: its name, its usage and what it does, and the flags it reads.
struct CommandHelp {
  const char* name;
  const char* usage;
  std::vector<std::string> flags;
};
const std::vector<CommandHelp>& Commands();

// Prints the help of `command` (all commands if empty or unknown).
void PrintHelp(const std::string& command);

// Whether the command line asks for help, and of which command.
bool WantsHelp(int argc, char** argv, std::string* command);

// Whether the flag `name` was given a value other than its default.
bool FlagChanged(const std::string& name);

// A flag given to a command that does not read it is a usage error, not
// silently ignored: OK if `cmd` was given no flag (changed from its default)
// of another command's list (Commands()) but those of its own; `bots` and
// `options` are the gathered --bot and --option values.
absl::Status OnlyFlagsOf(const std::string& cmd, const std::vector<std::string>& bots,
                         const std::vector<std::string>& options);

}  // namespace arena

#endif  // ARENA_ARENA_CLI_COMMAND_TABLE_H_
