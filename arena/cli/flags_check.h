// Command-line flags checked before Abseil parses them, so that a usage
// error exits 2 and not 1. absl::ParseCommandLine (Abseil 20220623) calls
// std::exit(1) on an unknown flag, a value that does not parse or a missing
// value; for `arena gate`, 1 means "H0 accepted", so a typo such as
// `--candidat` would read as a rejected bot. CheckCommandLineFlags walks the
// arguments as absl's parser does (stopping at "--"), finds each flag in
// absl's registry (absl::FindCommandLineFlag, bool flags also as --noNAME)
// and parses its value with the flag's own parser (CommandLineFlag::ParseFrom),
// so that absl::ParseCommandLine then meets nothing it would refuse.
//
// Not covered: flags inside a --flagfile (absl reads those itself).
//
// Thread safety: call from main before other threads read flags (ParseFrom
// sets the flag to the value given, as the parse that follows does).
#ifndef ARENA_ARENA_CLI_FLAGS_CHECK_H_
#define ARENA_ARENA_CLI_FLAGS_CHECK_H_

#include "absl/status/status.h"

namespace arena {

// OK if every flag in argv[1..argc) is defined and its value parses;
// otherwise InvalidArgument naming the flag as given, e.g.
// "unknown flag --candidat (did you mean --candidate?)" or
// "--games=x: Illegal int value 'x'" or "--games needs a value".
absl::Status CheckCommandLineFlags(int argc, char** argv);

}  // namespace arena

#endif  // ARENA_ARENA_CLI_FLAGS_CHECK_H_
