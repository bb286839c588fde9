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
#include <utility>
#include <vector>

#include "google/protobuf/message.h"

namespace arena {

// Appends `m` as MessageToJsonString(m) with always_print_primitive_fields
// and preserve_proto_field_names gives it (no whitespace).
void AppendReplayJson(const google::protobuf::Message& m, std::string* out);

// The same by this writer alone: false (with `out` as it was) if `m` holds
// something it leaves to protobuf. For tests.
bool AppendReplayJsonFast(const google::protobuf::Message& m, std::string* out);

// The steps of a chunk of a replay page (arena/views/html.h,
// ReplayPageBuilder; read back by arena/views/html/replay.js) as columns,
// which compress about a sixth better than whole steps one after another:
// {"<field>":[each step's value of that field of ReplayStep, as
// AppendReplayJson writes it], ..., "delta":[0 or 1 a step]}, but for
//  - "views" of a step whose "delta" is 1: each seat's view as only what
//    changed since the same seat's view in the step before: a field of the
//    view left out is unchanged, null is gone; the game's message (an
//    object in both) likewise, one level down; any other value is the
//    field's whole new value;
//  - each event's "seats": an entry equal to the one before it is 1.
class PageStepColumns {
 public:
  // Adds `step` (a v1::ReplayStep); `prev` (the step before, or null) is
  // what its views are said against.
  void Add(const google::protobuf::Message& step, const google::protobuf::Message* prev);
  // The columns' JSON, and forgetting them.
  std::string TakeJson();
  int size() const { return steps_; }

 private:
  std::vector<std::pair<std::string, std::string>> columns_;  // name, values joined by ","
  std::string delta_;
  int steps_ = 0;
};

}  // namespace arena

#endif  // ARENA_ARENA_VIEWS_REPLAY_JSON_H_
