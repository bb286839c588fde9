// A fast writer of a replay step's JSON, the same bytes as protobuf's
// MessageToJsonString with always_print_primitive_fields and
// preserve_proto_field_names (the replay's JSON: arena/views/replay.h).
//
// protobuf 3.21's printer converts through the binary form and a type
// resolver: about 7 MB of JSON a second, 6 s for the 45 MB of a
// 20,000-decision Pesten replay. This walks the message by reflection, in
// the descriptor's field order, printing unset scalars, strings and enums
// with their defaults, empty repeated fields as [], and set messages only.
// What it does not handle the way protobuf does for certain it leaves to
// protobuf (AppendReplayJson then uses MessageToJsonString for the whole
// message): maps, google.protobuf.Any, unset fields with explicit presence,
// strings with bytes outside printable ASCII. tests (replay_test.cc) compare
// its output with protobuf's on real replays of every game.
//
// Thread safety: stateless; safe from any thread.
#ifndef ARENA_ARENA_VIEWS_REPLAY_JSON_H_
#define ARENA_ARENA_VIEWS_REPLAY_JSON_H_

#include <string>

#include "google/protobuf/message.h"

namespace arena {

// Appends `m` as MessageToJsonString(m) with always_print_primitive_fields
// and preserve_proto_field_names gives it (no whitespace).
void AppendReplayJson(const google::protobuf::Message& m, std::string* out);

// The same by this writer alone: false (with `out` as it was) if `m` holds
// something it leaves to protobuf. For tests.
bool AppendReplayJsonFast(const google::protobuf::Message& m, std::string* out);

// A replay step as a long match's page carries it (arena/views/html.h,
// ReplayPageBuilder; read back by arena/views/html/replay.js): the step's
// JSON as AppendReplayJson writes it, but for
//  - "views_delta" in place of "views" when `prev` is given: each seat's
//    view as only what changed since the same seat's view in `prev`: a
//    field of the view left out is unchanged, null is gone; the game's
//    message (an object in both) likewise, one level down; any other value
//    is the field's whole new value;
//  - each event's "seats": an entry equal to the one before it is 1.
// A step this writer cannot write (AppendReplayJsonFast) is written whole.
void AppendPageStepJson(const google::protobuf::Message& step,
                        const google::protobuf::Message* prev, std::string* out);

}  // namespace arena

#endif  // ARENA_ARENA_VIEWS_REPLAY_JSON_H_
