// Files of a records folder that hold one protobuf message as JSON
// (manifest.json, entrants.json, standings.json, a gate's result), and the
// atomic write every such file gets.
//
// Thread safety: plain functions; concurrent writers of one path each leave
// a whole file (the last rename wins).
#ifndef ARENA_ARENA_COMMON_JSON_FILE_H_
#define ARENA_ARENA_COMMON_JSON_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "google/protobuf/message.h"

namespace arena {

// Writes `text` to `path` atomically (a temporary file beside it, renamed),
// so that a reader sees the old or the new version, never a part.
absl::Status WriteFileAtomically(const std::string& path, const std::string& text);

// `message` as indented JSON with the proto's field names, atomically.
absl::Status WriteJsonFile(const std::string& path,
                           const google::protobuf::Message& message);

// Reads `path` into `message`. NotFound if it does not exist; an error that
// names the path if it is not a regular file (a FIFO, a device: never
// opened, so never waited on) or does not parse.
absl::Status ReadJsonFile(const std::string& path, google::protobuf::Message* message);

}  // namespace arena

#endif  // ARENA_ARENA_COMMON_JSON_FILE_H_
