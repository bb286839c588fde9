// The `arena` commands and lines about repro bundles that are not the
// replay-bot (arena/cli/replay_bot_command.h): `arena replay FILE --requests --seat
// S`, which prints the exact messages one seat of a recorded match was sent,
// as the JSON lines a stdio bot reads (referee/records/stdio_json.h), and the
// line a tournament prints about the bundles it wrote
// (arena/records/repro_bundle.h).
//
// Thread safety: plain functions writing to std::cout and std::cerr.
#ifndef ARENA_ARENA_CLI_REPRO_COMMANDS_H_
#define ARENA_ARENA_CLI_REPRO_COMMANDS_H_

#include <string>

#include "arena/records/repro_bundle.h"

namespace arena {

// `arena replay FILE --requests --seat S`: MatchStart, every DecisionRequest
// and MatchEnd seat S was sent, one JSON line each, on stdout. 0, or 2 on an
// error (an unreadable record, one that does not play again, no such seat).
int RunReplayRequests(const std::string& file, int seat);

// Says on stdout how many bundles were written and where, and on stderr how
// many could not be (each was logged); nothing if there were none.
void ReportReproBundles(const ReproBundleWriter::Totals& totals,
                        const std::string& records_dir);

}  // namespace arena

#endif  // ARENA_ARENA_CLI_REPRO_COMMANDS_H_
