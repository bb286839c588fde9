// A fast writer of protobuf's JSON mapping (proto3), for record lines: JSON
// Lines records (`--record_format jsonl`, plain or compressed), the lines of
// an in-memory record, and `arena cat`.
//
// protobuf 3.21's MessageToJsonString costs about 6.5 µs for a 116-byte
// record line (it converts through the binary form and a type resolver),
// about 9 times this writer's cost; with about 2.7 lines a decision it would
// be most of the referee's own CPU per decision (docs/benchmarks.md). This
// writer walks the message by reflection and writes the same JSON as
// MessageToJsonString with preserve_proto_field_names: fields in field-number
// order, default values omitted, 64-bit integers quoted, enums by name, maps as
// objects with their entries sorted by key (protobuf prints them in hash
// order; sorted keeps a record byte-for-byte reproducible), non-finite
// doubles as "NaN"/"Infinity"/"-Infinity", and google.protobuf.Any (the
// `other` slots that carry a game outside the bundled ones) in its
// canonical form, {"@type":"<type URL>", the packed message's fields}; the
// packed type must be compiled into the program (the game that packed it
// is). It covers the mapping of every type the arena's protos use; other
// well-known types (Timestamp, wrappers...) are not used and not handled
// (but inside an Any, where protobuf's own writer is used).
// Reading records stays with protobuf's own parser; tests/record_test.cc
// checks, over thousands of real record lines, that the library parses this
// output back to the same message and that it matches the library's bytes.
//
// Thread safety: stateless; safe from any thread.
#ifndef ARENA_REFEREE_RECORDS_JSON_WRITER_H_
#define ARENA_REFEREE_RECORDS_JSON_WRITER_H_

#include <string>

#include "google/protobuf/message.h"

namespace arena {

// Appends `m` as one line of JSON (no whitespace, no newline) to `out`.
void AppendJson(const google::protobuf::Message& m, std::string* out);

}  // namespace arena

#endif  // ARENA_REFEREE_RECORDS_JSON_WRITER_H_
