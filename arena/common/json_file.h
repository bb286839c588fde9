// Files of a records folder that hold one protobuf message as JSON
// (manifest.json, entrants.json, standings.json, a gate's result), the
// atomic write every such file gets, and the modes of what arena publishes.
//
// Modes: arena and referee narrow their umask to 077 in main(), so that
// records, logs and secrets are the organiser's only. What is meant to be
// read by others (the HTML site, standings, head-to-head, entrants,
// manifest, a gate's result) is given the modes the umask arena was started
// with allows: files 0666 & ~umask, folders 0777 & ~umask (umask 022: 0644
// and 0755). Records stay 0600 whatever the umask (referee/records).
//
// Thread safety: plain functions; concurrent writers of one path each leave
// a whole file (the last rename wins).
#ifndef ARENA_ARENA_COMMON_JSON_FILE_H_
#define ARENA_ARENA_COMMON_JSON_FILE_H_

#include <sys/types.h>

#include <string>

#include "absl/status/status.h"
#include "google/protobuf/message.h"

namespace arena {

// The umask the process started with (read before main() runs).
mode_t StartingUmask();
// 0666 & ~StartingUmask(): a published file.
mode_t PublicFileMode();
// 0777 & ~StartingUmask(): a published folder.
mode_t PublicDirMode();

// Creates `dir` and its missing parents with PublicDirMode() (folders that
// exist keep their modes).
absl::Status MakePublicDirs(const std::string& dir);

// Writes `text` to `path` atomically (a temporary file beside it, renamed),
// so that a reader sees the old or the new version, never a part. The file
// gets `mode` (by default PublicFileMode()), whatever the process's umask
// now is.
absl::Status WriteFileAtomically(const std::string& path, const std::string& text);
absl::Status WriteFileAtomically(const std::string& path, const std::string& text,
                                 mode_t mode);
// The same, and flushed to the disk (fsync) before the rename, so that after
// a crash of the machine the file is the old version or the new one, never
// an empty one: for the files that summarise a tournament (standings,
// manifest, entrants). A write that fails (a full disk: its status is a
// storage fault, referee/records/storage_fault.h) leaves the old version.
absl::Status WriteFileDurably(const std::string& path, const std::string& text);

// `message` as indented JSON with the proto's field names, durably (and
// PublicFileMode()).
absl::Status WriteJsonFile(const std::string& path,
                           const google::protobuf::Message& message);

// Reads `path` into `message`. NotFound if it does not exist; an error that
// names the path if it is not a regular file (a FIFO, a device: never
// opened, so never waited on) or does not parse.
absl::Status ReadJsonFile(const std::string& path, google::protobuf::Message* message);

}  // namespace arena

#endif  // ARENA_ARENA_COMMON_JSON_FILE_H_
