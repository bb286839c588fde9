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

#include <cstdint>
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
// ReplayPageBuilder; read back by arena/views/html/replay.js, expandChunk)
// as columns: {"<field>":[each step's value of that field of ReplayStep, as
// AppendReplayJson writes it], ..., "delta":[0 or 1 a step]}. What the page
// can work out again or does not show is left out, so that a long match
// costs little more than its record:
//  - "step": the first step's number, then each the difference from the one
//    before;
//  - "views" of a step whose "delta" is 1: each seat's view as only what
//    changed since the same seat's view in the step before (a field left
//    out is unchanged, null is gone; the game's message, an object in both,
//    likewise one level down; a list whose change is shorter said as a
//    splice, {"@s":[at, how many removed, the inserted...]}; any other value
//    is the field's whole new value), and what every seat's change holds
//    alike said once: {"c":<alike>,"s":[<each seat's own>]} (a plain list of
//    the seats' changes when nothing is alike);
//  - events without "event", the message (the page shows the words), their
//    "seats" entries the same as the one before as 1, and without theirs;
//  - an action's "label" left out when it is "legal"[action], and its
//    "note" and "note_cut_bytes" when it has no note (a bot's note, shown
//    only where asked: ReplayOptions::notes).
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
  int64_t last_step_ = 0;  // the number of the step before, in this chunk
};

}  // namespace arena

#endif  // ARENA_ARENA_VIEWS_REPLAY_JSON_H_
