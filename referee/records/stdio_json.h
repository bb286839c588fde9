// The JSON lines a stdio bot program reads: what `arena_stdio` writes to its
// program's stdin for each message from the referee, and what `arena replay
// --requests` prints for the messages a seat was sent (docs/bots.md).
//
// One line per message: protobuf's JSON mapping of the message, every field
// present (defaults too), proto field names, with a "kind" field first
// ("match_start", "decision_request", "match_end" or "notice"); a Notice's
// own `kind` field is renamed "notice_kind". Other messages (Welcome,
// Resync) are not written to a stdio program.
//
// A game outside the bundled ones carries its messages in Any: the program
// must hold the game's types for them to print (the registry links them in).
//
// Thread safety: stateless; safe from any thread.
#ifndef ARENA_REFEREE_RECORDS_STDIO_JSON_H_
#define ARENA_REFEREE_RECORDS_STDIO_JSON_H_

#include <string>

#include "arena/v1/arena.pb.h"

namespace arena {

// The line for `message`, ending in "\n"; empty for a message a stdio
// program is not sent (Welcome, Resync, none set).
std::string StdioJsonLine(const v1::RefereeMessage& message);

}  // namespace arena

#endif  // ARENA_REFEREE_RECORDS_STDIO_JSON_H_
